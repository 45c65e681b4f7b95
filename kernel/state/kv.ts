/**
 * The narrow storage surface the kernel's data structures are written against. LevelDB
 * (classic-level) implements it in production; tests may use the in-memory map below. Writes go
 * into a batch so that a block, its transactions, indexes and every state change reach disk in one
 * atomic write; the state tree's nodes, which a node keeps in a store of their own
 * (`store/prefix-routed-store.ts`), reach disk in that store's batch just before.
 */
export interface KvReader {
  get(key: Uint8Array): Promise<Uint8Array | undefined>;
  /**
   * Several keys in one call, answers in the order asked. Optional: a reader without it is read
   * key by key. LevelDB answers a batch in one trip to its thread pool, which is what lets the
   * state tree read a whole level of a block's paths at once.
   */
  getMany?(keys: readonly Uint8Array[]): Promise<Array<Uint8Array | undefined>>;
}

export interface KvBatch {
  put(key: Uint8Array, value: Uint8Array): void;
  del(key: Uint8Array): void;
}

export interface KvIterateOptions {
  gte?: Uint8Array;
  lt?: Uint8Array;
  reverse?: boolean;
  limit?: number;
}

/**
 * The store as it was at one instant, read while writes go on (LevelDB's snapshots): what a
 * long read that must not mix two blocks' writes uses. Closing it lets the store reclaim space.
 */
export interface KvSnapshot extends KvReader {
  iterate(options: KvIterateOptions): AsyncIterable<[Uint8Array, Uint8Array]>;
  close(): Promise<void>;
}

export interface KvStore extends KvReader {
  iterate(options: KvIterateOptions): AsyncIterable<[Uint8Array, Uint8Array]>;
  /**
   * Optional: the keys alone, in the order `iterate` gives them, a run of up to a thousand at a
   * time: a scan of millions that needs no value, and no promise per key.
   */
  keyRuns?(options: KvIterateOptions): AsyncIterable<readonly Uint8Array[]>;
  /** A consistent view of the store as it is now. */
  snapshot(): KvSnapshot;
  /**
   * Applies every put and del atomically, durably (fsync) when `sync` is set; a synced write also
   * makes the unsynced writes since the current log began durable (not those of memtables before
   * it: `flush`). Two stores behind one (`PrefixRoutedStore`) are atomic per store only, and say
   * in what order they write.
   */
  write(ops: readonly KvOp[], sync: boolean): Promise<void>;
  /**
   * Optional: compacts what lies between gte and lt down the store's levels now (LevelDB's
   * `CompactRange`, which also writes the memtable out first). After a bulk write (genesis, a
   * snapshot install) LevelDB leaves the range spread over levels that overlap one another, and
   * every later write that pushes a level over its size would merge those files again; settled
   * once, they lie in order in the deepest level that held any of them.
   */
  settle?(range: { readonly gte: Uint8Array; readonly lt: Uint8Array }): Promise<void>;
  /**
   * Optional: writes the memtable out to a synced table. A synced write fsyncs only the current
   * log, and LevelDB switches logs without syncing the old one when a memtable fills, so after a
   * bulk of unsynced writes (staging) only this makes all of them durable.
   */
  flush?(): Promise<void>;
  close(): Promise<void>;
}

export type KvOp = { type: 'put'; key: Uint8Array; value: Uint8Array } | { type: 'del'; key: Uint8Array };

/** Collects operations for one atomic write. Later operations on the same key win. */
export class WriteBatch implements KvBatch {
  readonly ops: KvOp[] = [];
  put(key: Uint8Array, value: Uint8Array): void {
    this.ops.push({ type: 'put', key, value });
  }
  del(key: Uint8Array): void {
    this.ops.push({ type: 'del', key });
  }
}
