import type { LRUCache } from 'lru-cache';
import type { KvReader } from '../state/kv.js';
import type { ScanOptions } from '../state/overlay.js';
import { ABSENT } from './chain-store-caches.js';
import { stateKey } from './keys.js';
import { StateScanCache, type ChangedKeys } from './state-scan-cache.js';

type Cached = Uint8Array | typeof ABSENT;

/** How a committed state key was read from LevelDB: alone on a cache miss, or in a prefetch's batch. */
export type StateReadVia = 'single' | 'prefetch';

/**
 * LevelDB reads of committed state so far, by how and by family: a key's first segment (`acct`,
 * `acctkey`, a plugin's name), a set fixed by the code, so an operator's metric stays small. A
 * family that keeps showing `single` reads under load is one a read-ahead could batch.
 */
export class StateReadCounts {
  private readonly counts = new Map<string, number>();

  add(via: StateReadVia, key: string, n = 1): void {
    const slash = key.indexOf('/');
    const id = `${via} ${slash < 0 ? key : key.slice(0, slash)}`;
    this.counts.set(id, (this.counts.get(id) ?? 0) + n);
  }

  /** Each (via, family) with its count, sorted so a scrape lists them in the same order. */
  entries(): Array<{ via: StateReadVia; family: string; reads: number }> {
    return [...this.counts.entries()]
      .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
      .map(([id, reads]) => {
        const space = id.indexOf(' ');
        return { via: id.slice(0, space) as StateReadVia, family: id.slice(space + 1), reads };
      });
  }
}

/**
 * Committed state values read through the store's write-through cache, and filled ahead of need:
 * `prefetch` reads the keys a block's (or a relay batch's) transactions will touch in one
 * `getMany` (one trip to LevelDB's thread pool for the lot) instead of one awaited `get` each.
 * At 10^6 accounts nearly every account a transfer touches is cold, and each cold `get` was a
 * libuv round trip and a promise on the main thread.
 *
 * A prefetch is only a cache fill: a read answers what LevelDB holds whether or not a prefetch
 * ran, so block results and roots cannot depend on it. Two rules keep that true while a block's
 * batch is being written:
 * - a read that was in flight when a state write began fills nothing (`epoch`): it may hold the
 *   value from before the write, and filling it after the write's own cache update would leave
 *   a stale value in the cache for the next block to execute on;
 * - a write forgets the prefetches in flight, so a read issued after it never joins one that
 *   began before it.
 */
export class StateReads {
  /** Advanced when a state write starts and when it is done: a read spanning either fills nothing. */
  private epoch = 0;
  /** Keys a prefetch is reading now: a read of one waits for it instead of asking LevelDB again. */
  private readonly inflight = new Map<string, Promise<Uint8Array | undefined>>();
  /** What went to LevelDB, for `chain_state_reads_total`. */
  readonly counts = new StateReadCounts();
  /** Scans of committed state until a write changes their range (state-scan-cache.ts). */
  private readonly keptScans = new StateScanCache();
  /** Scans answered by a kept one and by the store (an iterator, none for a limit of 0), for `chain_state_scans_total`. */
  readonly scanCounts = { cache: 0, store: 0 };

  constructor(
    private readonly kv: KvReader,
    private readonly cache: LRUCache<string, Cached>,
  ) {}

  get(key: string): Promise<Uint8Array | undefined> {
    const cached = this.cache.get(key);
    if (cached !== undefined) return Promise.resolve(cached === ABSENT ? undefined : cached);
    const pending = this.inflight.get(key);
    if (pending !== undefined) return pending;
    return this.read(key);
  }

  private async read(key: string): Promise<Uint8Array | undefined> {
    const epoch = this.epoch;
    this.counts.add('single', key);
    const value = await this.kv.get(stateKey(key));
    if (epoch === this.epoch) this.cache.set(key, value ?? ABSENT);
    return value;
  }

  /**
   * A scan of committed state: a kept answer, or `read`'s, kept when no state write overlapped it
   * (the rule `get` follows: a read spanning a write may hold what the write replaced).
   */
  scan(prefix: string, options: ScanOptions | undefined, read: () => Promise<Array<[string, Uint8Array]>>): Promise<Array<[string, Uint8Array]>> {
    const kept = this.keptScans.get(prefix, options);
    if (kept === undefined) return this.readScan(prefix, options, read);
    this.scanCounts.cache++;
    return Promise.resolve(kept);
  }

  private async readScan(prefix: string, options: ScanOptions | undefined, read: () => Promise<Array<[string, Uint8Array]>>): Promise<Array<[string, Uint8Array]>> {
    const epoch = this.epoch;
    this.scanCounts.store++;
    const rows = await read();
    if (epoch === this.epoch) this.keptScans.set(prefix, options, rows);
    return rows;
  }

  /** Scans kept now. */
  get scansCached(): number {
    return this.keptScans.size;
  }

  /**
   * Reads the keys neither cached nor already being read, in one call, into the cache. Resolves
   * once they are there (or once the read failed: a key it did not fill is read on demand, so a
   * failed prefetch costs a read, never a result).
   */
  async prefetch(keys: Iterable<string>): Promise<void> {
    const missing: string[] = [];
    const asked = new Set<string>();
    for (const key of keys) {
      if (asked.has(key) || this.inflight.has(key) || this.cache.has(key)) continue;
      asked.add(key);
      missing.push(key);
    }
    if (missing.length === 0) return;
    const epoch = this.epoch;
    const storeKeys = missing.map(stateKey);
    const batch = this.kv.getMany ? this.kv.getMany(storeKeys) : Promise.all(storeKeys.map((k) => this.kv.get(k)));
    const mine = missing.map((key, i) => {
      // A failed batch: each waiting reader reads its key itself.
      const one = batch.then(
        (values) => values[i],
        () => this.read(key),
      );
      this.inflight.set(key, one);
      return one;
    });
    try {
      const values = await batch;
      // Counted once read: a failed batch's keys are counted by the readers that read them alone.
      for (const key of missing) this.counts.add('prefetch', key);
      if (epoch === this.epoch) missing.forEach((key, i) => this.cache.set(key, values[i] ?? ABSENT));
    } catch {
      // Nothing filled; the readers above fall back to their own reads.
    } finally {
      missing.forEach((key, i) => {
        if (this.inflight.get(key) === mine[i]) this.inflight.delete(key);
      });
    }
  }

  /**
   * Brackets a write of state: reads in flight across it fill nothing and prefetches begun before
   * it are no longer joined. `apply` updates the value cache once the write reached the store;
   * the kept scans under any of the `changed` keys (`ALL_KEYS`: every kept scan) are forgotten once
   * it has ended, however it ended, since a scan that ran while it was under way may have been
   * kept before the write landed.
   */
  async writing<T>(write: () => Promise<T>, changed: ChangedKeys, apply: () => void): Promise<T> {
    this.epoch++;
    this.inflight.clear();
    try {
      const out = await write();
      apply();
      return out;
    } finally {
      this.keptScans.forget(changed);
      this.epoch++;
      this.inflight.clear();
    }
  }
}
