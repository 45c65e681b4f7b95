import { hasBytePrefix } from '../codec/bytes.js';
import type { KvIterateOptions, KvOp, KvSnapshot, KvStore } from '../state/kv.js';
import { KeyPresence } from './key-presence.js';
import { prefixEnd } from './keys.js';

/** What the smallest filter is sized for (KeyPresence's least size, 2^25 bits). */
const SMALLEST_FILTER_KEYS = 1 << 20;

/** How the start-up scan of a store's keys ended. */
export type KeyScanOutcome =
  | { readonly state: 'done'; readonly keys: number; readonly passes: number; readonly seconds: number }
  /** The store closed before the scan ended. */
  | { readonly state: 'stopped' }
  /** The filter never answers: every read goes to the store, as without it. */
  | { readonly state: 'failed'; readonly error: Error };

/**
 * A store that answers "absent" for a key under one of `prefixes` that it knows was never written,
 * without asking the store below, and asks it for everything else.
 *
 * Why: at 10^6 accounts most reads of state and address totals a transfer makes are of keys that
 * do not exist (a key-derived sender's `acctkey/`, plugins' records of a first-time sender, the
 * totals of an address never seen), and in LevelDB such a read is not only a trip through the
 * thread pool: a lookup that consults more than one table file charges the first one a "seek",
 * and a file out of seeks is compacted into the level below (LevelDB's seek compaction, which it
 * has no option to turn off). In a store whose levels all span the key space, every absent read
 * consults one file a level, so reads alone kept the background thread compacting: 6 absent reads
 * a write took a 10^6-key store from 0.2–0.5 to 7.5–7.7 KB compacted a write (docs/performance.md,
 * "Absent keys, and what reading them costs LevelDB").
 *
 * What it knows: every key under the prefixes that the store held when its scan read them, and
 * every key a write has put since. The scan runs beside everything else from construction on (at
 * 10^6 accounts a few seconds a validator's restart would otherwise wait for), and until it ends
 * the filter answers nothing, so every read goes to the store. A write adds its keys to the
 * filter being filled, or answering, before it is handed down, so a read racing it asks the store
 * and a key the scan's iterator (opened before the write landed) misses is known anyway; a second
 * pass's filter, made while writes are on their way, starts with their keys for the same reason.
 * So an "absent" answer is exactly the store's, and a write path that bypassed this class would be
 * the one way to break it: the chain's data directory hands only this class to everything that
 * writes those prefixes. Deletes leave a key known, which only costs a read.
 */
export class PresenceFilteredStore implements KvStore {
  /** Reads answered here, without a read of the store below. */
  skipped = 0;
  /** Settles (never rejects) when the start-up scan has ended, however it ended. */
  readonly scanned: Promise<KeyScanOutcome>;

  /** The store's own, when it has them (a caller tells by their presence what the store can do). */
  readonly settle?: (range: { readonly gte: Uint8Array; readonly lt: Uint8Array }) => Promise<void>;
  readonly flush?: () => Promise<void>;

  /** The filter reads consult: none until the scan has filled one. */
  private answering: KeyPresence | undefined;
  /** The filter the scan is filling, which writes add to meanwhile. */
  private filling: KeyPresence | undefined;
  /** The keys of the writes handed down while the scan runs and not landed yet. */
  private readonly inFlight = new Set<readonly Uint8Array[]>();
  private closing = false;

  /**
   * Starts the scan of the keys under `prefixes`: once into a filter for up to 2^20 keys, and again
   * into one of their size when they are more (keys are not kept between the passes: at 10^6
   * accounts that would be ~150 MB held at start).
   */
  constructor(
    private readonly inner: KvStore,
    private readonly prefixes: readonly Uint8Array[],
    smallestFilterKeys = SMALLEST_FILTER_KEYS,
  ) {
    if (inner.settle) this.settle = (range) => inner.settle!(range);
    if (inner.flush) this.flush = () => inner.flush!();
    this.scanned = this.scan(smallestFilterKeys).catch((e: unknown) => {
      if (this.closing) return { state: 'stopped' } as const;
      return { state: 'failed', error: e instanceof Error ? e : new Error(String(e)) } as const;
    });
  }

  /** True until the scan has ended; reads meanwhile all go to the store (`chain_store_key_scanning`). */
  get scanning(): boolean {
    return this.answering === undefined && this.filling !== undefined;
  }

  private async scan(smallestFilterKeys: number): Promise<KeyScanOutcome> {
    const started = performance.now();
    try {
      // Set before the first await: no write can start before there is a filter for it to add to.
      this.filling = new KeyPresence(smallestFilterKeys);
      let keys = await this.fill(this.filling);
      if (keys === undefined) return { state: 'stopped' };
      let passes = 1;
      if (keys > smallestFilterKeys) {
        const second = new KeyPresence(keys);
        // A write on its way may land after this pass's iterator is opened: its keys go in first.
        for (const written of this.inFlight) for (const key of written) second.add(key);
        this.filling = second;
        keys = await this.fill(second);
        if (keys === undefined) return { state: 'stopped' };
        passes = 2;
      }
      this.answering = this.filling;
      return { state: 'done', keys, passes, seconds: (performance.now() - started) / 1000 };
    } finally {
      this.filling = undefined;
    }
  }

  /** The keys found, or undefined when the store began closing. */
  private async fill(presence: KeyPresence): Promise<number | undefined> {
    let count = 0;
    for (const prefix of this.prefixes) {
      for await (const run of keyRunsOf(this.inner, { gte: prefix, lt: prefixEnd(prefix) })) {
        if (this.closing) return undefined;
        for (const key of run) presence.add(key);
        count += run.length;
      }
    }
    return count;
  }

  private covered(key: Uint8Array): boolean {
    for (const prefix of this.prefixes) if (hasBytePrefix(key, prefix)) return true;
    return false;
  }

  private knownAbsent(key: Uint8Array): boolean {
    return this.answering !== undefined && this.covered(key) && !this.answering.mayContain(key);
  }

  get(key: Uint8Array): Promise<Uint8Array | undefined> {
    if (this.knownAbsent(key)) {
      this.skipped++;
      return Promise.resolve(undefined);
    }
    return this.inner.get(key);
  }

  async getMany(keys: readonly Uint8Array[]): Promise<Array<Uint8Array | undefined>> {
    const asked: Uint8Array[] = [];
    const at: number[] = [];
    for (let i = 0; i < keys.length; i++) {
      if (this.knownAbsent(keys[i]!)) this.skipped++;
      else {
        asked.push(keys[i]!);
        at.push(i);
      }
    }
    const out = new Array<Uint8Array | undefined>(keys.length).fill(undefined);
    if (asked.length === 0) return out;
    const values = this.inner.getMany ? await this.inner.getMany(asked) : await Promise.all(asked.map((k) => this.inner.get(k)));
    for (let j = 0; j < at.length; j++) out[at[j]!] = values[j];
    return out;
  }

  iterate(options: KvIterateOptions): AsyncIterable<[Uint8Array, Uint8Array]> {
    return this.inner.iterate(options);
  }

  /** Reads through a snapshot ask the store: it may predate keys this filter knows, never lack one it held. */
  snapshot(): KvSnapshot {
    return this.inner.snapshot();
  }

  async write(ops: readonly KvOp[], sync: boolean): Promise<void> {
    const to = this.filling ?? this.answering;
    const puts: Uint8Array[] = [];
    for (const op of ops) if (op.type === 'put' && this.covered(op.key)) puts.push(op.key);
    if (to) for (const key of puts) to.add(key);
    if (this.filling === undefined || puts.length === 0) return this.inner.write(ops, sync);
    this.inFlight.add(puts);
    try {
      await this.inner.write(ops, sync);
    } finally {
      this.inFlight.delete(puts);
    }
  }

  /** Stops the scan at its next run of keys and waits for it, then closes the store. */
  async close(): Promise<void> {
    this.closing = true;
    await this.scanned;
    return this.inner.close();
  }
}

/** A store's keys a run at a time: its own `keyRuns` where it has one, else its entries' keys one by one. */
async function* keyRunsOf(store: KvStore, range: KvIterateOptions): AsyncIterable<readonly Uint8Array[]> {
  if (store.keyRuns) {
    yield* store.keyRuns(range);
    return;
  }
  for await (const [key] of store.iterate(range)) yield [key];
}
