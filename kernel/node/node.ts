import { kernelStatementSigner, nodeKey } from './node-key.js';
import { LightClientHeaders } from '../replica/light-client-headers.js';
import { registerIbcHeaderRoutes } from './ibc-header-routes.js';
import { DEFAULT_IBC_HEADER_INTERVAL, IBC_HEADER_INTERVAL_PARAM } from '../chain/kernel-params.js';
import { chainHistory } from './history.js';
import { join, resolve } from 'node:path';
import pino, { type Logger } from 'pino';
import { createHooks } from '../host/hooks.js';
import { PluginHost } from '../host/host.js';
import { reconcileServices, type ServiceReload } from '../host/service-reload.js';
import { PluginBoundary } from '../host/plugin-boundary.js';
import type { PluginDefinition } from '../host/plugin.js';
import { ParamRegistry } from '../state/params.js';
import { ChainStore } from '../store/chain-store.js';
import { FileTxTextLog } from '../store/tx-text-log.js';
import { LevelStore } from '../store/level-store.js';
import { Chain } from '../chain/chain.js';
import { KERNEL_PARAMS } from '../chain/kernel-params.js';
import { CachingVerifier, type SignatureVerifier } from '../crypto/verifier.js';
import { PooledVerifier, VerifyPool, monitorEventLoop } from '../crypto/verify-pool/index.js';
import { availableParallelism } from 'node:os';
import { selectProvider } from '../crypto/select-provider.js';
import { readKeyFile } from '../crypto/keyfile.js';
import { readGenesis } from './genesis-file.js';
import { genesisHash } from '../chain/block-hash.js';
import { ConfigError } from '../config/env.js';
import { checkParamOverrides } from '../config/param-overrides.js';
import { networkMinStake } from './network-min-stake.js';
import { GenesisMismatchError } from '../config/genesis-rules.js';
import { nodeIdOf } from '../crypto/node-id.js';
import { formatPeerEndpoint } from '../p2p/endpoint.js';
import { formatAddress } from '../p2p/tcp/wire.js';
import type { NodeConfig } from '../config/schema.js';
import { createHttpServer, type HttpServer } from '../rpc/index.js';
import { RouteTable, type RouteEntry } from '../host/route-table.js';
import { mountRoutes, servedRoutes } from './mount-routes.js';
import { ProvenReads } from './proven-reads.js';
import { registerKernelRoutes } from './kernel-routes.js';
import { registerOperationRoutes } from './operation-routes.js';
import { OperationRegistry } from '../ops/registry.js';
import { registerMainnetRefusals } from './test-network-routes.js';
import { NodeMetrics } from './metrics.js';
import type { KernelServices } from './services.js';
import type { ConsensusStatus } from '../replica/consensus-status.js';
import { QueryService } from './queries.js';
import { BlockProduction } from './block-production.js';
import { registerApiReference } from './api-reference.js';
import { nodeApiInfo, openApiDocument } from './openapi.js';
import { registerSnapshotRoutes } from './snapshot-routes.js';
import { bootstrapFromSnapshot } from '../replica/snapshot-bootstrap.js';
import { genesisTrust } from '../replica/snapshot-trust.js';
import { proposalEvidenceVerifier } from '../replica/evidence-pool.js';

/** Nice value of the transaction verify workers (Linux): below the event loop, which stays at 0. */
const TX_VERIFY_NICE = 10;

export interface RunningNode {
  readonly chain: Chain;
  readonly server: HttpServer;
  readonly port: number;
  readonly log: Logger;
  stop(): Promise<void>;
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
  const nodeId = nodeIdOf(key.keys.publicKey);
  log.info({ chain_id: genesis.chain_id, genesis_hash: genesisHashValue, node_id: nodeId, node_address: nodeAddress, moniker: config.moniker ?? null }, 'genesis checked');
  let p2pListen: () => string | undefined = () => undefined;
  const p2pEndpoint = (): string => formatPeerEndpoint(nodeId, config.p2p.external ?? p2pListen() ?? formatAddress(config.p2p.host, config.p2p.port));

  const hooks = createHooks();
  const params = new ParamRegistry();
  for (const p of KERNEL_PARAMS) params.declare('kernel', p);
  const workers = config.crypto.verify_workers ?? availableParallelism();
  // Verification runs off the main thread so the event loop keeps serving votes and RPC under load.
  // Transaction verification is the bulk of the CPU under load; its workers run niced so the
  // event loop (consensus steps, RPC) and the consensus signer below always get the CPU first.
  const verifier: SignatureVerifier & { close?: () => Promise<void> } = workers > 0 ? new PooledVerifier(new VerifyPool({ provider: provider.name, size: workers, nice: TX_VERIFY_NICE })) : new CachingVerifier(provider);
  log.info({ workers, provider: provider.name }, workers > 0 ? `signature verification on ${workers} worker thread(s)` : 'signature verification on the main thread');
  const metrics = new NodeMetrics(verifier.stats);
  const loopMonitor = monitorEventLoop(metrics.registry);
  const dataDir = resolve(config.data_dir);
  const store = new ChainStore(await LevelStore.open(join(dataDir, 'chain')), { textLog: await FileTxTextLog.open(join(dataDir, 'txtext')) });

  let consensus: ConsensusStatus = { round: () => 0, peers: () => [], behind: () => 0 };
  // Made before the host so the query service's contexts hold plugins to their declarations too.
  const boundary = new PluginBoundary();
  const services: KernelServices = {
    chain: undefined as unknown as Chain, // set below, before any plugin registers
    index: (plugin: string) => boundary.indexReader(plugin, store.pluginIndex(plugin)),
    query: new QueryService({ state: store.state, height: () => store.head.height }, hooks, { env: config.env, params, boundary }),
    config,
    get consensus() {
      return consensus;
    },
    metrics,
    registry: metrics.registry,
    provider,
    nodeKey: nodeKey(nodeAddress, key.keys, provider),
    now: () => Date.now(),
    history: chainHistory(store, () => services.chain, config.sharding.shards),
    node: { genesis, genesisHash: genesisHashValue, nodeId, nodeAddress, moniker: config.moniker ?? null, p2pEndpoint },
  };
  const operations = new OperationRegistry();
  const host = new PluginHost<KernelServices>({ config, hooks, catalogue, params, log, metrics: metrics.registry, services, profile: 'node', operations, boundary });
  const chain = new Chain({
    store,
    hooks,
    host: host as PluginHost<unknown>,
    params,
    verifier,
    evidenceVerifier: proposalEvidenceVerifier(genesis.chain_id, provider),
    log,
    env: config.env,
    chainId: genesis.chain_id,
    shard: config.sharding.shard_id ?? 0,
    requireTxV3: config.tx.require_v3,
    mempool: { maxTxs: config.tx.mempool_max_txs, maxPerSender: config.tx.mempool_max_per_sender },
    paramOverrides: config.param_overrides,
    operations,
  });
  (services as { chain: Chain }).chain = chain;

  try {
    await host.boot();
    checkParamOverrides(config.param_overrides, params);
    if (config.consensus.snapshot_url && (await store.load()).state_root === '') {
      await bootstrapFromSnapshot(chain, config.consensus.snapshot_url, genesis, provider, log);
    }
    await chain.open(genesis);
  } catch (e) {
    await store.close();
    throw e;
  }
  metrics.height.set(chain.head.height);
  chain.on('committed', (c) => {
    metrics.height.set(c.block.header.height);
    metrics.txsCommitted.inc(c.txs.length);
    metrics.mempool.set(chain.mempool.size);
  });

  const set = await chain.validatorSet();
  if (set.length < config.consensus.min_validators) {
    log.warn({ validators: set.length, min_validators: config.consensus.min_validators }, `only ${set.length} validator(s): BFT fault tolerance needs at least ${config.consensus.min_validators} (CHAIN_MIN_VALIDATORS)`);
  }
  if (!set.some((v) => v.address === nodeAddress)) {
    log.warn({ node_address: nodeAddress }, 'this key is not in the validator set; following without voting until a validator update adds it');
  }

  const headers = new LightClientHeaders({
    chain,
    kv: store.kv,
    signer: { address: nodeAddress, sign: kernelStatementSigner(key.keys, provider) },
    verify: (signature, message, publicKey) => provider.verify(signature, message, publicKey),
    interval: async () => (params.has(IBC_HEADER_INTERVAL_PARAM) ? params.reader(store.state).get(IBC_HEADER_INTERVAL_PARAM) : DEFAULT_IBC_HEADER_INTERVAL),
    log: log.child({ component: 'light-client-headers' }),
  });
  const routes = new RouteTable();
  registerKernelRoutes(routes, services, params, operations, host as PluginHost<unknown>);
  registerIbcHeaderRoutes(routes, headers);
  registerSnapshotRoutes(routes, chain, { address: nodeAddress, keys: key.keys }, provider, genesisTrust(genesis), config.consensus.checkpoint_interval, config.consensus.sync_history_blocks, join(dataDir, 'snapshots'));
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
  mountRoutes(server, routes, (owner) => host.servesRoutesOf(owner), log, proven.handlerOf);
  served = () => servedRoutes(server);
  // A service plugin loaded at runtime: its routes are mounted from its own routes tap alone.
  host.onServiceLoaded((name) => mountRoutes(server, host.routesOf(name), (owner) => host.servesRoutesOf(owner), log, proven.handlerOf));
  const { port } = await server.listen();
  log.info({ backend: server.backend, backend_reason: server.backendReason, port, host: config.rpc.host, rate_limit: config.rpc.rate_limit, trusted_ips: config.rpc.trusted_ips }, `node RPC listening on ${config.rpc.host}:${port} (${server.backend} backend)`);

  chain.on('queued', () => metrics.mempool.set(chain.mempool.size));
  await headers.start();
  const production = await BlockProduction.start({ chain, config, chainId: genesis.chain_id, genesisHash: genesisHashValue, self: nodeAddress, keys: key.keys, provider, dataDir, workers, metrics, log, headers });
  consensus = production;
  p2pListen = () => production.p2pAddress();
  metrics.consensusView = () => ({ peers: production.peers().length, round: production.round(), behind: production.behind() });

  let stopping: Promise<void> | null = null;
  return {
    chain,
    server,
    port,
    log,
    async reloadServices(plugins) {
      const r = await reconcileServices(host, plugins);
      log.info({ loaded: r.loaded, unloaded: r.unloaded, failed: r.failed }, 'service plugins reloaded');
      return r;
    },
    stop() {
      stopping ??= (async () => {
        await production.stop();
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

