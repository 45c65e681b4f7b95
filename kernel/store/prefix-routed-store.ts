import { compareBytes, hasBytePrefix } from '../codec/bytes.js';
import type { KvIterateOptions, KvOp, KvSnapshot, KvStore } from '../state/kv.js';
import { prefixEnd } from './keys.js';

interface Reader {
  get(key: Uint8Array): Promise<Uint8Array | undefined>;
  getMany?(keys: readonly Uint8Array[]): Promise<Array<Uint8Array | undefined>>;
  iterate(options: KvIterateOptions): AsyncIterable<[Uint8Array, Uint8Array]>;
}

/** Records a synced write may add to a store it has nothing else for (see `PrefixRoutedStore`). */
export interface SyncMarks {
  /** A key outside the side prefix that no caller uses. */
  readonly main: Uint8Array;
  /** A key under the side prefix that no caller uses. */
  readonly side: Uint8Array;
}

/**
 * Two stores behind one: keys under `sidePrefix` live in `side`, every other key in `main`.
 *
 * Why: the state tree's node records are most of what a block writes, and they are keyed by
 * version, so in a store of their own LevelDB moves their files down its levels without
 * rewriting them; in the chain's store each memtable flush mixes them with the state entries'
 * random keys, and every compaction that reaches those rewrites both.
 *
 * A write puts the side's records first, durably, then the main store's: the side holds only
 * records that nothing names until a main-store record does (the tree's nodes, named by its root
 * records and the chain's head in the main store), so a crash between the two leaves unreferenced
 * side records, never a main record naming a missing one. A write is therefore atomic per store, not across them;
 * callers that need more must keep the side's records referenced only from the main store.
 *
 * In one LevelDB store a synced write also makes the unsynced writes before it durable (one
 * log), and callers rely on it: a snapshot install stages its tree nodes unsynced, then commits
 * a head that names them with no tree record in that batch. So a synced write syncs each store
 * that took unsynced writes since its last sync, with that store's mark record (`SyncMarks`) if
 * the write has nothing else for it (a synced write covers only the current log, though: `flush`).
 */
export class PrefixRoutedStore implements KvStore {
  private readonly sideEnd: Uint8Array;
  /** Whether each store took an unsynced write since its last synced one. */
  private mainUnsynced = false;
  private sideUnsynced = false;

  constructor(
    private readonly main: KvStore,
    private readonly side: KvStore,
    private readonly sidePrefix: Uint8Array,
    private readonly syncMarks: SyncMarks,
  ) {
    this.sideEnd = prefixEnd(sidePrefix);
    if (hasBytePrefix(syncMarks.main, sidePrefix) || !hasBytePrefix(syncMarks.side, sidePrefix)) throw new Error('PrefixRoutedStore: the main sync mark must lie outside the side prefix and the side one inside it');
  }

  get(key: Uint8Array): Promise<Uint8Array | undefined> {
    return this.readerFor(key, this.main, this.side).get(key);
  }

  getMany(keys: readonly Uint8Array[]): Promise<Array<Uint8Array | undefined>> {
    return routedGetMany(keys, this.sidePrefix, this.main, this.side);
  }

  iterate(options: KvIterateOptions): AsyncIterable<[Uint8Array, Uint8Array]> {
    return this.routedIterate(options, this.main, this.side);
  }

  snapshot(): KvSnapshot {
    // Main first: a write reaches the side before the main store, so whatever the main snapshot
    // sees (a head naming a root), the side one, taken after it, holds too.
    const main = this.main.snapshot();
    let side: KvSnapshot;
    try {
      side = this.side.snapshot();
    } catch (e) {
      void main.close();
      throw e;
    }
    return {
      get: (key) => this.readerFor(key, main, side).get(key),
      getMany: (keys) => routedGetMany(keys, this.sidePrefix, main, side),
      iterate: (options) => this.routedIterate(options, main, side),
      close: async () => {
        await Promise.all([main.close(), side.close()]);
      },
    };
  }

  async write(ops: readonly KvOp[], sync: boolean): Promise<void> {
    const mainOps: KvOp[] = [];
    const sideOps: KvOp[] = [];
    for (const op of ops) (hasBytePrefix(op.key, this.sidePrefix) ? sideOps : mainOps).push(op);
    if (sync && sideOps.length === 0 && this.sideUnsynced) sideOps.push(mark(this.syncMarks.side));
    if (sync && mainOps.length === 0 && this.mainUnsynced) mainOps.push(mark(this.syncMarks.main));
    if (sideOps.length > 0) {
      await this.side.write(sideOps, sync);
      this.sideUnsynced = !sync;
    }
    if (mainOps.length > 0) {
      await this.main.write(mainOps, sync);
      this.mainUnsynced = !sync;
    }
  }

  async flush(): Promise<void> {
    await this.side.flush?.();
    await this.main.flush?.();
  }

  /** Settles each store's part of the range, one after the other (LevelDB runs one compaction at a time anyway). */
  async settle(range: { readonly gte: Uint8Array; readonly lt: Uint8Array }): Promise<void> {
    for (const part of this.partsOf(range.gte, range.lt, this.main, this.side)) {
      if (part.gte !== undefined && part.lt !== undefined && part.store.settle) await part.store.settle({ gte: part.gte, lt: part.lt });
    }
  }

  async close(): Promise<void> {
    await Promise.all([this.main.close(), this.side.close()]);
  }

  /** The non-empty parts of [gte, lt): the main store's below the side prefix, the side's inside it, the main store's above it. */
  private partsOf<R>(gte: Uint8Array | undefined, lt: Uint8Array | undefined, main: R, side: R): Array<{ store: R; gte: Uint8Array | undefined; lt: Uint8Array | undefined }> {
    const greater = (a: Uint8Array | undefined, b: Uint8Array): Uint8Array => (a === undefined || compareBytes(b, a) > 0 ? b : a);
    const smaller = (a: Uint8Array | undefined, b: Uint8Array): Uint8Array => (a === undefined || compareBytes(b, a) < 0 ? b : a);
    const parts = [
      { store: main, gte, lt: smaller(lt, this.sidePrefix) },
      { store: side, gte: greater(gte, this.sidePrefix), lt: smaller(lt, this.sideEnd) },
      { store: main, gte: greater(gte, this.sideEnd), lt },
    ];
    return parts.filter((p) => p.gte === undefined || p.lt === undefined || compareBytes(p.gte, p.lt) < 0);
  }

  private readerFor<R>(key: Uint8Array, main: R, side: R): R {
    return hasBytePrefix(key, this.sidePrefix) ? side : main;
  }

  /**
   * Every side key lies in [sidePrefix, sideEnd) and no main key does, so a range is the main
   * store's part below the prefix, the side's inside it and the main store's above it, one after
   * the other (the other way round when reversed): no merging. A range in one store (every read
   * of one record family) is that store's own iteration. Across stores each part is opened when
   * the one before it ends, so on the live stores the parts are not one instant's view; callers
   * that need one iterate a snapshot.
   */
  private routedIterate(options: KvIterateOptions, main: Reader, side: Reader): AsyncIterable<[Uint8Array, Uint8Array]> {
    const parts = this.partsOf(options.gte, options.lt, main, side);
    if (parts.length === 1) {
      const [only] = parts;
      return only!.store.iterate({ ...options, ...(only!.gte ? { gte: only!.gte } : {}), ...(only!.lt ? { lt: only!.lt } : {}) });
    }
    return this.iterateParts(parts, options);
  }

  private async *iterateParts(parts: Array<{ store: Reader; gte: Uint8Array | undefined; lt: Uint8Array | undefined }>, options: KvIterateOptions): AsyncIterable<[Uint8Array, Uint8Array]> {
    const reverse = options.reverse ?? false;
    if (reverse) parts.reverse();
    let left = options.limit !== undefined && options.limit >= 0 ? options.limit : Number.POSITIVE_INFINITY;
    for (const part of parts) {
      if (left === 0) return;
      const range: KvIterateOptions = { ...(part.gte ? { gte: part.gte } : {}), ...(part.lt ? { lt: part.lt } : {}), reverse, ...(Number.isFinite(left) ? { limit: left } : {}) };
      for await (const entry of part.store.iterate(range)) {
        yield entry;
        if (--left === 0) return;
      }
    }
  }
}

const EMPTY = new Uint8Array(0);
const mark = (key: Uint8Array): KvOp => ({ type: 'put', key, value: EMPTY });

async function routedGetMany(keys: readonly Uint8Array[], sidePrefix: Uint8Array, main: Reader, side: Reader): Promise<Array<Uint8Array | undefined>> {
  const mainAt: number[] = [];
  const sideAt: number[] = [];
  keys.forEach((k, i) => (hasBytePrefix(k, sidePrefix) ? sideAt : mainAt).push(i));
  const many = (r: Reader, at: number[]): Promise<Array<Uint8Array | undefined>> => {
    if (at.length === 0) return Promise.resolve([]);
    const ks = at.map((i) => keys[i]!);
    return r.getMany ? r.getMany(ks) : Promise.all(ks.map((k) => r.get(k)));
  };
  const [fromMain, fromSide] = await Promise.all([many(main, mainAt), many(side, sideAt)]);
  const out = new Array<Uint8Array | undefined>(keys.length);
  mainAt.forEach((i, j) => (out[i] = fromMain[j]));
  sideAt.forEach((i, j) => (out[i] = fromSide[j]));
  return out;
}
