import { EventEmitter } from 'node:events';
import type { Logger } from 'pino';
import type { NetworkEnv } from '../context/contexts.js';
import type { Hooks } from '../host/hooks.js';
import type { PluginHost } from '../host/host.js';
import { ParamRegistry } from '../state/params.js';
import { accountsReader } from '../state/accounts.js';
import type { ChainStore, ChainMeta } from '../store/chain-store.js';
import { settleTreeAfter } from './settle-tree.js';
import { WriteBatch } from '../state/kv.js';
import { toHex0x, parseHex } from '../codec/hex.js';
import type { SignatureVerifier } from '../crypto/verifier.js';
import type { GenesisDoc } from '../config/genesis.js';
import { GenesisMismatchError } from '../config/genesis-rules.js';
import { shardView, type ShardView } from '../crypto/shard.js';
import { readShardBinding } from '../state/shard-binding.js';
import { Mempool, type MempoolLimits } from '../mempool/mempool.js';
import type { TxIdentity } from '../tx/hash.js';
import type { TxFields } from '../tx/record.js';
import { MissingNodeError, StateTree, type StateChange, type UpperLevelsWarmUp } from '../state/tree/index.js';
import { PREFIX } from '../store/keys.js';
import { lastOperationNonce } from '../auth/nonce.js';
import type { OperationRegistry } from '../ops/registry.js';
import { readSchedule } from '../host/schedule-state.js';
import { blockHash, evidenceHash, genesisHash, txRoot } from './block-hash.js';
import { proposalContext } from './contexts.js';
import { executeBlock, type ExecutionResult } from './executor.js';
import { readAheadKeys, type Parties } from './read-ahead.js';
import { BlockGate } from './block-gate.js';
import { BlockTimings } from './block-timings.js';
import { Admission, queueInto, type OperationSubmission, type SubmissionResult } from './admission.js';
import type { Validator } from '../consensus/types.js';
import type { BlockHeader, BlockInfo, BlockRecord, CommittedBlock, DecidedCommit, Evidence, Receipt, SignatureLayout, Tx } from '../model/types.js';
import { ChainError } from '../errors.js';
import { effectiveGasPrice } from '../tx/signing.js';
import { verifyWithState } from '../ops/signature.js';
import { EVIDENCE_WINDOW_PARAM, evidenceWindowProblem } from './evidence-window.js';
import { utf8Bytes } from '../codec/utf8.js';
import { declaredGasLimit, gasLimitBelowBase } from '../tx/gas-limit.js';
import { ChainQueries } from './chain-queries.js';
import { ChainSnapshots } from './chain-snapshots.js';
import { CommitProgress } from './commit-progress.js';
import type { ProposedBlock } from './proposed-block.js';
import { ValidatorSets } from './validator-sets.js';
import { writeGenesisState } from './genesis-state.js';

export interface ChainDeps {
  readonly store: ChainStore;
  readonly hooks: Hooks;
  readonly host: PluginHost<unknown>;
  readonly params: ParamRegistry;
  readonly verifier: SignatureVerifier;
  /** Verifies evidence found in someone else's proposal (the consensus layer's proof). */
  readonly evidenceVerifier: EvidenceVerifier;
  readonly log: Logger;
  readonly env: NetworkEnv;
  readonly chainId: string;
  readonly shard: number;
  /** `n_shards` of the genesis (decisions.md §71); absent on a one-shard network. */
  readonly nShards?: number;
  readonly requireTxV3: boolean;
  readonly mempool: MempoolLimits;
  readonly paramOverrides: Readonly<Record<string, string>>;
  readonly operations: OperationRegistry;
}

export type { ProposedBlock } from './proposed-block.js';

/**
 * Evidence a valid block may carry: what the block codec has always decoded, so no block
 * committed before this rule was written breaks it.
 */
export const MAX_EVIDENCE_PER_BLOCK = 64;

/**
 * Evidence a proposer puts in one block. Each piece costs every validator two signature checks
 * before it can prevote; the rest waits for the next block.
 */
export const EVIDENCE_PER_PROPOSAL = 16;

/**
 * Checks a piece of evidence's signatures against `signer`, the record the accused validator had
 * at the evidence's height; null when they do not hold.
 */
export type EvidenceVerifier = (raw: unknown, signer: Validator) => Promise<Evidence | null>;

export type { SubmissionResult, OperationSubmission } from './admission.js';

/**
 * The chain core a consensus engine drives, shaped like ABCI++: `admit` (CheckTx), `propose`
 * (PrepareProposal), `validate` (ProcessProposal), `finalize` (FinalizeBlock + Commit).
 * Everything that decides state is deterministic in the block; the wall clock appears only in
 * `receivedAt` for display.
 */
export class Chain extends EventEmitter<{ committed: [CommittedBlock]; queued: [Tx, 'local' | 'peer'] }> {
  readonly mempool: Mempool;
  private readonly admission: Admission;
  private readonly tree: StateTree;
  /** Holds new admissions back while this node validates, executes or stores a block (block-gate.ts). */
  readonly gate = new BlockGate();
  private readonly progress = new CommitProgress();
  /** Wall time of each step of this node's blocks, for `chain_block_step_seconds_total`. */
  readonly timings = new BlockTimings();
  private readonly sets: ValidatorSets;
  /** The committed chain, read only: what everything outside the core reads (chain-queries.ts). */
  readonly queries: ChainQueries;
  /** Serving and installing state snapshots (chain-snapshots.ts). */
  readonly snapshots: ChainSnapshots;
  private genesisParentHash = '';
  /** Memoised execution of a validated proposal, so commit does not execute it twice. */
  private executed: { hash: string; txs: readonly Tx[]; result: ExecutionResult; stateRoot: string; treeOps: WriteBatch } | null = null;
  /** Hash of the block validated against the current head (cleared on commit). */
  private validatedHash: string | null = null;
  /** The shard this chain is and what it owns (decisions.md §71): bound to genesis state at open. */
  readonly shards: ShardView;
  constructor(private readonly d: ChainDeps) {
    super();
    this.mempool = new Mempool(d.mempool);
    this.shards = shardView(d.shard, d.nShards ?? 1);
    this.admission = new Admission({ store: d.store, hooks: d.hooks, host: d.host, params: d.params, verifier: d.verifier, env: d.env, chainId: d.chainId, requireTxV3: d.requireTxV3, shard: d.shard, shards: this.shards, mempool: this.mempool, operations: d.operations, head: () => this.head });
    this.tree = new StateTree(d.store.kv, { prefix: utf8Bytes(PREFIX.treeNode) });
    this.sets = new ValidatorSets(d.store.state, () => this.head.height);
    this.queries = new ChainQueries({ store: d.store, tree: this.tree, sets: this.sets, progress: this.progress, params: d.params });
    this.snapshots = new ChainSnapshots({ store: d.store, tree: this.tree, sets: this.sets, progress: this.progress, log: d.log });
  }

  get head(): Readonly<ChainMeta> {
    return this.d.store.head;
  }

  get chainId(): string {
    return this.d.chainId;
  }

  get env(): NetworkEnv {
    return this.d.env;
  }

  /** Loads the store, writing genesis state on first start; checks the store belongs to this genesis. */
  async open(genesis: GenesisDoc): Promise<void> {
    if (genesis.chain_id !== this.d.chainId) throw new Error(`genesis chain_id "${genesis.chain_id}" differs from the configured "${this.d.chainId}"`);
    this.genesisParentHash = genesisHash(genesis);
    const meta = await this.d.store.load();
    if (meta.state_root === '') {
      await writeGenesisState({ ...this.d, tree: this.tree, shards: this.shards }, genesis, this.genesisParentHash);
      this.d.log.info({ chain_id: genesis.chain_id, state_root: this.d.store.head.state_root }, 'genesis state written');
      await settleTreeAfter('genesis', this.d.store, this.d.log);
      await this.loadSchedule();
      return;
    }
    const recorded = await this.d.store.state.get('kernel/genesis_hash');
    const recordedHash = recorded ? new TextDecoder().decode(recorded) : undefined;
    if (recordedHash !== undefined && recordedHash !== this.genesisParentHash) {
      throw new GenesisMismatchError(`the data directory holds the chain of genesis ${recordedHash}, but the genesis file hashes to ${this.genesisParentHash}; use another data_dir or reset it`);
    }
    const boundShard = await readShardBinding(this.d.store.state);
    const served = this.shards.count === 1 ? null : { shard: this.shards.id, n_shards: this.shards.count };
    if (JSON.stringify(boundShard) !== JSON.stringify(served)) {
      throw new GenesisMismatchError(`the data directory holds the chain of ${boundShard === null ? 'a one-shard network' : `shard ${boundShard.shard} of ${boundShard.n_shards}`}, but this node is configured for ${served === null ? 'a one-shard network' : `shard ${served.shard} of ${served.n_shards}`} (CHAIN_SHARD_ID, CHAIN_SHARDS); use the data_dir of that shard or another one`);
    }
    await this.checkIntegrity(meta);
    await this.loadSchedule();
  }

  /**
   * Reads the upper levels of the head's state tree into memory (StateTree.warmUpperLevels), which
   * otherwise fill one path at a time: a level is kept once the level above is mostly known, so at
   * 10^6 keys a node's blocks still read ~23 tree nodes a transfer after thousands of transfers,
   * ~4 once warm (docs/performance.md, "Warming the upper levels in the node"). Runs beside
   * consensus: nothing waits for it, and a stale fill is refused by the tree. Not `complete` when
   * the chain moved on before it began (run it again) or `signal` stopped it.
   */
  warmStateTree(signal: AbortSignal): Promise<UpperLevelsWarmUp> {
    return this.tree.warmUpperLevels(parseHex(this.head.state_root, 32)!, signal);
  }

  /**
   * The plugin schedule of committed state becomes the host's: what decides which taps run in the
   * next block is the chain's, never this node's config file, which only seeds genesis.
   */
  private async loadSchedule(): Promise<void> {
    const entries = await readSchedule(this.d.store.state);
    if (entries) this.d.host.applySchedule(entries);
  }

  /**
   * Block and state are written in one batch (the state tree's nodes just before it, in their own
   * store where the data directory keeps them apart), so the head block, its state root, the
   * tree's nodes for that root and the absence of a next block must agree on every start;
   * anything else is corruption, and the node stops rather than build on it.
   */
  private async checkIntegrity(meta: ChainMeta): Promise<void> {
    // One path of the head's tree (genesis's too): a tree store restored from an earlier time than
    // the chain store, or lost, lacks it (nodes are only ever added), and would fail the next block.
    try {
      await this.tree.get(parseHex(meta.state_root, 32)!, utf8Bytes('kernel/genesis_hash'));
    } catch (e) {
      if (!(e instanceof MissingNodeError)) throw e;
      throw new Error(`store integrity: the state tree holds no node of the head's root ${meta.state_root} (${e.message}); restore the data directory's tree/ and chain/ together from one backup`);
    }
    if (meta.height === 0) return;
    const head = await this.d.store.getBlock(meta.height);
    if (!head || head.hash !== meta.block_hash || head.state_root !== meta.state_root) {
      throw new Error(`store integrity: head block ${meta.height} does not match the recorded head (hash ${meta.block_hash}, root ${meta.state_root})`);
    }
    if (await this.d.store.getBlock(meta.height + 1)) throw new Error(`store integrity: block ${meta.height + 1} exists beyond the recorded head ${meta.height}`);
    this.d.log.info({ height: meta.height, block_hash: meta.block_hash, state_root: meta.state_root }, 'store opened at recorded head');
  }

  /** Size of a transaction in a block: the bytes of its canonical body (what the hash covers). */
  sizeOf = (tx: Tx): number => {
    let n = this.sizes.get(tx);
    if (n === undefined) {
      n = Buffer.byteLength(tx.canonical, 'utf8');
      this.sizes.set(tx, n);
    }
    return n;
  };

  private readonly sizes = new WeakMap<Tx, number>();
  /** The `type` a transaction shows and `?type=` matches (Admission.typeOf). */
  typeOf = (target: string): string => this.admission.typeOf(target);
  /** Gas of a transaction before its handler reports more (Admission.gasOf). */
  gasOf = (tx: Pick<Tx, 'origin' | 'target'> & Partial<Pick<Tx, 'body'>>): number => this.admission.gasOf(tx);
  /** The most gas a transaction may use: its declared gas_limit, else its base gas (Admission.gasLimitOf). */
  gasLimitOf = (tx: Pick<Tx, 'origin' | 'target' | 'body'>): number => this.admission.gasLimitOf(tx);

  /** CheckTx of a plain transaction (`POST /api/v1/transactions`); see admission.ts for the steps. */
  async admit(rawBody: unknown, receivedAt: number, source: 'local' | 'peer' = 'local', text?: string): Promise<SubmissionResult> {
    await this.gate.passage();
    return this.admission.admitTransfer(rawBody, receivedAt, text, this.queueFrom(source));
  }

  /** CheckTx of a signed operation submitted through its route or socket method (decisions.md §16). */
  async admitOperation(name: string, body: unknown, pathParams: Readonly<Record<string, string>>, receivedAt: number): Promise<OperationSubmission> {
    await this.gate.passage();
    return this.admission.admitOperation(this.d.operations.envelope(name, body, pathParams), receivedAt, undefined, this.queueFrom('local'));
  }

  /** Queues a transaction a plugin creates (e.g. a faucet credit); plugins validate it in checkTx. */
  admitSystem(target: string, from: string, to: string, value: bigint, body: Record<string, unknown>, receivedAt: number): Promise<Tx> {
    return this.admission.admitSystem(target, from, to, value, body, receivedAt, this.queueFrom('local'));
  }

  /** A pending transaction by id: lets a proposal's decoder reuse what admission already built. */
  pendingTx(hash: string): Tx | undefined {
    return this.mempool.get(hash);
  }

  /**
   * The transaction as a block with this base fee executes it, once its signature's layout is
   * known (admission, or `checkIncluded` for a block's): it pays the body's `gas_price` when the
   * layout covers it, else the block's `base_fee` (an omitted price, a v2 or own-layout
   * signature: decisions.md §9, §95), which may differ from the one in force at admission.
   */
  priced(tx: Tx, layout: SignatureLayout | undefined, baseFee: bigint): Tx {
    if (tx.origin !== 'signed') return tx;
    const declared = typeof tx.body.gas_price === 'number' ? BigInt(tx.body.gas_price) : undefined;
    const price = layout === undefined ? (declared ?? baseFee) : effectiveGasPrice(declared, layout, baseFee);
    return price === tx.gasPrice && tx.sigVersion === layout ? tx : { ...tx, gasPrice: price, sigVersion: layout };
  }

  /**
   * The accounts a peer's relay batch names, read into the state cache in one LevelDB call before
   * the batch's admissions start (they join the read instead of each awaiting its own). A failed
   * read is left to the admissions, which read on their own.
   */
  prefetchAccounts(txs: Iterable<Parties>): void {
    const keys = readAheadKeys(txs, this.d.host.boundary.readAheadStores);
    // After any block step in progress, as the admissions it serves (block-gate.ts): a read begun
    // during a block's write would be thrown away, and it would compete with the block's own reads.
    this.gate
      .afterSteps()
      .then(() => this.d.store.prefetchState(keys))
      .catch(() => undefined);
  }

  /** A transaction relayed by a peer (`text` parsed to `body`): the same admission checks as a local submission. */
  async admitFromPeer(origin: 'signed' | 'system', body: Record<string, unknown>, receivedAt: number, text?: string): Promise<void> {
    await this.gate.passage();
    return this.admission.admitFromPeer(origin, body, receivedAt, text, this.queueFrom('peer'));
  }

  /** Rebuilds a transaction from its hashed body alone (blocks received from peers). */
  rebuildTx(origin: 'signed' | 'system', body: Record<string, unknown>, baseFee: bigint, receivedAt: number, identity?: TxIdentity): Tx {
    return this.admission.rebuildTx(origin, body, baseFee, receivedAt, identity);
  }

  private queueFrom(source: 'local' | 'peer'): (tx: Tx) => void {
    return queueInto(this.mempool, (tx) => this.emit('queued', tx, source));
  }

  /**
   * Why the block at `blockHeight` may not carry this evidence, signatures aside: applied already,
   * outside `slash_evidence_window`, or naming a validator that was not in the set of the
   * evidence's height. Its signatures are then checked against that height's key (`validate`).
   */
  private async evidenceRefusal(ev: Evidence, blockHeight: number, windowBlocks: bigint): Promise<string | null> {
    if (await this.queries.evidenceApplied(ev.hash)) return 'was already applied';
    const outside = evidenceWindowProblem(ev.height, blockHeight, windowBlocks);
    if (outside) return outside;
    if ((await this.sets.validatorAt(ev.validator, ev.height)) === undefined) return `names ${ev.validator}, which was not a validator at height ${ev.height}`;
    return null;
  }

  /**
   * What of the pool's selection every validator will take, priced for this block: a pending
   * transaction whose signature no longer verifies as the block would check it (a v3/v4 price
   * over an older base fee, a policy changed by a restart) is dropped from the pool, rather than
   * making every block this node proposes invalid.
   */
  private async includable(selected: readonly Tx[], baseFee: bigint): Promise<Tx[]> {
    const checks = await Promise.all(selected.map((tx) => this.admission.checkIncluded(tx, baseFee)));
    const out: Tx[] = [];
    const dropped = new Set<string>();
    selected.forEach((tx, i) => {
      const c = checks[i]!;
      if (c.problem !== null) {
        for (const gone of this.mempool.evict(tx.hash)) dropped.add(gone.hash);
        this.d.log.warn({ tx: tx.hash, reason: c.problem }, 'dropped a pending transaction no block could carry');
      } else if (!dropped.has(tx.hash)) out.push(this.priced(tx, c.layout, baseFee));
    });
    return out;
  }

  /** PrepareProposal: the proposer's block for (height, round). */
  async propose(round: number, proposer: string, timestamp: number, evidence: readonly Evidence[] = []): Promise<ProposedBlock> {
    const head = this.head;
    const height = head.height + 1;
    const parent = head.height === 0 ? null : await this.d.store.getBlock(head.height);
    // Block time never goes backwards, whatever the proposer's clock says.
    const time = Math.max(timestamp, (parent?.header.timestamp ?? 0) + 1);
    const reader = this.d.params.reader(this.d.store.state);
    const maxGas = Number(await reader.get('max_block_gas'));
    const maxBytes = Number(await reader.get('max_block_bytes'));
    const block: BlockInfo = { chainId: this.d.chainId, height, round, timestamp: time, proposer };
    const baseFee = await reader.get('base_fee');
    const candidates = await this.includable(this.mempool.select(maxGas, this.gasLimitOf, 10_000, maxBytes, this.sizeOf), baseFee);
    const txs = await this.d.hooks.prepareProposal.promise(candidates, proposalContext({ env: this.d.env, params: this.d.params, boundary: this.d.host.boundary, shards: this.shards }, this.d.store.state, block));
    // Only what every validator will accept: a block carrying anything else could not be decided.
    const fresh: Evidence[] = [];
    const windowBlocks = evidence.length === 0 ? 0n : await reader.get(EVIDENCE_WINDOW_PARAM);
    for (const ev of evidence) {
      if (fresh.length === EVIDENCE_PER_PROPOSAL) break;
      if (!fresh.some((f) => f.hash === ev.hash) && (await this.evidenceRefusal(ev, height, windowBlocks)) === null) fresh.push(ev);
    }
    const header: BlockHeader = {
      chain_id: this.d.chainId,
      height,
      round,
      parent_hash: head.height === 0 ? this.genesisParentHash : head.block_hash,
      proposer,
      timestamp: time,
      tx_root: txRoot(txs.map((t) => t.hash)),
      tx_count: txs.length,
      prev_state_root: head.state_root,
      base_fee: baseFee,
      shard: this.d.shard,
      evidence_hash: evidenceHash(fresh.map((e) => e.hash)),
      ...(await this.sets.hashesAt(height)),
    };
    return { header, hash: blockHash(header), txs, evidence: fresh };
  }

  /**
   * ProcessProposal: null when the block may be voted for, else the reason it may not.
   * Executes the block and memoises the result, so the commit that follows does not run it again.
   */
  validate(p: ProposedBlock): Promise<string | null> {
    return this.gate.during(() => this.validateNow(p));
  }

  private async validateNow(p: ProposedBlock): Promise<string | null> {
    const h = p.header;
    const head = this.head;
    if (blockHash(h) !== p.hash) return 'block hash does not match its header';
    // The same block again (the replica re-checks a decided block before commit): the header is
    // already known good, so only the lists it commits to need recomputing.
    if (this.validatedHash === p.hash) return this.listsMatchHeader(p);
    if (h.chain_id !== this.d.chainId) return `chain_id ${h.chain_id} is not ${this.d.chainId}`;
    if (h.height !== head.height + 1) return `height ${h.height} does not follow ${head.height}`;
    const parentHash = head.height === 0 ? this.genesisParentHash : head.block_hash;
    if (h.parent_hash !== parentHash) return `parent_hash ${h.parent_hash} is not ${parentHash}`;
    if (h.prev_state_root !== head.state_root) {
      this.d.log.error({ height: h.height, proposed_prev_state_root: h.prev_state_root, own_state_root: head.state_root }, `state divergence at height ${head.height}: proposal says ${h.prev_state_root}, this node has ${head.state_root}`);
      return `state divergence: prev_state_root ${h.prev_state_root} differs from this node's ${head.state_root}`;
    }
    if (h.shard !== this.d.shard) return `shard ${h.shard} is not ${this.d.shard}`;
    const parent = head.height === 0 ? null : await this.d.store.getBlock(head.height);
    if (parent && h.timestamp <= parent.header.timestamp) return 'timestamp does not advance past the parent block';
    const reader = this.d.params.reader(this.d.store.state);
    if (h.base_fee !== (await reader.get('base_fee'))) return 'base_fee differs from the parameter';
    const sets = await this.sets.hashesAt(h.height);
    if (h.validators_hash !== sets.validators_hash) return `validators_hash ${h.validators_hash} is not the set of height ${h.height} (${sets.validators_hash})`;
    if (h.next_validators_hash !== sets.next_validators_hash) return `next_validators_hash ${h.next_validators_hash} is not the set of height ${h.height + 1} (${sets.next_validators_hash})`;
    const lists = this.listsMatchHeader(p);
    if (lists) return lists;
    const maxGas = await reader.get('max_block_gas');
    const maxBytes = await reader.get('max_block_bytes');
    let gas = 0n;
    let bytes = 0n;
    const seen = new Set<string>();
    for (const tx of p.txs) {
      if (seen.has(tx.hash)) return `transaction ${tx.hash} appears twice`;
      seen.add(tx.hash);
      const declared = declaredGasLimit(tx);
      const below = declared === undefined ? undefined : gasLimitBelowBase(declared, this.gasOf(tx));
      if (below !== undefined) return `transaction ${tx.hash}: ${below}`;
      // Bounded by what the transactions may use, so what they do use (the block's gas_used) is too.
      gas += BigInt(declared ?? this.gasOf(tx));
      bytes += BigInt(this.sizeOf(tx));
    }
    if (bytes > maxBytes) return `block size ${bytes} bytes exceeds max_block_bytes ${maxBytes}`;
    // Transactions this node has not verified yet are checked at once, so the verify pool's
    // workers share them instead of verifying one after another before the prevote.
    // A committed id never enters again: a system transaction has no nonce to stop it applying
    // twice, and a signed one would overwrite its confirmed receipt with a failed one. A pending
    // transaction cannot be committed (commit removes it from the pool), so only others are looked up.
    const again = await Promise.all(p.txs.map((tx) => (this.mempool.has(tx.hash) ? false : this.d.store.hasTx(tx.hash))));
    const repeated = again.indexOf(true);
    if (repeated >= 0) return `transaction ${p.txs[repeated]!.hash} is already committed`;
    const checks = await Promise.all(p.txs.map((tx) => this.admission.checkIncluded(tx, h.base_fee)));
    const problem = checks.find((c) => c.problem !== null);
    if (problem) return problem.problem;
    const priced = p.txs.map((tx, i) => this.priced(tx, (checks[i] as { layout: SignatureLayout | undefined }).layout, h.base_fee));
    if (gas > maxGas) return `block gas ${gas} (the sum of its transactions' gas limits) exceeds max_block_gas ${maxGas}`;
    if (p.evidence.length > MAX_EVIDENCE_PER_BLOCK) return `block carries ${p.evidence.length} pieces of evidence, more than ${MAX_EVIDENCE_PER_BLOCK}`;
    const seenEvidence = new Set<string>();
    const windowBlocks = p.evidence.length === 0 ? 0n : await reader.get(EVIDENCE_WINDOW_PARAM);
    for (const ev of p.evidence) {
      if (seenEvidence.has(ev.hash)) return `evidence ${ev.hash} appears twice`;
      seenEvidence.add(ev.hash);
      const refused = await this.evidenceRefusal(ev, h.height, windowBlocks);
      if (refused) return `evidence ${ev.hash} ${refused}`;
      const signer = (await this.sets.validatorAt(ev.validator, ev.height))!;
      const verified = await this.d.evidenceVerifier(ev.raw, signer);
      if (!verified || verified.hash !== ev.hash || verified.validator !== ev.validator || verified.height !== ev.height || verified.round !== ev.round) return `evidence ${ev.hash} does not verify`;
    }
    const ctx = proposalContext({ env: this.d.env, params: this.d.params, boundary: this.d.host.boundary, shards: this.shards }, this.d.store.state, { chainId: h.chain_id, height: h.height, round: h.round, timestamp: h.timestamp, proposer: h.proposer });
    const rejected = await this.d.hooks.processProposal.promise(ctx, p.txs);
    if (rejected) return rejected;
    await this.executeMemo(p, priced);
    this.validatedHash = p.hash;
    return null;
  }

  /**
   * The transaction and evidence lists are the ones the header commits to. Each transaction's id
   * was computed from its canonical text when the object was built (admission, or the proposal
   * decoder hashing what a peer sent), so it is not hashed again here.
   */
  private listsMatchHeader(p: ProposedBlock): string | null {
    const h = p.header;
    if (h.tx_count !== p.txs.length) return 'tx_count does not match the transaction list';
    if (h.tx_root !== txRoot(p.txs.map((t) => t.hash))) return 'tx_root does not match the transaction list';
    if (h.evidence_hash !== evidenceHash(p.evidence.map((e) => e.hash))) return 'evidence_hash does not match the evidence list';
    return null;
  }

  /**
   * Executes a validated proposal once (commit reuses it). `priced`: its transactions at the price
   * their signatures' layouts set (validate); without it they are checked again to learn it.
   */
  private async executeMemo(p: ProposedBlock, priced?: readonly Tx[]): Promise<{ txs: readonly Tx[]; result: ExecutionResult; stateRoot: string; treeOps: WriteBatch }> {
    if (this.executed?.hash === p.hash) return this.executed;
    let txs = priced;
    if (txs === undefined) {
      const checks = await Promise.all(p.txs.map((tx) => this.admission.checkIncluded(tx, p.header.base_fee)));
      txs = p.txs.map((tx, i) => {
        const c = checks[i]!;
        if (c.problem !== null) throw new Error(`finalize: ${c.problem}`);
        return this.priced(tx, c.layout, p.header.base_fee);
      });
    }
    const included = txs;
    const result = await this.timings.time('execute', async () => {
      // The accounts the block's transactions read, fetched together (a cache fill: state-reads.ts).
      await this.d.store.prefetchState(readAheadKeys(included, this.d.host.boundary.readAheadStores));
      return executeBlock(
        {
          hooks: this.d.hooks,
          params: this.d.params,
          env: this.d.env,
          shards: this.shards,
          log: this.d.log,
          gasOf: this.gasOf,
          operations: this.d.operations,
          inactiveProblem: (target, height) => this.admission.inactiveProblem(target, height),
          sendRefusal: (kind) => this.d.host.addressKind(kind)?.sendRefusal,
          scoped: (ctx, plugin) => this.d.host.scoped(ctx, plugin),
          systemTxProblem: (type, height) => this.admission.systemTxProblem(type, height),
          methods: this.d.host.methods,
          boundary: this.d.host.boundary,
          verifyWithState: async (op, tx, publicKey, ctx, baseFee) => {
            const r = await verifyWithState(op, tx.hash, publicKey, this.admission.signaturePolicy(baseFee), this.d.verifier, ctx);
            return r instanceof ChainError ? r : r.body;
          },
        },
        this.d.store.state,
        p.header,
        included,
        p.evidence,
      );
    });
    const treeOps = new WriteBatch();
    const prevRoot = parseHex(this.head.state_root, 32)!;
    // Each changed key's committed value, where execution left it in the state cache, goes along as
    // a hint: where memory cannot answer, the tree hashes it and recognises the key's old leaf by
    // that hash instead of reading it (a miss or a stale value only costs that read; the root never
    // depends on it). Unhashed here: a small tree, answered by memory, never hashes a hint at all.
    const changes = result.overlay.changes().map(([k, v]): StateChange => {
      const old = this.d.store.cachedState(k);
      return old === undefined ? [utf8Bytes(k), v] : [utf8Bytes(k), v, old];
    });
    const root = await this.timings.time('tree', () => this.tree.update(prevRoot, changes, treeOps));
    this.executed = { hash: p.hash, txs, result, stateRoot: toHex0x(root), treeOps };
    return this.executed;
  }

  /**
   * A decided block applied as one block step: validated against this node's chain, then (only if
   * it fits) `decided` makes its commit (the replica's certificate, or the solo producer's own
   * precommit, signed only for a block that validated), then finalized. One step for all three, so
   * an admission held during the check is not let in before the store.
   */
  async commitDecided(p: ProposedBlock, decided: () => Promise<DecidedCommit>): Promise<{ readonly reason: string } | { readonly record: BlockRecord }> {
    return this.gate.during(async () => {
      const reason = await this.validate(p);
      return reason !== null ? { reason } : { record: await this.finalize(p, await decided()) };
    });
  }

  /** FinalizeBlock + Commit: executes (or reuses the validated execution) and stores atomically. */
  finalize(p: ProposedBlock, commit?: DecidedCommit): Promise<BlockRecord> {
    return this.gate.during(() => this.progress.serialize(() => this.finalizeNow(p, commit)));
  }

  private async finalizeNow(p: ProposedBlock, commit?: DecidedCommit): Promise<BlockRecord> {
    if (p.header.height <= this.head.height) {
      const existing = await this.d.store.getBlock(p.header.height);
      if (existing?.hash === p.hash) return existing; // already applied (WAL replay)
      throw new Error(`finalize: height ${p.header.height} is already committed with another block`);
    }
    const stored = this.timings.commitStarted();
    const { txs, result, stateRoot, treeOps } = await this.executeMemo(p);
    const changedKeys = new Set(result.overlay.changes().map(([key]) => key));
    const record: BlockRecord = {
      header: p.header,
      hash: p.hash,
      state_root: stateRoot,
      gas_used: result.gasUsed,
      fees_burned: result.feesBurned,
      tx_hashes: p.txs.map((t) => t.hash),
      evidence: p.evidence,
    };
    await this.progress.writing(
      () =>
        this.timings.time('write', () => this.d.store.commitBlock({
          block: record,
          // As executed: each at the price its signature set, with the layout it verified under.
          txs,
          receipts: result.receipts,
          events: result.events,
          stateChanges: result.overlay.changes(),
          indexWrites: result.indexWrites,
          extraOps: treeOps.ops,
          ...(commit ? { certificate: commit } : {}),
        })),
      { height: record.header.height, keys: changedKeys },
    );
    this.executed = null;
    this.validatedHash = null;
    this.tree.releasePending();
    stored();
    this.sets.committed(changedKeys);
    this.mempool.removeCommitted(record.tx_hashes);
    if (result.scheduleChanged) await this.loadSchedule();
    await this.timings.time('recheck', () => this.recheckMempool());
    const committed: CommittedBlock = { block: record, txs, receipts: result.receipts, events: result.events };
    this.emit('committed', committed);
    this.d.hooks.committed.promise(committed).catch((err: unknown) => this.d.log.error({ err, height: record.header.height }, 'a committed-hook observer failed'));
    return record;
  }

  /** After a block, drops pending transactions that can no longer apply (nonce taken, balance gone). */
  private async recheckMempool(): Promise<void> {
    const accounts = accountsReader(this.d.store.state);
    for (const sender of this.mempool.senders()) {
      const acct = await accounts.get(sender);
      // A nonce the chain took (a copy admitted while the block carrying it committed) goes
      // alone: the transfers queued behind it follow the chain and stay.
      const taken = this.mempool.dropTaken(sender, acct.nonce);
      if (taken.length > 0) this.d.log.debug({ sender, dropped: taken.length }, 'dropped pending transactions whose nonce the chain has taken');
      const first = this.mempool.pendingOf(sender)[0];
      if (first && first.nonce !== acct.nonce + 1n) {
        const dropped = this.mempool.evict(first.hash);
        this.d.log.warn({ sender, dropped: dropped.length }, 'dropped pending transactions whose nonce no longer follows the chain');
      }
    }
    for (const actor of this.mempool.actors()) {
      const last = await lastOperationNonce(this.d.store.state, actor);
      for (const op of this.mempool.pendingOperationsOf(actor).filter((t) => t.nonce <= last)) this.mempool.evict(op.hash);
    }
  }

  /** ChainAccess.pendingOperations: the pool's operations of one type, in arrival order. */
  pendingOperations(name: string): Array<{ hash: string; body: Readonly<Record<string, unknown>> }> {
    return this.mempool.operationsNamed(name).map((tx) => ({ hash: tx.hash, body: tx.body }));
  }

  /** ChainAccess.pendingSystem: the pool's system transactions of one target, in arrival order. */
  pendingSystem(target: string): Array<{ hash: string; body: Readonly<Record<string, unknown>> }> {
    return this.mempool.systemNamed(target).map((tx) => ({ hash: tx.hash, body: tx.body }));
  }

  /** ChainAccess.derivedKeyOf (ChainQueries.derivedKeyOf). */
  derivedKeyOf(address: string, within?: number): Promise<string | undefined> {
    return this.queries.derivedKeyOf(address, within);
  }

  /** Submission-time view: is a hash pending, committed, or unknown. */
  async lookupTx(hash: string): Promise<{ tx: TxFields; receipt?: Receipt } | undefined> {
    const pending = this.mempool.get(hash);
    if (pending) return { tx: pending };
    return this.d.store.getTxFields(hash);
  }
}

