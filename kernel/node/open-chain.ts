import { join } from 'node:path';
import { proveStateKeys } from './proven-reads.js';
import { availableParallelism } from 'node:os';
import type { Logger } from 'pino';
import { createHooks, type Hooks } from '../host/hooks.js';
import { PluginHost } from '../host/host.js';
import { PluginBoundary } from '../host/plugin-boundary.js';
import type { PluginDefinition } from '../host/plugin.js';
import { ParamRegistry } from '../state/params.js';
import { ChainStore } from '../store/chain-store.js';
import { FileTxTextLog } from '../store/tx-text-log.js';
import { openChainStores } from '../store/chain-stores.js';
import { Chain } from '../chain/chain.js';
import { KERNEL_PARAMS } from '../chain/kernel-params.js';
import { CachingVerifier, type SignatureVerifier } from '../crypto/verifier.js';
import { PooledVerifier, VerifyPool, monitorEventLoop } from '../crypto/verify-pool/index.js';
import type { KeyPair } from '../crypto/provider.js';
import type { LoadedProvider } from '../crypto/providers/index.js';
import type { GenesisDoc } from '../config/genesis.js';
import { genesisOfShard } from '../config/genesis-rules.js';
import { ONE_SHARD, type ShardView } from '../crypto/shard.js';
import type { NodeConfig } from '../config/schema.js';
import { checkParamOverrides } from '../config/param-overrides.js';
import { OperationRegistry } from '../ops/registry.js';
import type { ConsensusStatus } from '../replica/consensus-status.js';
import { bootstrapFromSnapshot } from '../replica/snapshot-bootstrap.js';
import { proposalEvidenceVerifier } from '../replica/evidence-pool.js';
import { nodeKey } from './node-key.js';
import { chainHistory } from './history.js';
import { NodeMetrics } from './metrics.js';
import { QueryService } from './queries.js';
import type { KernelServices } from './services.js';
import type { Clock } from './clock.js';

/** Nice value of the transaction verify workers (Linux): below the event loop, which stays at 0. */
const TX_VERIFY_NICE = 10;

export interface OpenChainDeps {
  readonly config: NodeConfig;
  readonly catalogue: ReadonlyMap<string, PluginDefinition<any, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any
  readonly log: Logger;
  readonly provider: LoadedProvider;
  readonly genesis: GenesisDoc;
  readonly genesisHash: string;
  /** Where `chain/` (LevelDB) and `txtext/` are, created when absent. */
  readonly dataDir: string;
  readonly clock: Clock;
  /** The block production engine's view, once it runs. */
  readonly consensus: () => ConsensusStatus;
  readonly node: { readonly nodeId: string; readonly nodeAddress: string; readonly keys: KeyPair; readonly p2pEndpoint: () => string };
  /** Whether an empty store may be filled from `consensus.snapshot_url` (a node's start; an audit replays from genesis). */
  readonly snapshotBootstrap: boolean;
  /** The shard this chain is (decisions.md §71, `resolveSharding`); absent: a one-shard network. */
  readonly shards?: ShardView;
}

export interface OpenedChain {
  readonly chain: Chain;
  readonly store: ChainStore;
  readonly host: PluginHost<KernelServices>;
  readonly services: KernelServices;
  readonly hooks: Hooks;
  readonly params: ParamRegistry;
  readonly operations: OperationRegistry;
  readonly verifier: SignatureVerifier & { close?: () => Promise<void> };
  readonly metrics: NodeMetrics;
  readonly loopMonitor: { stop(): void };
  /** Signature verification worker threads (0: on the main thread). */
  readonly workers: number;
}

/**
 * The chain as a node runs it: the plugin host with the configured plugins booted, the store in
 * `dataDir`, and the chain opened on the genesis (written on first start). `startNode` serves it;
 * `chain audit` replays a stored chain into a fresh one, so both execute blocks with the same code.
 */
export async function openChain(d: OpenChainDeps): Promise<OpenedChain> {
  const { config, log, provider, genesis } = d;
  const shards = d.shards ?? ONE_SHARD;
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
  const stores = await openChainStores(d.dataDir);
  log.info({ layout: stores.layout }, `store layout: ${stores.layout}`);
  let textLog: FileTxTextLog;
  try {
    textLog = await FileTxTextLog.open(join(d.dataDir, 'txtext'));
  } catch (e) {
    // Closing also stops the chain store's key scan, which would otherwise go on reading LevelDB.
    await stores.kv.close();
    throw e;
  }
  const store = new ChainStore(stores.kv, { textLog });
  metrics.stateReads = () => store.stateReadCounts.entries();
  metrics.stateScans = () => store.stateScanCounts;
  metrics.storeWork = () => stores.work();
  metrics.storeKeyScanning = () => stores.keyScanning();
  void stores.keyScan.then((scan) => {
    if (scan.state === 'done') log.info({ keys: scan.keys, passes: scan.passes, seconds: Number(scan.seconds.toFixed(1)) }, `chain store's key filter ready: ${scan.keys} keys scanned in ${scan.seconds.toFixed(1)} s`);
    // Costs reads, never answers: without the filter every read asks LevelDB, as before it existed.
    else if (scan.state === 'failed') log.warn({ err: scan.error }, "chain store's key scan failed; its reads all go to LevelDB");
  });

  // Made before the host so the query service's contexts hold plugins to their declarations too.
  const boundary = new PluginBoundary();
  const services: KernelServices = {
    chain: undefined as unknown as Chain, // set below, before any plugin registers
    index: (plugin: string) => boundary.indexReader(plugin, store.pluginIndex(plugin)),
    query: new QueryService({ state: store.state, height: () => store.head.height }, hooks, { env: config.env, params, boundary, shards }),
    config,
    get consensus() {
      return d.consensus();
    },
    metrics,
    registry: metrics.registry,
    provider,
    nodeKey: nodeKey(d.node.nodeAddress, d.node.keys, provider),
    now: d.clock,
    history: chainHistory(store, () => services.chain, shards.id),
    shards,
    proveKeys: (keys) => proveStateKeys(services.chain, keys),
    node: { genesis, genesisHash: d.genesisHash, nodeId: d.node.nodeId, nodeAddress: d.node.nodeAddress, moniker: config.moniker ?? null, p2pEndpoint: d.node.p2pEndpoint },
  };
  const operations = new OperationRegistry();
  const host = new PluginHost<KernelServices>({ config, hooks, catalogue: d.catalogue, params, log, metrics: metrics.registry, services, profile: 'node', operations, boundary });
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
    shard: shards.id,
    nShards: shards.count,
    requireTxV3: config.tx.require_v3,
    mempool: { maxTxs: config.tx.mempool_max_txs, maxPerSender: config.tx.mempool_max_per_sender, maxBytes: config.tx.mempool_max_bytes },
    paramOverrides: config.param_overrides,
    operations,
  });
  metrics.blockSteps = () => chain.timings.entries();
  metrics.admissionsHeld = () => chain.gate.heldCount;
  chain.timings.onCommit((seconds) => metrics.blockCommit.observe(seconds));
  (services as { chain: Chain }).chain = chain;

  try {
    await host.boot();
    checkParamOverrides(config.param_overrides, params);
    if (d.snapshotBootstrap && config.consensus.snapshot_url && (await store.load()).state_root === '') {
      await bootstrapFromSnapshot(chain, config.consensus.snapshot_url, genesisOfShard(genesis, shards.id), provider, log);
    }
    await chain.open(genesis);
  } catch (e) {
    await store.close();
    await verifier.close?.();
    loopMonitor.stop();
    throw e;
  }
  return { chain, store, host, services, hooks, params, operations, verifier, metrics, loopMonitor, workers };
}
