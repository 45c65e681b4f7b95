import { hasBytePrefix } from '../codec/bytes.js';
import type { KvIterateOptions, KvOp, KvSnapshot, KvStore } from '../state/kv.js';
import { KeyPresence } from './key-presence.js';
import { prefixEnd } from './keys.js';

/** What the smallest filter is sized for (KeyPresence's least size, 2^25 bits). */
const SMALLEST_FILTER_KEYS = 1 << 20;

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
 * What it knows: every key under the prefixes that the store held when `open` scanned it, and every
 * key a write has put since (added before the write is handed down, so a read racing the write
 * asks the store). Deletes leave a key known, which only costs a read. So an "absent" answer is
 * exactly the store's, and a write path that bypassed this class would be the one way to break it:
 * the chain's data directory hands only this class to everything that writes those prefixes.
 */
export class PresenceFilteredStore implements KvStore {
  /** Reads answered here, without a read of the store below. */
  skipped = 0;

  /** The store's own, when it has them (a caller tells by their presence what the store can do). */
  readonly settle?: (range: { readonly gte: Uint8Array; readonly lt: Uint8Array }) => Promise<void>;
  readonly flush?: () => Promise<void>;

  private constructor(
    private readonly inner: KvStore,
    private readonly prefixes: readonly Uint8Array[],
    private readonly presence: KeyPresence,
  ) {
    if (inner.settle) this.settle = (range) => inner.settle!(range);
    if (inner.flush) this.flush = () => inner.flush!();
  }

  /**
   * Scans the keys under `prefixes` before any read is answered: once into a filter for up to 2^20
   * keys, and again into one of their size when they are more (keys are not kept between the
   * passes: at 10^6 accounts that would be ~150 MB held at start).
   */
  static async open(inner: KvStore, prefixes: readonly Uint8Array[], smallestFilterKeys = SMALLEST_FILTER_KEYS): Promise<PresenceFilteredStore> {
    const fill = async (presence: KeyPresence): Promise<number> => {
      let count = 0;
      for (const prefix of prefixes) {
        for await (const run of keyRunsOf(inner, { gte: prefix, lt: prefixEnd(prefix) })) {
          for (const key of run) presence.add(key);
          count += run.length;
        }
      }
      return count;
    };
    let presence = new KeyPresence(smallestFilterKeys);
    const count = await fill(presence);
    if (count > smallestFilterKeys) {
      presence = new KeyPresence(count);
      await fill(presence);
    }
    return new PresenceFilteredStore(inner, prefixes, presence);
  }

  private covered(key: Uint8Array): boolean {
    for (const prefix of this.prefixes) if (hasBytePrefix(key, prefix)) return true;
    return false;
  }

  private knownAbsent(key: Uint8Array): boolean {
    return this.covered(key) && !this.presence.mayContain(key);
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
    for (const op of ops) if (op.type === 'put' && this.covered(op.key)) this.presence.add(op.key);
    await this.inner.write(ops, sync);
  }

  close(): Promise<void> {
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
