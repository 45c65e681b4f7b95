import type { ScanOptions } from '../state/overlay.js';

/** One row of a committed state scan, as the cache hands it out: the tuple is frozen, the array is the caller's. */
type Row = readonly [string, Uint8Array];

/** Rows a scan may return and still be kept: the per-height scans this exists for return none or a few. */
const MAX_ROWS = 64;
/** Value bytes a kept scan may hold, so that a few scans of large records cannot pin megabytes. */
const MAX_BYTES = 64 * 1024;
/** Scans kept, over all prefixes; the least recently used prefix goes first. */
const MAX_SCANS = 512;

/**
 * Scans of committed state by prefix and bounds, kept until a write changes a key under their
 * prefix. Many plugins ask at every height whether anything falls due (proposals ending, expiries,
 * open batches, holds, the ranked validators): a LevelDB iterator each, two trips to its thread
 * pool even when the range is empty, ~0.5 ms of an idle validator's main thread a scan. Between
 * two writes the answer cannot change, so it is kept here.
 *
 * Only prefixes that end with `/` are kept (a declared store's scan prefixes always do): a key
 * under such a prefix has it as one of its own `/`-ended heads, so `forget` finds every scan a
 * changed key affects by walking the key's segments instead of testing every scan against it.
 * What a scan answers never depends on the cache: StateReads fills it only from a read that no
 * state write overlapped, and forgets what each write touched once the write has landed.
 */
export class StateScanCache {
  /** Scans by prefix, then by bounds (`optionsKey`); the outer map's order is the eviction order. */
  private readonly byPrefix = new Map<string, Map<string, readonly Row[]>>();
  private scans = 0;

  /** A kept answer, in an array of the caller's own, or undefined. */
  get(prefix: string, options: ScanOptions | undefined): Array<[string, Uint8Array]> | undefined {
    const forPrefix = this.byPrefix.get(prefix);
    const rows = forPrefix?.get(optionsKey(options));
    if (forPrefix === undefined || rows === undefined) return undefined;
    this.byPrefix.delete(prefix);
    this.byPrefix.set(prefix, forPrefix);
    // The tuples are frozen: a caller that changed one in place would throw rather than corrupt the next answer.
    return rows.slice() as Array<[string, Uint8Array]>;
  }

  /** Keeps an answer read from the store, if it is of a kind kept. */
  set(prefix: string, options: ScanOptions | undefined, rows: ReadonlyArray<readonly [string, Uint8Array]>): void {
    if (prefix.length === 0 || !prefix.endsWith('/') || rows.length > MAX_ROWS) return;
    let bytes = 0;
    for (const [, v] of rows) bytes += v.length;
    if (bytes > MAX_BYTES) return;
    let forPrefix = this.byPrefix.get(prefix);
    if (forPrefix === undefined) {
      forPrefix = new Map();
      this.byPrefix.set(prefix, forPrefix);
    }
    const key = optionsKey(options);
    if (!forPrefix.has(key)) this.scans++;
    forPrefix.set(key, rows.map((r) => Object.freeze([r[0], r[1]] as const)));
    while (this.scans > MAX_SCANS) {
      const [oldest, scans] = this.byPrefix.entries().next().value as [string, Map<string, readonly Row[]>];
      this.byPrefix.delete(oldest);
      this.scans -= scans.size;
    }
  }

  /** Forgets every scan whose prefix holds one of these keys (`'all'`: every scan). */
  forget(changed: Iterable<string> | 'all'): void {
    if (changed === 'all') {
      this.byPrefix.clear();
      this.scans = 0;
      return;
    }
    if (this.byPrefix.size === 0) return;
    for (const key of changed) {
      for (let slash = key.indexOf('/'); slash >= 0; slash = key.indexOf('/', slash + 1)) {
        const head = key.slice(0, slash + 1);
        const scans = this.byPrefix.get(head);
        if (scans === undefined) continue;
        this.byPrefix.delete(head);
        this.scans -= scans.size;
      }
    }
  }

  /** Scans kept now. */
  get size(): number {
    return this.scans;
  }
}

function optionsKey(options: ScanOptions | undefined): string {
  return `${options?.reverse === true ? 'r' : 'f'}${options?.limit ?? ''}`;
}
