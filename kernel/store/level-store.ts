import { ClassicLevel } from 'classic-level';
import { tableCacheFiles } from './table-cache-files.js';
import { compactionTotals } from './compaction-totals.js';
import type { KvIterateOptions, KvOp, KvSnapshot, KvStore } from '../state/kv.js';

/** LevelDB's tuning knobs that a caller may set (benches compare them); defaults are LevelDB's, but for maxOpenFiles (table-cache-files.ts). */
export interface LevelTuning {
  readonly compression?: boolean;
  readonly cacheSize?: number;
  readonly writeBufferSize?: number;
  readonly blockSize?: number;
  readonly maxFileSize?: number;
  /** LevelDB's table cache, in files (classic-level's default 1,000): past it, a read may reopen a table file. */
  readonly maxOpenFiles?: number;
}

/** libuv's pool threads (UV_THREADPOOL_SIZE, 4 unless set), which serve LevelDB's reads. */
const READ_JOBS = Math.max(1, Math.min(128, Math.floor(Number(process.env.UV_THREADPOOL_SIZE)) || 4));
/** Below this many keys a job's own cost (a trip through the pool) outweighs splitting. */
const MIN_KEYS_PER_JOB = 32;

/** Above every key the node writes (ASCII prefixes; the tree's 0xff comes after `n/`): no table file's range reaches it. */
const NO_KEY = new Uint8Array([0xff, 0xff, 0xff, 0xff]);

/** Keys a `keyRuns` call takes from LevelDB at once. */
const KEY_RUN = 1_000;

/** LevelDB's levels (config::kNumLevels). */
const LEVELS = 7;

/** What a store's LevelDB has done since it opened: point reads asked of it, and its background thread's compaction. */
export interface LevelWork {
  /** Table files at each level, 0 first. */
  readonly files: readonly number[];
  /** Keys point-read (`get`, each key of a `getMany`, snapshot gets), found or not. */
  readonly pointReads: number;
  /** Bytes the background thread read and wrote flushing memtables and compacting (whole MB: `leveldb.stats`). */
  readonly compactionReadBytes: number;
  readonly compactionWrittenBytes: number;
}

const MB = 1024 * 1024;

/** A KvStore range as classic-level's iterator options (no bound where none is given, no limit by default). */
function levelRange(options: KvIterateOptions): { gte?: Uint8Array; lt?: Uint8Array; reverse: boolean; limit: number } {
  return {
    ...(options.gte ? { gte: options.gte } : {}),
    ...(options.lt ? { lt: options.lt } : {}),
    reverse: options.reverse ?? false,
    limit: options.limit ?? -1,
  };
}

/** classic-level (LevelDB) behind the KvStore surface, with binary keys and values. */
export class LevelStore implements KvStore {
  /** Each read is a trip through libuv's pool and a value copied into a Buffer: the count says how many a block costs. */
  private pointReads = 0;

  private constructor(private readonly db: ClassicLevel<Uint8Array, Uint8Array>) {}

  /** `mustExist`: refuse to open where no store is, rather than create an empty one (LevelDB's `create_if_missing`). */
  static async open(location: string, tuning: LevelTuning = {}, mustExist = false): Promise<LevelStore> {
    // Tuning first: the encodings are what this class's types rely on, so nothing may override them.
    const db = new ClassicLevel<Uint8Array, Uint8Array>(location, { maxOpenFiles: tableCacheFiles(), ...tuning, keyEncoding: 'view', valueEncoding: 'view' });
    await db.open({ createIfMissing: !mustExist });
    return new LevelStore(db);
  }

  async get(key: Uint8Array): Promise<Uint8Array | undefined> {
    this.pointReads++;
    const v = await this.db.get(key);
    return v ?? undefined;
  }

  /**
   * Table files at each of LevelDB's levels, 0 first (`leveldb.num-files-at-level<n>`). Level 0
   * gathers each memtable flush; at 8 files LevelDB slows every write by 1 ms and at 12 stops
   * writes until compaction catches up, so a count near those says block writes are waiting.
   */
  filesPerLevel(): number[] {
    // A scrape during shutdown must not fail the whole /metrics answer.
    if (this.db.status !== 'open') return [];
    return Array.from({ length: LEVELS }, (_, n) => Number(this.db.getProperty(`leveldb.num-files-at-level${n}`)));
  }

  /** Files per level, point reads and compaction so far (`chain_store_*` metrics); once closed, no files and no compaction, the reads kept. */
  work(): LevelWork {
    if (this.db.status !== 'open') return { files: [], pointReads: this.pointReads, compactionReadBytes: 0, compactionWrittenBytes: 0 };
    const c = compactionTotals(this.db.getProperty('leveldb.stats'));
    return { files: this.filesPerLevel(), pointReads: this.pointReads, compactionReadBytes: c.readMb * MB, compactionWrittenBytes: c.writtenMb * MB };
  }

  /**
   * classic-level runs one `getMany` as one job on libuv's pool, a key after another on one
   * thread; at 10^6 keys each read is cold (a table block from the page cache, decompressed), so a
   * block's batch of hundreds held its caller (the state tree's descent, a block's read-ahead) for
   * the sum of them while the pool's other threads idled. Large batches are split into one job per
   * pool thread, which LevelDB serves concurrently (a read holds its mutex only briefly, before and
   * after the lookup). Each job reads its own implicit snapshot; the callers need no single view
   * across a batch: tree nodes are never rewritten, and a state prefetch spanning a write fills
   * nothing (state-reads.ts).
   */
  async getMany(keys: readonly Uint8Array[]): Promise<Array<Uint8Array | undefined>> {
    if (keys.length === 0) return [];
    this.pointReads += keys.length;
    const jobs = Math.min(READ_JOBS, Math.floor(keys.length / MIN_KEYS_PER_JOB));
    if (jobs <= 1) return (await this.db.getMany([...keys])).map((v) => v ?? undefined);
    // Cut at floor(j·n/jobs): every job gets at least floor(n/jobs) ≥ MIN_KEYS_PER_JOB keys, and the cuts cover all n.
    const cut = (j: number): number => Math.floor((j * keys.length) / jobs);
    const parts = await Promise.all(Array.from({ length: jobs }, (_, j) => this.db.getMany(keys.slice(cut(j), cut(j + 1)))));
    const out: Array<Uint8Array | undefined> = [];
    for (const part of parts) for (const v of part) out.push(v ?? undefined);
    if (out.length !== keys.length) throw new Error(`getMany: ${out.length} values for ${keys.length} keys`);
    return out;
  }

  iterate(options: KvIterateOptions): AsyncIterable<[Uint8Array, Uint8Array]> {
    return this.iterateAt(options, undefined);
  }

  /** LevelDB's key iterator, `KEY_RUN` keys a call: the values are neither copied nor handed over. */
  async *keyRuns(options: KvIterateOptions): AsyncIterable<readonly Uint8Array[]> {
    const it = this.db.keys(levelRange(options));
    try {
      for (;;) {
        const run = await it.nextv(KEY_RUN);
        if (run.length === 0) return;
        yield run;
      }
    } finally {
      await it.close();
    }
  }

  private async *iterateAt(options: KvIterateOptions, snapshot: ReturnType<ClassicLevel<Uint8Array, Uint8Array>['snapshot']> | undefined): AsyncIterable<[Uint8Array, Uint8Array]> {
    const it = this.db.iterator({ ...levelRange(options), ...(snapshot ? { snapshot } : {}) });
    try {
      for await (const [k, v] of it) yield [k, v];
    } finally {
      await it.close();
    }
  }

  /** LevelDB's explicit snapshot: reads through it never see a write made after it was taken. */
  snapshot(): KvSnapshot {
    const snapshot = this.db.snapshot();
    return {
      get: async (key) => {
        this.pointReads++;
        return (await this.db.get(key, { snapshot })) ?? undefined;
      },
      iterate: (options) => this.iterateAt(options, snapshot),
      close: () => snapshot.close(),
    };
  }

  async write(ops: readonly KvOp[], sync: boolean): Promise<void> {
    if (ops.length === 0) return;
    // One LevelDB batch is atomic: after a crash either every op is there or none is.
    // A chained batch, not db.batch(array): abstract-level's array path copies and re-validates
    // every op in JavaScript before handing it over, ~15 µs an op, which held the event loop for
    // 10 ms on a block of 60 transfers (~660 ops); put() per op costs a quarter of that.
    const batch = this.db.batch();
    try {
      for (const op of ops) {
        if (op.type === 'put') batch.put(op.key, op.value);
        else batch.del(op.key);
      }
    } catch (e) {
      await batch.close();
      throw e;
    }
    await batch.write({ sync });
  }

  async settle(range: { readonly gte: Uint8Array; readonly lt: Uint8Array }): Promise<void> {
    await this.db.compactRange(range.gte, range.lt);
  }

  /** LevelDB has no flush call; `CompactRange` writes the memtable out first, and over a range no key lies in it does nothing else. */
  async flush(): Promise<void> {
    await this.db.compactRange(NO_KEY, NO_KEY);
  }

  /**
   * One of LevelDB's own properties (`leveldb.stats`, `leveldb.num-files-at-level<N>`,
   * `leveldb.sstables`, `leveldb.approximate-memory-usage`): what benches and diagnostics read
   * instead of parsing the store's LOG.
   */
  property(name: string): string {
    return this.db.getProperty(name);
  }

  async close(): Promise<void> {
    await this.db.close();
  }
}

/** In-memory KvStore for unit tests; same ordering semantics as LevelDB (byte-wise keys). */
export class MemoryStore implements KvStore {
  private readonly map = new Map<string, Uint8Array>();

  async get(key: Uint8Array): Promise<Uint8Array | undefined> {
    return this.map.get(Buffer.from(key).toString('hex'));
  }

  async *iterate(options: KvIterateOptions): AsyncIterable<[Uint8Array, Uint8Array]> {
    const gte = options.gte ? Buffer.from(options.gte).toString('hex') : undefined;
    const lt = options.lt ? Buffer.from(options.lt).toString('hex') : undefined;
    // Hex of bytes sorts like the bytes themselves.
    let keys = [...this.map.keys()].filter((k) => (gte === undefined || k >= gte) && (lt === undefined || k < lt)).sort();
    if (options.reverse) keys = keys.reverse();
    if (options.limit !== undefined && options.limit >= 0) keys = keys.slice(0, options.limit);
    for (const k of keys) {
      const v = this.map.get(k);
      if (v) yield [Uint8Array.from(Buffer.from(k, 'hex')), v];
    }
  }

  /** A copy: later writes to this store do not reach it. */
  snapshot(): KvSnapshot {
    const copy = new MemoryStore();
    for (const [k, v] of this.map) copy.map.set(k, v);
    return { get: (key) => copy.get(key), iterate: (options) => copy.iterate(options), close: async () => undefined };
  }

  async write(ops: readonly KvOp[]): Promise<void> {
    for (const op of ops) {
      const k = Buffer.from(op.key).toString('hex');
      if (op.type === 'put') this.map.set(k, op.value);
      else this.map.delete(k);
    }
  }

  async close(): Promise<void> {}
}
