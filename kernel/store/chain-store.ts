import type { BlockEvent, BlockRecord, CommittedBlock, DecidedCommit, Receipt, Tx } from '../model/types.js';
import type { IndexWrite } from '../state/index-stage.js';
import type { ScanOptions, StateSource } from '../state/overlay.js';
import { txFieldsFromRecord, txFromRecord, txToRecord, type TxFields, type TxRecord } from '../tx/record.js';
import type { KvIterateOptions, KvOp, KvStore } from '../state/kv.js';
import { ABSENT, ChainStoreCaches } from './chain-store-caches.js';
import { StateReads, type StateReadCounts } from './state-reads.js';
import { ALL_KEYS } from './state-scan-cache.js';
import { LOG_START, type TxTextLog } from './tx-text-log.js';
import { blockCodec, eventCodec, metaCodec, positionCodec, storedTxCodec, totalsCodec, txIndexEntry } from './chain-store-codec.js';
import {
  PREFIX,
  blockByHashKey,
  blockEventsPrefix,
  blockKey,
  commitKey,
  eventKey,
  metaKey,
  prefixEnd,
  readU64,
  stateKey,
  totalsKey,
  TREE_VERSIONED_NODES,
  txByAddressKey,
  txByAddressPrefix,
  txGlobalKey,
  txKey,
  u64,
} from './keys.js';
import { utf8Bytes } from '../codec/utf8.js';
import { ValidatorActivityIndex, type ValidatorActivity } from './validator-activity.js';
import { indexWriteOps, pluginIndexReader, type IndexReader } from './plugin-index.js';

const decoder = new TextDecoder();

export interface AddressTotals {
  sent: bigint;
  received: bigint;
  fees: bigint;
  sent_count: number;
  received_count: number;
}

/** Chain-wide counters, written in the same batch as the block they count. */
export interface ChainMeta {
  height: number;
  state_root: string;
  block_hash: string;
  total_txs: number;
  total_burned: bigint;
}

/**
 * Committed state as of one instant: the head it belongs to and its entries, read consistently
 * however long the read takes and whatever is committed meanwhile (a LevelDB snapshot). Close it
 * when done: an open view holds back the store's compaction.
 */
export interface StateView {
  readonly head: Readonly<ChainMeta>;
  readonly state: StateSource;
  /** Every entry, ascending by key, read as the caller pulls them (never all held at once). */
  entries(): AsyncIterable<[string, Uint8Array]>;
  close(): Promise<void>;
}

/**
 * `ops.push(...more)` without the spread: a spread passes every element as an argument, and a
 * write of ~10^5 tree nodes (a genesis chunk into a 10^6-key tree) overflows the call stack.
 */
function append(ops: KvOp[], more: readonly KvOp[]): void {
  for (const op of more) ops.push(op);
}

/** State entries under `prefix` read through `kv` (the store or a snapshot of it). */
async function* stateEntriesOf(kv: { iterate(o: KvIterateOptions): AsyncIterable<[Uint8Array, Uint8Array]> }, prefix: string, options: ScanOptions = {}): AsyncIterable<[string, Uint8Array]> {
  if (options.limit !== undefined && options.limit <= 0) return;
  const start = stateKey(prefix);
  const cut = PREFIX.state.length;
  const range = { gte: start, lt: prefixEnd(start), ...(options.reverse ? { reverse: true } : {}), ...(options.limit !== undefined ? { limit: options.limit } : {}) };
  for await (const [k, v] of kv.iterate(range)) yield [decoder.decode(k).slice(cut), v];
}

/** Stored totals, or the zeros of an address no committed transaction named. */
function totalsOf(raw: Uint8Array | undefined): AddressTotals {
  return raw ? totalsCodec.decode(raw) : { sent: 0n, received: 0n, fees: 0n, sent_count: 0, received_count: 0 };
}

async function collect<T>(rows: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const r of rows) out.push(r);
  return out;
}

/** One page of a transaction list, newest first, and how many transactions the list holds in all. */
export interface TxPage {
  readonly hashes: string[];
  readonly total: number;
  /** False when the walk stopped at its bound: `total` then counts only the entries walked. */
  readonly exact?: boolean;
}

/**
 * Index entries one filtered list request may walk. Without a type index, a filter reads the
 * whole range (and a record per entry an older build wrote without its type): 1.3 s per request
 * over 200 000 transactions, 34-41 s over old-format entries. Bounded, a request costs at most
 * this many reads, and the answer says when its total is a lower bound.
 */
export const MAX_FILTER_SCAN = 20_000;

export interface StoredTx {
  tx: Tx;
  receipt: Receipt;
}

/** A committed block and everything else its batch writes (one atomic batch per store: the tree's nodes first where they are kept apart). */
export interface BlockBatch extends CommittedBlock {
  /** Sorted state writes of the block (null = delete). */
  readonly stateChanges: ReadonlyArray<readonly [string, Uint8Array | null]>;
  /** Plugins' node-local index writes in the order staged: outside the state root, inside this batch. */
  readonly indexWrites?: readonly IndexWrite[];
  /** Extra ops computed for the block (state tree nodes, plugin indexes). */
  readonly extraOps: readonly KvOp[];
  /** The block's commit certificate, when there is one (a network of one validator has none). */
  readonly certificate?: DecidedCommit;
}

export interface ChainStoreOptions {
  /** Blocks whose stored bytes stay in memory after their commit (default 64). */
  readonly recentBlocks?: number;
  /** Bytes of recently committed transaction records kept in memory (default 8 MiB, ~750 transfers: the last few blocks, which is what polls read). */
  readonly recentTxBytes?: number;
  /** Committed state values the state cache holds (default 200,000); tests make it small to make every block read LevelDB. */
  readonly stateEntries?: number;
  /**
   * Where transaction texts go (the node's data directory has one). Without it they stay inline
   * in the LevelDB records, the format stores written before the log still hold and read.
   */
  readonly textLog?: TxTextLog;
}

/** The counters no state root covers: a node started from a snapshot takes them from the serving node. */
export type ChainCounters = Pick<ChainMeta, 'total_txs' | 'total_burned'>;

export const GENESIS_META: ChainMeta = { height: 0, state_root: '', block_hash: '', total_txs: 0, total_burned: 0n };

/**
 * Blocks, transactions, receipts, events, per-address indexes, validator activity, plugins'
 * indexes and state in one LevelDB, written a block at a time in one atomic, fsynced batch: after a crash the store holds
 * either the old height with its state or the new height with its state, never a mix. The state
 * tree's nodes go to a store of their own where the data directory keeps them apart
 * (`chain-stores.ts`), in a batch written and fsynced before this one, so a crash in between
 * leaves only nodes no head names.
 * Transaction texts, when the store has a text log, go there first (durably) and the batch holds
 * pointers to them.
 */
export class ChainStore {
  private meta: ChainMeta = GENESIS_META;
  private firstFull = 1;
  /** `total_txs` as the snapshot this store started from counted them: transactions it holds no record of. */
  private txsBeforeFirstFull = 0;
  /** What the store keeps in memory of what it wrote (chain-store-caches.ts). */
  private readonly caches: ChainStoreCaches;
  private readonly textLog: TxTextLog | undefined;
  private readonly activity: ValidatorActivityIndex;
  /** Committed state reads through `caches.state`, and the prefetch that fills it a batch at a time. */
  private readonly reads: StateReads;
  /** Advanced before and after a write of totals: a `getTotals` read spanning it caches nothing. */
  private totalsEpoch = 0;

  constructor(
    readonly kv: KvStore,
    options: ChainStoreOptions = {},
  ) {
    this.caches = new ChainStoreCaches(options);
    this.textLog = options.textLog;
    this.activity = new ValidatorActivityIndex(kv);
    this.reads = new StateReads(kv, this.caches.state);
  }

  async load(): Promise<ChainMeta> {
    const raw = await this.kv.get(metaKey('chain'));
    this.meta = raw ? metaCodec.decode(raw) : GENESIS_META;
    const first = await this.kv.get(metaKey('first-full'));
    this.firstFull = first ? readU64(first) : 1;
    const before = await this.kv.get(metaKey('txs-before-first-full'));
    this.txsBeforeFirstFull = before ? readU64(before) : 0;
    await this.activity.load(this.meta.height);
    if (this.textLog) {
      // Texts appended after the last committed batch belong to a block that never committed.
      const end = await this.kv.get(metaKey('txtext'));
      await this.textLog.truncateTo(end ? positionCodec.decode(end) : LOG_START);
    }
    return this.meta;
  }

  get head(): Readonly<ChainMeta> {
    return this.meta;
  }

  /**
   * The lowest height held with its transactions and commit certificate: 1, or the height after
   * the snapshot this store started from (the snapshot's own block has neither), so it is what
   * the node can serve to a peer catching up.
   */
  get firstFullHeight(): number {
    return this.firstFull;
  }

  /**
   * The transactions this store holds and indexes: `total_txs` less those of the chain before the
   * snapshot it started from, which `total_txs` counts (the serving node's figure) but the
   * transaction index never saw. What the unfiltered transaction list pages over.
   */
  get indexedTxCount(): number {
    return Math.max(0, this.meta.total_txs - this.txsBeforeFirstFull);
  }

  /** Committed state, as the executor and queries read it. */
  readonly state: StateSource = {
    get: (key) => this.reads.get(key),
    scan: (prefix, options) => this.reads.scan(prefix, options, () => collect(stateEntriesOf(this.kv, prefix, options))),
  };

  /**
   * A committed state value if memory holds it, without reading LevelDB (undefined when it is not
   * cached or known absent). For hints only: the state tree's update takes old value hashes it
   * checks itself (StateChange), so what this returns never decides a result.
   */
  cachedState(key: string): Uint8Array | undefined {
    const cached = this.caches.state.peek(key);
    return cached === undefined || cached === ABSENT ? undefined : cached;
  }

  /**
   * Reads these committed state keys into the state cache in one LevelDB call (those not cached
   * already): what a block's or a relay batch's transactions will read, fetched together before
   * they run. Only a cache fill (state-reads.ts): what `state.get` answers is the same without it.
   */
  prefetchState(keys: Iterable<string>): Promise<void> {
    return this.reads.prefetch(keys);
  }

  /** Scans of committed state so far, by what answered them (`chain_state_scans_total`). */
  get stateScanCounts(): { readonly cache: number; readonly store: number } {
    return this.reads.scanCounts;
  }

  /** LevelDB reads of committed state so far, by how and by family (`chain_state_reads_total`). */
  get stateReadCounts(): StateReadCounts {
    return this.reads.counts;
  }

  /** Committed state and its head as they are now, for a long read that must see one block's state only. */
  async stateView(): Promise<StateView> {
    const snap = this.kv.snapshot();
    try {
      const raw = await snap.get(metaKey('chain'));
      return {
        head: raw ? metaCodec.decode(raw) : GENESIS_META,
        state: { get: (key) => snap.get(stateKey(key)), scan: (prefix, options) => collect(stateEntriesOf(snap, prefix, options)) },
        entries: () => stateEntriesOf(snap, ''),
        close: () => snap.close(),
      };
    } catch (e) {
      await snap.close();
      throw e;
    }
  }

  async getBlock(height: number): Promise<BlockRecord | undefined> {
    const raw = this.caches.recentBlockBytes.get(height) ?? (await this.kv.get(blockKey(height)));
    return raw ? blockCodec.decode(raw) : undefined;
  }

  async getBlockHeightByHash(hash: string): Promise<number | undefined> {
    const raw = await this.kv.get(blockByHashKey(hash));
    return raw ? readU64(raw) : undefined;
  }

  async getCommit(height: number): Promise<Uint8Array | undefined> {
    return this.kv.get(commitKey(height));
  }

  /** Whether a transaction is committed: the duplicate check, which needs neither record nor text. */
  async hasTx(hash: string): Promise<boolean> {
    return this.caches.recentTxBytes.has(hash) || (await this.kv.get(txKey(hash))) !== undefined;
  }

  /**
   * A committed transaction's fields and receipt, without its text: what the RPC views, lists and
   * inclusion proofs show. Skips the text-log read and the body's JSON parse of `getTx`.
   */
  async getTxFields(hash: string): Promise<{ tx: TxFields; receipt: Receipt } | undefined> {
    const raw = await this.storedTxBytes(hash);
    if (!raw) return undefined;
    const { tx, receipt } = storedTxCodec.decodeMeta(raw);
    return { tx: txFieldsFromRecord(tx), receipt };
  }

  async getTx(hash: string): Promise<StoredTx | undefined> {
    const raw = await this.storedTxBytes(hash);
    if (!raw) return undefined;
    const { tx, receipt } = await storedTxCodec.decode(raw, this.textLog);
    return { tx: txFromRecord(tx), receipt };
  }

  /** A committed transaction's stored bytes: the recent ones from memory, older ones from LevelDB. */
  private async storedTxBytes(hash: string): Promise<Uint8Array | undefined> {
    return this.caches.recentTxBytes.get(hash) ?? (await this.kv.get(txKey(hash)));
  }

  /**
   * A committed block's events in order (empty for a height not committed, and for blocks an
   * earlier build stored or a snapshot carried: their events were not kept).
   */
  async getBlockEvents(height: number): Promise<BlockEvent[]> {
    let raw = this.caches.recentEventBytes.get(height);
    if (!raw) {
      const start = blockEventsPrefix(height);
      const read: Uint8Array[] = [];
      for await (const [, v] of this.kv.iterate({ gte: start, lt: prefixEnd(start) })) read.push(v);
      raw = read;
    }
    return raw.map((v) => eventCodec.decode(v));
  }

  /** The events a transaction of block `height` emitted (none for a failed one). */
  async getTxEvents(height: number, txHash: string): Promise<BlockEvent[]> {
    return (await this.getBlockEvents(height)).filter((e) => e.tx_hash === txHash);
  }

  /** A plugin's node-local index, as its consensus taps wrote it through `ctx.index`. */
  pluginIndex(namespace: string): IndexReader {
    return pluginIndexReader(this.kv, namespace);
  }

  /**
   * A copy: callers may change it without touching the cache. A read that spanned a commit's
   * write caches nothing (`totalsEpoch`): it may hold the totals from before the block, and caching
   * them over the commit's would make the next block build on them (the same rule as state-reads.ts).
   */
  async getTotals(address: string): Promise<AddressTotals> {
    let t = this.caches.totals.get(address);
    if (!t) {
      const epoch = this.totalsEpoch;
      t = totalsOf(await this.kv.get(totalsKey(address)));
      if (epoch === this.totalsEpoch) this.caches.totals.set(address, t);
    }
    return { ...t };
  }

  /**
   * The totals of every address the block's transactions name, those not cached read in one
   * `getMany`: the commit below then reads them from memory. At 10^6 accounts nearly every
   * recipient's totals were cold, one awaited LevelDB `get` after another inside the commit.
   */
  private async prefetchTotals(txs: readonly Tx[]): Promise<void> {
    const missing: string[] = [];
    const asked = new Set<string>();
    for (const tx of txs) {
      for (const address of [tx.from, tx.to]) {
        if (asked.has(address) || this.caches.totals.has(address)) continue;
        asked.add(address);
        missing.push(address);
      }
    }
    if (missing.length === 0 || !this.kv.getMany) return;
    let values: Array<Uint8Array | undefined>;
    try {
      values = await this.kv.getMany(missing.map(totalsKey));
    } catch {
      return; // Only a cache fill: the commit reads each address's totals itself.
    }
    missing.forEach((address, i) => {
      const raw = values[i];
      // Only what a reader has not cached meanwhile (the same bytes: totals change only at commit, and commits run one at a time).
      if (!this.caches.totals.has(address)) this.caches.totals.set(address, totalsOf(raw));
    });
  }

  /** What this node counted of a validator's blocks and votes (node-local, not state). */
  validatorActivity(address: string): Promise<ValidatorActivity> {
    return this.activity.get(address);
  }

  /** Committed blocks `trust_score` is a fraction of: the last 100, or fewer since counting began. */
  get trustWindowBlocks(): number {
    return this.activity.windowBlocks(this.meta.height);
  }

  /** The first height the validator activity figures count (1, or after a snapshot or upgrade). */
  get activityCountedFrom(): number {
    return this.activity.countedFrom;
  }

  /** Transaction hashes touching `address`, newest first. */
  async addressTxHashes(address: string, offset: number, limit: number): Promise<string[]> {
    const start = txByAddressPrefix(address);
    return this.collectHashes(start, offset, limit);
  }

  async countAddressTxs(address: string): Promise<number> {
    const start = txByAddressPrefix(address);
    let n = 0;
    for await (const _ of this.kv.iterate({ gte: start, lt: prefixEnd(start) })) n++;
    return n;
  }

  /** Every transaction of the chain, newest first. */
  async latestTxHashes(offset: number, limit: number): Promise<string[]> {
    return this.collectHashes(utf8Bytes(PREFIX.txGlobal), offset, limit);
  }

  /**
   * The transactions touching `address` (every transaction when undefined) whose type `matches`,
   * newest first: filtered before the page is cut, so pages are full and `total` counts matches.
   * Walks the whole index range, reading a record only for an entry written without its type.
   */
  async matchingTxHashes(address: string | undefined, matches: (target: string) => boolean, offset: number, limit: number, maxScan = MAX_FILTER_SCAN): Promise<TxPage> {
    const start = address === undefined ? utf8Bytes(PREFIX.txGlobal) : txByAddressPrefix(address);
    const hashes: string[] = [];
    let total = 0;
    let walked = 0;
    for await (const [, v] of this.kv.iterate({ gte: start, lt: prefixEnd(start), reverse: true })) {
      if (walked++ === maxScan) return { hashes, total, exact: false };
      const entry = txIndexEntry.decode(v);
      const target = entry.target ?? (await this.getTxFields(entry.hash))?.tx.target;
      if (target === undefined || !matches(target)) continue;
      if (total >= offset && hashes.length < limit) hashes.push(entry.hash);
      total++;
    }
    return { hashes, total };
  }

  private async collectHashes(start: Uint8Array, offset: number, limit: number): Promise<string[]> {
    const out: string[] = [];
    let skipped = 0;
    for await (const [, v] of this.kv.iterate({ gte: start, lt: prefixEnd(start), reverse: true, limit: offset + limit })) {
      if (skipped++ < offset) continue;
      out.push(txIndexEntry.decode(v).hash);
    }
    return out;
  }

  /** Writes a block and everything it changed in one atomic, durable batch (per store: the tree's nodes first, where they are apart). */
  async commitBlock(c: BlockBatch): Promise<ChainMeta> {
    const { block } = c;
    const height = block.header.height;
    if (height !== this.meta.height + 1) throw new Error(`commitBlock: expected height ${this.meta.height + 1}, got ${height}`);
    const ops: KvOp[] = [];
    const put = (key: Uint8Array, value: Uint8Array): void => void ops.push({ type: 'put', key, value });
    const blockBytes = blockCodec.encode(block);
    put(blockKey(height), blockBytes);
    put(blockByHashKey(block.hash), blockKey(height).slice(PREFIX.block.length));
    if (c.certificate) put(commitKey(height), c.certificate.bytes);
    const totals = new Map<string, AddressTotals>();
    const totalsOf = async (address: string): Promise<AddressTotals> => {
      let t = totals.get(address);
      if (!t) totals.set(address, (t = await this.getTotals(address)));
      return t;
    };
    await this.prefetchTotals(c.txs);
    const parts = c.txs.map((tx, i) => storedTxCodec.split({ tx: txToRecord(tx), receipt: c.receipts[i]! }));
    // Inline bytes whatever the store holds: the recent-transaction cache keeps them, so a read of
    // a recent transaction touches neither LevelDB nor the log; a store without a log writes them.
    const inline = parts.map((p) => storedTxCodec.inline(p.meta, p.body));
    for (let i = 0; i < c.txs.length; i++) {
      const tx = c.txs[i]!;
      const receipt = c.receipts[i]!;
      const entry = txIndexEntry.encode(tx.hash, tx.target);
      put(txGlobalKey(height, i), entry);
      put(txByAddressKey(tx.from, height, i), entry);
      if (tx.to !== tx.from) put(txByAddressKey(tx.to, height, i), entry);
      const sender = await totalsOf(tx.from);
      sender.fees += receipt.fee + (receipt.unused_gas_fee ?? 0n) + (receipt.storage_fee ?? 0n);
      if (receipt.status === 'confirmed' && tx.value > 0n) {
        sender.sent += tx.value;
        sender.sent_count++;
        const receiver = await totalsOf(tx.to);
        receiver.received += tx.value;
        receiver.received_count++;
      }
    }
    // By address with a comparator: the default sort turned each [address, totals] pair into a string per comparison.
    for (const [address, t] of [...totals.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) put(totalsKey(address), totalsCodec.encode(t));
    for (const [key, value] of c.stateChanges) {
      if (value === null) ops.push({ type: 'del', key: stateKey(key) });
      else put(stateKey(key), value);
    }
    const eventBytes: Uint8Array[] = [];
    for (const e of c.events) {
      const bytes = eventCodec.encode(e);
      eventBytes.push(bytes);
      put(eventKey(height, e.index), bytes);
    }
    append(ops, indexWriteOps(c.indexWrites ?? []));
    append(ops, c.extraOps);
    const activity = await this.activity.update(height, block.header.proposer, c.certificate?.signers ?? []);
    append(ops, activity.ops);
    const meta: ChainMeta = {
      height,
      state_root: block.state_root,
      block_hash: block.hash,
      total_txs: this.meta.total_txs + c.txs.length,
      total_burned: this.meta.total_burned + block.fees_burned,
    };
    put(metaKey('chain'), metaCodec.encode(meta));
    // The texts are durable before the batch that points at them is written (see TxTextLog);
    // appended last, so only the batch's own failure can leave them unreferenced.
    const logEnd = this.textLog?.end;
    if (this.textLog) {
      const pointers = await this.textLog.append(parts.map((p) => p.body));
      for (let i = 0; i < c.txs.length; i++) put(txKey(c.txs[i]!.hash), storedTxCodec.pointing(parts[i]!.meta, pointers[i]!));
      put(metaKey('txtext'), positionCodec.encode(this.textLog.end));
    } else {
      for (let i = 0; i < c.txs.length; i++) put(txKey(c.txs[i]!.hash), inline[i]!);
    }
    this.totalsEpoch++;
    try {
      await this.reads.writing(
        () => this.kv.write(ops, true),
        c.stateChanges.map(([key]) => key),
        () => this.cacheWrites(c.stateChanges),
      );
    } catch (e) {
      // The texts just appended belong to no block: give their space back (a restart would too).
      if (this.textLog && logEnd) await this.textLog.truncateTo(logEnd).catch(() => undefined);
      throw e;
    } finally {
      this.totalsEpoch++;
    }
    this.meta = meta;
    this.activity.applied(activity);
    for (const [address, t] of totals) this.caches.totals.set(address, t);
    this.caches.recentBlockBytes.set(height, blockBytes);
    this.caches.recentEventBytes.set(height, eventBytes);
    for (let i = 0; i < c.txs.length; i++) this.caches.recentTxBytes.set(c.txs[i]!.hash, inline[i]!);
    return meta;
  }

  private cacheWrites(changes: ReadonlyArray<readonly [string, Uint8Array | null]>): void {
    for (const [key, value] of changes) this.caches.state.set(key, value ?? ABSENT);
  }

  /** Genesis state (height 0): state writes, tree nodes and plugins' index writes, with the genesis root in meta. */
  /**
   * State written into an uninitialised store ahead of the step that initialises it, a chunk at a
   * time: the genesis account ranges before `commitGenesis`, a streamed snapshot's entries before
   * `installSnapshot`. State entries and the tree nodes that hold them; the head stays empty, so
   * a node stopped half-way is still uninitialised (`discardStaged` clears what it left).
   */
  async writeStaged(entries: ReadonlyArray<readonly [string, Uint8Array]>, treeOps: readonly KvOp[]): Promise<void> {
    if (this.meta.state_root !== '') throw new Error('genesis already committed');
    const ops: KvOp[] = entries.map(([key, value]) => ({ type: 'put', key: stateKey(key), value }));
    append(ops, treeOps);
    await this.reads.writing(
      () => this.kv.write(ops, false),
      entries.map(([key]) => key),
      () => {
        for (const [key] of entries) this.caches.state.delete(key);
      },
    );
  }

  /**
   * Deletes the state entries and tree nodes of an uninitialised store: what a streamed install
   * that was refused or cut off left (`writeStaged`), so that the next one does not mix it in.
   */
  async discardStaged(): Promise<void> {
    if (this.meta.state_root !== '') throw new Error('the store is initialised: its state is not staged');
    // Bracketed like every state write: a read in flight across the deletes must not cache what they removed.
    await this.reads.writing(
      async () => {
        for (const prefix of [PREFIX.state, PREFIX.treeNode]) {
          const start = utf8Bytes(prefix);
          let ops: KvOp[] = [];
          for await (const [key] of this.kv.iterate({ gte: start, lt: prefixEnd(start) })) {
            ops.push({ type: 'del', key });
            if (ops.length >= 10_000) {
              await this.kv.write(ops, false);
              ops = [];
            }
          }
          await this.kv.write(ops, false);
        }
      },
      ALL_KEYS,
      () => this.caches.state.clear(),
    );
  }

  async commitGenesis(stateChanges: ReadonlyArray<readonly [string, Uint8Array | null]>, extraOps: readonly KvOp[], stateRoot: string, indexWrites: readonly IndexWrite[] = []): Promise<void> {
    if (this.meta.state_root !== '') throw new Error('genesis already committed');
    const ops: KvOp[] = [];
    for (const [key, value] of stateChanges) {
      if (value !== null) ops.push({ type: 'put', key: stateKey(key), value });
    }
    append(ops, indexWriteOps(indexWrites));
    append(ops, extraOps);
    const meta: ChainMeta = { ...GENESIS_META, state_root: stateRoot };
    ops.push({ type: 'put', key: metaKey('chain'), value: metaCodec.encode(meta) });
    await this.reads.writing(
      () => this.kv.write(ops, true),
      stateChanges.map(([key]) => key),
      () => this.cacheWrites(stateChanges),
    );
    this.meta = meta;
  }

  /**
   * What genesis and a snapshot install run after staging a whole state and tree (`writeStaged`,
   * unsynced) and before the head that names it (`commitGenesis`, `installSnapshot`): every
   * store's memtable written out (`KvStore.flush`). The head's synced write covers only LevelDB's
   * current log, which it switches without syncing the old one when a memtable fills, so what
   * staging wrote through earlier logs would not outlive a power loss that the head did. The store
   * is still uninitialised, so a crash during it leaves a restart that stages again.
   */
  async flushStaged(): Promise<void> {
    if (this.meta.state_root !== '') throw new Error('the store is initialised: nothing is staged');
    await this.kv.flush?.();
  }

  /**
   * The tree's versioned nodes compacted down now (`KvStore.settle`), once genesis or a snapshot
   * install has written a whole tree: LevelDB leaves a bulk write spread over levels that overlap,
   * and the blocks that follow would push it down a merge at a time (at 10^6 accounts ~13 MB of
   * compaction per MB a block wrote, for minutes). After the head, so that the head's own batch
   * (genesis's listed accounts join the bulk build there, scattered over the whole version) is
   * settled too: before it, those few keys made LevelDB merge all of level 3 again under load.
   * Only speed rides on it: callers run it after the commit and log a failure.
   */
  async settleTree(): Promise<void> {
    await this.kv.settle?.({ gte: TREE_VERSIONED_NODES, lt: prefixEnd(TREE_VERSIONED_NODES) });
  }

  /** Starts an empty store from a verified snapshot: its state, tree nodes and head block. */
  async installSnapshot(block: BlockRecord, state: ReadonlyArray<readonly [string, Uint8Array]>, extraOps: readonly KvOp[], counters?: ChainCounters): Promise<void> {
    if (this.meta.state_root !== '') throw new Error('a snapshot can only be installed into an empty data directory');
    const ops: KvOp[] = [];
    for (const [key, value] of state) ops.push({ type: 'put', key: stateKey(key), value });
    append(ops, extraOps);
    const height = block.header.height;
    ops.push({ type: 'put', key: blockKey(height), value: blockCodec.encode(block) });
    ops.push({ type: 'put', key: blockByHashKey(block.hash), value: blockKey(height).slice(PREFIX.block.length) });
    // Counters before the snapshot are the serving node's (no root covers them); without them this node counts from 0.
    const meta: ChainMeta = { height, state_root: block.state_root, block_hash: block.hash, total_txs: counters?.total_txs ?? 0, total_burned: counters?.total_burned ?? 0n };
    ops.push({ type: 'put', key: metaKey('chain'), value: metaCodec.encode(meta) });
    ops.push({ type: 'put', key: metaKey('first-full'), value: u64(height + 1) });
    ops.push({ type: 'put', key: metaKey('txs-before-first-full'), value: u64(meta.total_txs) });
    ops.push(this.activity.startAfterSnapshot(height));
    this.totalsEpoch++;
    await this.reads.writing(
      () => this.kv.write(ops, true),
      ALL_KEYS,
      () => this.caches.state.clear(),
    );
    this.totalsEpoch++;
    this.meta = meta;
    this.firstFull = height + 1;
    this.txsBeforeFirstFull = meta.total_txs;
    this.caches.totals.clear();
    await this.activity.load(height);
  }

  async close(): Promise<void> {
    await this.kv.close();
    await this.textLog?.close();
  }
}

