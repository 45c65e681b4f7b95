import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { LevelWork } from '../store/level-store.js';

/** Bounds of `nodejs_gc_duration_seconds`, in seconds. */
export const GC_PAUSE_BUCKETS = [0.001, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1];

/** The node's Prometheus metrics, served as text at /metrics. */
export class NodeMetrics {
  readonly registry = new Registry();
  readonly height = new Gauge({ name: 'chain_height', help: 'last committed height', registers: [this.registry] });
  readonly txsCommitted = new Counter({ name: 'chain_txs_committed_total', help: 'transactions committed in blocks', registers: [this.registry] });
  readonly txsSubmitted = new Counter({ name: 'chain_txs_submitted_total', help: 'transactions admitted to the mempool', registers: [this.registry] });
  readonly txsRejected = new Counter({ name: 'chain_txs_rejected_total', help: 'submissions refused, by HTTP status', labelNames: ['status'], registers: [this.registry] });
  readonly mempool = new Gauge({ name: 'chain_mempool_size', help: 'pending transactions', registers: [this.registry] });
  readonly mempoolBytes = new Gauge({ name: 'chain_mempool_bytes', help: "bytes of pending transactions' texts (bounded by tx.mempool_max_bytes)", registers: [this.registry] });
  readonly blockCommit = new Histogram({ name: 'chain_block_commit_seconds', help: 'time to durably store each committed block, and to execute it first when voting had not already', buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5], registers: [this.registry] });
  readonly verifications: Gauge;
  readonly cacheHits: Gauge;
  /** Set by the node once consensus runs: signatures of peers' consensus messages verified on a worker. */
  consensusSignatures: () => { preverified: number; hits: number } = () => ({ preverified: 0, hits: 0 });
  /** Set by the node once consensus runs: transactions of compact proposals that were not held here. */
  proposalTxFetches: () => { requested: number; received: number } = () => ({ requested: 0, received: 0 });
  /** Set by the node once its store is open: LevelDB reads of committed state, by how and by family. */
  stateReads: () => ReadonlyArray<{ via: string; family: string; reads: number }> = () => [];
  /** Set by the node once its store is open: scans of committed state, by what answered them (state-scan-cache.ts). */
  stateScans: () => { readonly cache: number; readonly store: number } = () => ({ cache: 0, store: 0 });
  /** Set by the node once the chain is open: wall time of each step of its blocks, added up (kernel/chain/block-timings.ts). */
  blockSteps: () => ReadonlyArray<{ step: string; seconds: number; count: number }> = () => [];
  /** Set by the node once the chain is open: admissions that waited for a block step (kernel/chain/block-gate.ts). */
  admissionsHeld: () => number = () => 0;
  /** Set by the node: whether its state tree's upper levels are still being read in (tree-warm-up.ts). */
  treeWarming: () => boolean = () => false;
  /** Set by the node once its store is open: whether the chain store still scans its keys into its filter. */
  storeKeyScanning: () => boolean = () => false;
  /** Set by the node once its store is open: what each LevelDB store has done (files per level, point reads, compaction). */
  storeWork: () => ReadonlyArray<{ readonly store: string; readonly skippedReads: number } & LevelWork> = () => [];
  /** Set by the node: what an operator watches of consensus (connected peers, the round of the height in progress, blocks behind). */
  consensusView: () => { peers: number; round: number; behind: number } = () => ({ peers: 0, round: 0, behind: 0 });

  constructor(verifierStats: { verifications: number; cacheHits: number }) {
    // Finer GC buckets than prom-client's (1 ms, 10 ms, 100 ms, ...): a 20-50 ms pause is what
    // shows in the event-loop p99 under load, and the load bench reads these per rate.
    collectDefaultMetrics({ register: this.registry, gcDurationBuckets: GC_PAUSE_BUCKETS });
    this.verifications = new Gauge({ name: 'verifications_total', help: 'ML-DSA-65 signature verifications performed', registers: [this.registry], collect() { this.set(verifierStats.verifications); } });
    const consensus = (): { preverified: number; hits: number } => this.consensusSignatures();
    new Gauge({ name: 'consensus_signatures_preverified_total', help: 'signatures of peers\' votes, proposals and commits verified on a worker thread', registers: [this.registry], collect() { this.set(consensus().preverified); } });
    new Gauge({ name: 'consensus_preverified_hits_total', help: 'consensus signature checks answered from the pre-verified memo instead of in-thread', registers: [this.registry], collect() { this.set(consensus().hits); } });
    const fetches = (): { requested: number; received: number } => this.proposalTxFetches();
    new Gauge({ name: 'consensus_proposal_txs_requested_total', help: 'transactions named by compact proposals that were not held here, asked of the proposal\'s sender', registers: [this.registry], collect() { this.set(fetches().requested); } });
    new Gauge({ name: 'consensus_proposal_txs_received_total', help: 'transaction texts received in answer to those requests', registers: [this.registry], collect() { this.set(fetches().received); } });
    const held = (): number => this.admissionsHeld();
    new Gauge({ name: 'chain_admissions_held_total', help: 'submissions and relayed transactions whose admission waited for this node to finish validating, executing or storing a block', registers: [this.registry], collect() { this.set(held()); } });
    const warming = (): boolean => this.treeWarming();
    new Gauge({ name: 'chain_tree_warming', help: "1 while the node reads its state tree's upper levels into memory after a start (blocks read more tree nodes from LevelDB until it ends), else 0", registers: [this.registry], collect() { this.set(warming() ? 1 : 0); } });
    const keyScanning = (): boolean => this.storeKeyScanning();
    new Gauge({ name: 'chain_store_key_scanning', help: "1 while the chain store reads its keys into its filter after a start (until it ends, reads of absent state keys and totals go to LevelDB: chain_store_reads_skipped_total stays 0), else 0", registers: [this.registry], collect() { this.set(keyScanning() ? 1 : 0); } });
    const view = (): { peers: number; round: number; behind: number } => this.consensusView();
    new Gauge({ name: 'chain_peers', help: 'connected P2P peers', registers: [this.registry], collect() { this.set(view().peers); } });
    new Gauge({ name: 'chain_consensus_round', help: 'round of the height in progress (above 0: a proposer missed or votes were slow)', registers: [this.registry], collect() { this.set(view().round); } });
    new Gauge({ name: 'chain_behind_blocks', help: 'blocks this node knows it is behind its peers (catching up)', registers: [this.registry], collect() { this.set(view().behind); } });
    const labelled = (name: string, help: string, labelNames: readonly string[], samples: () => Iterable<readonly [Record<string, string>, number]>): void => {
      new Gauge({ name, help, labelNames, registers: [this.registry], collect() { for (const [labels, value] of samples()) this.set(labels, value); } });
    };
    labelled(
      'chain_state_reads_total',
      "committed state keys read from the store on a cache miss (some answered by the chain store's key filter, chain_store_reads_skipped_total; scans and snapshot reads are not counted): via 'single' (one awaited read) or 'prefetch' (a block's or relay batch's read-ahead), by family (the key's first segment: acct, acctkey, a plugin's name)",
      ['via', 'family'],
      () => this.stateReads().map((r) => [{ via: r.via, family: r.family }, r.reads] as const),
    );
    labelled(
      'chain_state_scans_total',
      "scans of committed state (a plugin's store read by prefix: what falls due at a height, a route's list), answered 'cache' (kept since no write changed a key under the prefix, state-scan-cache.ts) or 'store' (read through a LevelDB iterator)",
      ['answered'],
      () => {
        const s = this.stateScans();
        return [[{ answered: 'cache' }, s.cache] as const, [{ answered: 'store' }, s.store] as const];
      },
    );
    labelled(
      'chain_block_step_seconds_total',
      "wall time of each step of this node's blocks since start: execute (a proposal's transactions), tree (state root), write (storing a committed block: totals read, text log, LevelDB write with fsync), recheck (mempool against the new head)",
      ['step'],
      () => this.blockSteps().map((s) => [{ step: s.step }, s.seconds] as const),
    );
    labelled('chain_block_step_runs_total', 'times each step of chain_block_step_seconds_total ran', ['step'], () => this.blockSteps().map((s) => [{ step: s.step }, s.count] as const));
    labelled('chain_store_files', 'LevelDB table files per level of each store (chain, tree; level 0 at 8 slows writes, at 12 stops them until compaction catches up)', ['store', 'level'], () =>
      this.storeWork().flatMap(({ store, files }) => files.map((n, level) => [{ store, level: String(level) }, n] as const)),
    );
    labelled('chain_store_point_reads_total', 'keys point-read from each LevelDB store since start, found or not (get, each key of a getMany, snapshot gets; every caller: state values, address totals, tree nodes, root records, blocks read over RPC): what the libuv pool and the main thread copy for a block', ['store'], () =>
      this.storeWork().map(({ store, pointReads }) => [{ store }, pointReads] as const),
    );
    labelled('chain_store_reads_skipped_total', 'reads of state entries and address totals the chain store answered absent from its filter of the keys it holds, without asking LevelDB (presence-filtered-store.ts; the tree store has no filter: always 0)', ['store'], () =>
      this.storeWork().map(({ store, skippedReads }) => [{ store }, skippedReads] as const),
    );
    labelled('chain_store_compaction_bytes_total', "bytes each store's LevelDB background thread read and wrote flushing and compacting since start (whole MB, from leveldb.stats)", ['store', 'direction'], () =>
      this.storeWork().flatMap(({ store, compactionReadBytes, compactionWrittenBytes }) => [[{ store, direction: 'read' }, compactionReadBytes] as const, [{ store, direction: 'written' }, compactionWrittenBytes] as const]),
    );
    this.cacheHits = new Gauge({ name: 'verification_cache_hits_total', help: 'signature checks answered from the verify-once cache', registers: [this.registry], collect() { this.set(verifierStats.cacheHits); } });
  }
}
