import { LRUCache } from 'lru-cache';
import type { ScanOptions } from '../state/overlay.js';

/** Rows a scan may return and still be kept: the per-height scans this exists for return none or a few. */
const MAX_ROWS = 64;
/** Key and value bytes (UTF-16 units of a key count as one each) a kept scan may hold. */
const MAX_BYTES = 16 * 1024;
/** Scans kept, over all prefixes (at most 8 MiB of rows with MAX_BYTES); the least recently used prefix goes first. */
const MAX_SCANS = 512;
/**
 * Bounds kept for one prefix: a route paging one list asks `limit: offset + n` for each page, and
 * without a cap one client's pages would push the per-height scans out; the oldest bound goes.
 */
const MAX_BOUNDS_PER_PREFIX = 8;

/** What `forget` is told a write changed: its state keys, or everything (a snapshot's install, a discard). */
export type ChangedKeys = readonly string[] | typeof ALL_KEYS;
export const ALL_KEYS = Symbol('all state keys');

/**
 * Scans of committed state by prefix and bounds, kept until a write changes a key under their
 * prefix. Many plugins ask at every height whether anything falls due (proposals ending, expiries,
 * open batches, holds, the ranked validators): a LevelDB iterator each, two trips to its thread
 * pool even when the range is empty, ~0.5 ms of an idle validator's main thread a scan. Between
 * two writes the answer cannot change, so it is kept here.
 *
 * Only prefixes that end with `/` are kept (a declared store's scans of a whole store or of its
 * leading key values; not a scan naming every key part, which has no `/` at its end): a key under
 * such a prefix has it as one of its own `/`-ended heads, so `forget` finds every scan a changed
 * key affects by walking the key's segments instead of testing every scan against it. What a scan
 * answers never depends on the cache: StateReads fills it only from a read that no state write
 * overlapped, and forgets what each write touched once the write has ended.
 */
export class StateScanCache {
  /**
   * Scans by prefix, then by bounds (`boundsKey`), least recently used prefix evicted first, each
   * prefix weighing the scans it holds. A prefix's map is replaced, never changed in place, since
   * the LRU weighs a value when it is set.
   */
  private readonly byPrefix = new LRUCache<string, ReadonlyMap<string, ReadonlyArray<readonly [string, Uint8Array]>>>({ maxSize: MAX_SCANS, sizeCalculation: (scans) => scans.size });

  /**
   * A kept answer as fresh tuples in a fresh array, or undefined: what a miss hands back is the
   * caller's own too, so a caller that replaced a row's key or value would change only its copy
   * (the value bytes are shared, as the value cache shares them: state bytes are never changed in
   * place).
   */
  get(prefix: string, options: ScanOptions | undefined): Array<[string, Uint8Array]> | undefined {
    return this.byPrefix.get(prefix)?.get(boundsKey(options))?.map(([k, v]) => [k, v]);
  }

  /** Keeps an answer read from the store, if it is of a kind kept. */
  set(prefix: string, options: ScanOptions | undefined, rows: ReadonlyArray<readonly [string, Uint8Array]>): void {
    if (prefix.length === 0 || !prefix.endsWith('/') || rows.length > MAX_ROWS) return;
    let bytes = 0;
    for (const [k, v] of rows) bytes += k.length + v.length;
    if (bytes > MAX_BYTES) return;
    const scans = new Map(this.byPrefix.get(prefix));
    const key = boundsKey(options);
    // Re-inserted, so the oldest bound is the map's first.
    scans.delete(key);
    if (scans.size >= MAX_BOUNDS_PER_PREFIX) scans.delete(scans.keys().next().value as string);
    scans.set(key, rows.map(([k, v]) => [k, v] as const));
    this.byPrefix.set(prefix, scans);
  }

  /** Forgets every scan whose prefix holds one of these keys (`ALL_KEYS`: every scan). */
  forget(changed: ChangedKeys): void {
    if (changed === ALL_KEYS) {
      this.byPrefix.clear();
      return;
    }
    if (this.byPrefix.size === 0) return;
    for (const key of changed) {
      for (let slash = key.indexOf('/'); slash >= 0; slash = key.indexOf('/', slash + 1)) this.byPrefix.delete(key.slice(0, slash + 1));
    }
  }

  /** Scans kept now. */
  get size(): number {
    return this.byPrefix.calculatedSize;
  }
}

/**
 * Every bound a scan takes is in its key: a field added to ScanOptions (a start key) fails to
 * compile here until `boundsKey` keys it, rather than have two different scans share an answer.
 */
const BOUNDS_KEYED: Record<keyof ScanOptions, true> = { reverse: true, limit: true };
void BOUNDS_KEYED;

/** The bounds as the store reads them (chain-store.ts, `stateEntriesOf`): reversed when truthy, a limit when given. */
function boundsKey(options: ScanOptions | undefined): string {
  return `${options?.reverse ? 'r' : 'f'}${options?.limit === undefined ? '' : String(options.limit)}`;
}
