import { kernelStatementSigner } from './node-key.js';
import { LightClientHeaders } from '../replica/light-client-headers.js';
import { registerIbcHeaderRoutes } from './ibc-header-routes.js';
import { DEFAULT_IBC_HEADER_INTERVAL, IBC_HEADER_INTERVAL_PARAM } from '../chain/kernel-params.js';
import { join, resolve } from 'node:path';
import pino, { type Logger } from 'pino';
import { PluginHost } from '../host/host.js';
import { reconcileServices, type ServiceReload } from '../host/service-reload.js';
import type { PluginDefinition } from '../host/plugin.js';
import { Chain } from '../chain/chain.js';
import { selectProvider } from '../crypto/select-provider.js';
import { signerFor } from '../crypto/providers/index.js';
import { readKeyFile } from '../crypto/keyfile.js';
import { readGenesis } from './genesis-file.js';
import { genesisHash } from '../chain/block-hash.js';
import { ConfigError } from '../config/env.js';
import { networkMinStake } from './network-min-stake.js';
import { GenesisMismatchError, genesisOfShard } from '../config/genesis-rules.js';
import { resolveSharding } from '../config/sharding.js';
import { shardChainHash } from '../crypto/shard.js';
import { nodeIdOf } from '../crypto/node-id.js';
import { formatPeerEndpoint } from '../p2p/endpoint.js';
import { formatAddress } from '../p2p/tcp/wire.js';
import type { NodeConfig } from '../config/schema.js';
import { createHttpServer, type HttpServer } from '../rpc/index.js';
import { RouteTable, type RouteEntry, type RpcHandler } from '../host/route-table.js';
import { guardForeignReads } from './foreign-reads.js';
import { mountRoutes, servedRoutes } from './mount-routes.js';
import { ProvenReads } from './proven-reads.js';
import { registerKernelRoutes } from './kernel-routes.js';
import { registerOperationRoutes } from './operation-routes.js';
import { registerMainnetRefusals } from './test-network-routes.js';
import type { ConsensusStatus } from '../replica/consensus-status.js';
import { BlockProduction } from './block-production.js';
import { startTreeWarmUp } from './tree-warm-up.js';
import { openChain } from './open-chain.js';
import { CLOCK_OFFSET_VARIABLE, parseClockOffset, skewedClock } from './clock.js';
import { registerApiReference } from './api-reference.js';
import { nodeApiInfo, openApiDocument } from './openapi.js';
import { registerSnapshotRoutes } from './snapshot-routes.js';
import { genesisTrust } from '../replica/snapshot-trust.js';

export interface RunningNode {
  readonly chain: Chain;
  readonly server: HttpServer;
  readonly port: number;
  readonly log: Logger;
  stop(): Promise<void>;
  /**
   * Settles with the reason when the node cannot go on: a write found the disk full, so block
   * production stopped (nothing half-written: a block's batch is atomic). The process stops then
   * (cli/run-service.ts) and, started again with room on the disk, resumes from its last
   * committed block. Never settles otherwise.
   */
  readonly fault: Promise<Error>;
  /**
   * Loads and unloads service plugins to match a reloaded config's plugin list (SIGHUP): their
   * routes appear and disappear, the node keeps running, a plugin that fails to load is reported.
   */
  reloadServices(plugins: NodeConfig['plugins']): Promise<ServiceReload>;
}

/**
 * Boots a validator: config → plugin host → store and chain (genesis on first start) → RPC →
 * block production. Shutdown runs in reverse: production, RPC, plugins (their close handlers,
 * last in first out), store. SIGHUP reloads the service plugins (`reloadServices`).
 */
export async function startNode(config: NodeConfig, catalogue: ReadonlyMap<string, PluginDefinition<any, any>>): Promise<RunningNode> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const log = pino({ level: config.log_level, base: { network: config.network } });
  if (!config.genesis_file) throw new ConfigError('genesis_file is required (--home, CHAIN_HOME, CHAIN_GENESIS_FILE or --genesis)');
  if (!config.key_file) throw new ConfigError('key_file is required (--home, CHAIN_HOME, CHAIN_KEY_FILE or --key)');
  const { provider, reason } = selectProvider(config.crypto.provider);
  log.info({ provider: provider.name, reason }, 'signature provider selected');
  const key = readKeyFile(resolve(config.key_file), provider);
  if (!key.file.node_address) throw new ConfigError(`key file ${config.key_file} has no node_address: create it with "chain keys generate --node <name>"`);
  const nodeAddress = key.file.node_address;
  // decisions.md §83: the genesis meets every rule of §82 and is the one this node is pinned to.
  const genesisFile = resolve(config.genesis_file);
  const { doc: genesis, hash: genesisHashValue } = readGenesis(genesisFile, { minStake: networkMinStake(config, catalogue), provider });
  if (config.genesis_hash !== undefined && config.genesis_hash !== genesisHashValue) {
    throw new GenesisMismatchError(`genesis file ${genesisFile} hashes to ${genesisHashValue}, but this node is pinned to genesis_hash ${config.genesis_hash} (node.json, CHAIN_GENESIS_HASH or --genesis-hash)`);
  }
  // decisions.md §71: the shard this node serves, checked against the genesis before anything boots.
  const sharding = resolveSharding(config.sharding, genesis.n_shards ?? 1, genesisFile);
  const shards = sharding.view;
  if (sharding.ignoredShards) log.warn({ CHAIN_SHARDS: config.sharding.shards }, 'CHAIN_SHARDS is ignored without CHAIN_SHARD_ID: this node runs shard 0 of a one-shard network');
  if (shards.count > 1) log.info({ shard: shards.id, n_shards: shards.count }, `serving shard ${shards.id} of ${shards.count}`);
  const nodeId = nodeIdOf(key.keys.publicKey);
  log.info({ chain_id: genesis.chain_id, genesis_hash: genesisHashValue, node_id: nodeId, node_address: nodeAddress, moniker: config.moniker ?? null }, 'genesis checked');
  let p2pListen: () => string | undefined = () => undefined;
  const p2pEndpoint = (): string => formatPeerEndpoint(nodeId, config.p2p.external ?? p2pListen() ?? formatAddress(config.p2p.host, config.p2p.port));

  // One clock for the whole node; CHAIN_CLOCK_OFFSET_MS skews it in fault tests (clock.ts).
  const clockOffset = parseClockOffset(process.env[CLOCK_OFFSET_VARIABLE]);
  const clock = skewedClock(clockOffset);
  if (clockOffset !== 0) log.warn({ offset_ms: clockOffset }, 'CHAIN_CLOCK_OFFSET_MS set: this node runs on a skewed clock (fault tests only)');
  let consensus: ConsensusStatus = { round: () => 0, peers: () => [], behind: () => 0 };
  const dataDir = resolve(config.data_dir);
  const { chain, store, host, services, hooks, params, operations, verifier, metrics, loopMonitor, workers } = await openChain({
    config,
    catalogue,
    log,
    provider,
    genesis,
    genesisHash: genesisHashValue,
    dataDir,
    clock,
    consensus: () => consensus,
    node: { nodeId, nodeAddress, keys: key.keys, p2pEndpoint },
    snapshotBootstrap: true,
    shards,
  });
  metrics.height.set(chain.head.height);
  chain.on('committed', (c) => {
    metrics.height.set(c.block.header.height);
    metrics.txsCommitted.inc(c.txs.length);
    metrics.mempool.set(chain.mempool.size);
    metrics.mempoolBytes.set(chain.mempool.bytes);
  });

  const set = await chain.queries.validatorSet();
  if (set.length < config.consensus.min_validators) {
    log.warn({ validators: set.length, min_validators: config.consensus.min_validators }, `only ${set.length} validator(s): BFT fault tolerance needs at least ${config.consensus.min_validators} (CHAIN_MIN_VALIDATORS)`);
  }
  if (!set.some((v) => v.address === nodeAddress)) {
    log.warn({ node_address: nodeAddress }, 'this key is not in the validator set; following without voting until a validator update adds it');
  }

  const headers = new LightClientHeaders({
    chain,
    kv: store.kv,
    // The library's own signer where it has one (hedged; PQClean's ~1.5 ms against noble's ~11 ms
    // on the event loop): a header signature is stored with its record and gossiped from there,
    // never made again for that height within one data folder. A node re-synced into an empty
    // folder signs its past heights anew; peers keep the first valid signature per (height,
    // validator) and drop the rest, so two different ones harm nothing.
    signer: { address: nodeAddress, sign: kernelStatementSigner(key.keys, { sign: signerFor(provider, 'native') }) },
    verify: (signature, message, publicKey) => provider.verify(signature, message, publicKey),
    interval: async () => (params.has(IBC_HEADER_INTERVAL_PARAM) ? params.reader(store.state).get(IBC_HEADER_INTERVAL_PARAM) : DEFAULT_IBC_HEADER_INTERVAL),
    log: log.child({ component: 'light-client-headers' }),
  });
  const routes = new RouteTable();
  registerKernelRoutes(routes, services, params, operations, host as PluginHost<unknown>);
  registerIbcHeaderRoutes(routes, headers);
  registerSnapshotRoutes(routes, chain, { address: nodeAddress, keys: key.keys }, provider, genesisTrust(genesisOfShard(genesis, shards.id)), config.consensus.checkpoint_interval, config.consensus.sync_history_blocks, join(dataDir, 'snapshots'));
  hooks.routes.call(routes);
  const unserved = host.unservedListedRoute(routes);
  if (unserved !== undefined) throw new ConfigError(unserved);
  registerOperationRoutes(routes, services, operations);
  registerMainnetRefusals(routes, config.env);
  // decisions.md §87: the document lists what the server serves when asked (service plugins come and go).
  let served: () => RouteEntry[] = () => [];
  registerApiReference(routes, () => openApiDocument({ ...nodeApiInfo(config.network), routes: served() }));

  const server = await createHttpServer({
    host: config.rpc.host,
    port: config.rpc.port,
    corsAllowedOrigins: config.rpc.cors_allowed_origins,
    rateLimitPerSecond: config.rpc.rate_limit,
    rateLimitExempt: config.rpc.trusted_ips,
    maxBodyBytes: config.rpc.max_body_bytes,
    backend: config.rpc.http_backend,
    logger: log,
  });
  const proven = new ProvenReads(chain, services.query);
  const handlerOf = (e: RouteEntry): RpcHandler => guardForeignReads(shards, e, proven.handlerOf(e), (owner) => host.shardParamOf(owner) !== undefined);
  mountRoutes(server, routes, (owner) => host.servesRoutesOf(owner), log, handlerOf);
  served = () => servedRoutes(server);
  // A service plugin loaded at runtime: its routes are mounted from its own routes tap alone.
  host.onServiceLoaded((name) => mountRoutes(server, host.routesOf(name), (owner) => host.servesRoutesOf(owner), log, handlerOf));
  const { port } = await server.listen();
  log.info({ backend: server.backend, backend_reason: server.backendReason, port, host: config.rpc.host, rate_limit: config.rpc.rate_limit, trusted_ips: config.rpc.trusted_ips }, `node RPC listening on ${config.rpc.host}:${port} (${server.backend} backend)`);

  chain.on('queued', () => {
    metrics.mempool.set(chain.mempool.size);
    metrics.mempoolBytes.set(chain.mempool.bytes);
  });
  await headers.start();
  let faulted: ((err: Error) => void) | undefined;
  const fault = new Promise<Error>((res) => (faulted = res));
  const diskFull = (err: Error): void => {
    const reason = new Error(`the disk holding ${dataDir} is full (${err.message}): block production stopped with every committed block intact; free space and start the node again`, { cause: err });
    log.fatal({ err, data_dir: dataDir }, reason.message);
    faulted?.(reason);
    faulted = undefined;
  };
  const production = await BlockProduction.start({ chain, config, chainId: genesis.chain_id, genesisHash: shardChainHash(genesisHashValue, shards), self: nodeAddress, keys: key.keys, provider, dataDir, workers, metrics, log, now: clock, diskFull, headers });
  consensus = production;
  p2pListen = () => production.p2pAddress();
  // After production started: voting never waits for it.
  const treeWarmUp = startTreeWarmUp(chain, log.child({ component: 'state-tree' }), (err) => {
    faulted?.(new Error(`the state tree store is damaged (${err.message}): restore the data directory's tree/ and chain/ together from one backup`, { cause: err }));
    faulted = undefined;
  });
  metrics.treeWarming = () => treeWarmUp.running;
  metrics.consensusView = () => ({ peers: production.peers().length, round: production.round(), behind: production.behind() });

  let stopping: Promise<void> | null = null;
  return {
    chain,
    server,
    port,
    log,
    fault,
    async reloadServices(plugins) {
      const r = await reconcileServices(host, plugins);
      log.info({ loaded: r.loaded, unloaded: r.unloaded, failed: r.failed }, 'service plugins reloaded');
      return r;
    },
    stop() {
      stopping ??= (async () => {
        await production.stop();
        await treeWarmUp.stop();
        await headers.stop();
        await server.close();
        await host.close();
        await store.close();
        await verifier.close?.();
        loopMonitor.stop();
        log.info('node stopped');
      })();
      return stopping;
    },
  };
}

