/**
 * What LevelDB's compaction costs a block's node writes under two key layouts (issue 40, "The
 * state tree at 10^6 and 10^7 keys"): the state tree writes each node under its 32-byte content
 * hash, so a block's ~1,550 records land at random places in the whole store and each byte is
 * merged again ~10× per level it moves down; a version-keyed (Jellyfish-style) layout writes a
 * block's records after everything stored, where LevelDB can move whole files down a level
 * without rewriting them. This measures that difference on LevelDB alone, before anyone builds
 * the layout (the tree itself is not involved: its records are modelled as 32-byte keys with
 * 65-byte incompressible values, the size of a node record).
 *
 *   npx tsc -p tsconfig.json && flock /tmp/heavy.lock node dist/bench/store-compaction.bench.js \
 *     [--layout random|sequential|both] [--fill 2200000] [--blocks 300] [--per-block 1550] \
 *     [--prune [--prune-age uniform|log]] [--overwrite 0] [--absent-reads 0] [--stored-reads 0] [--level name=value,…] [--reads 1000] [--seed 1] [--dir /tmp/…]
 *
 * Per layout, in a fresh store (`LevelStore`, LevelDB's default options; a node also sizes the table cache, which a store of this size does not reach):
 * - fill: `--fill` records in unsynced batches of 10,000, then a wait until LevelDB's background
 *   thread has been idle for 1.5 s, so the fill's compaction debt is not charged to the blocks;
 * - blocks: `--blocks` batches of `--per-block` records, each written with sync as a validator
 *   commits; with `--prune` each block also deletes half as many earlier records still stored
 *   (a stand-in for stale-node pruning), picked uniformly (`--prune-age uniform`, the default) or
 *   by a log-uniform age in blocks (`log`): a block that changes k of n keys replaces the node at
 *   depth d of each path about every 2^d / k blocks, so the stale nodes' ages are spread evenly
 *   over log2(age), most of them recent;
 * - then a wait until the background thread is idle again, so the compaction the blocks caused
 *   is counted whichever block it follows, and `--reads` point reads of stored keys, one at a time.
 * `--absent-reads R`: after each block's write, R point reads per record written of keys never
 * written (one `getMany`), as a node reads the absent records of a transfer's parties: in LevelDB a
 * lookup that consults more than one table file charges the first a seek, and a file out of seeks
 * is compacted (seek compaction), so reads alone make compaction work.
 * `--stored-reads R`: the same with R reads per record of stored keys (picked uniformly), as a node
 * reads the account records of a transfer's parties that its caches miss: a key found below the
 * top level consults a file a level above it, and charges the first a seek as an absent key does.
 * `--overwrite P`: P % of a block's records rewrite a stored key (picked uniformly) instead of
 * adding one, as the chain store's account records and totals are rewritten beside its appended
 * indexes. `--level`: LevelDB options for the store (`bench/level-tuning.ts`), e.g.
 * `writeBufferSize=16777216` to see what a larger memtable does to the compaction of random keys.
 * Layouts: `random` = 32 random bytes (the tree's content-hash keys today); `sequential` = 8-byte
 * big-endian block number ‖ 4-byte index in the block ‖ 20 random bytes (a version-keyed layout;
 * the fill is numbered as blocks of `--per-block` before the measured ones).
 *
 * Reported per layout: CPU of LevelDB's background thread (flushes and compactions; found as the
 * thread a first memtable flush starts, see thread-cpu.ts) per record written during the blocks,
 * until it is idle again ("to idle") and within the blocks' own window; the main thread's CPU per
 * record (the writes' synchronous part); wall per block (the sync write, and the whole phase per
 * block); LevelDB's own compaction counters for the blocks (`leveldb.stats`: MB read and written
 * by flushes and compactions, and written per MB of records); the store's size on disk and files
 * per level; and the cost of a point read. The store sits in the page cache on this machine, so
 * reads and compactions are CPU, not disk. Linux only (procfs, schedstat).
 */
import { readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import type { KvOp } from '../kernel/state/kv.js';
import { Prng } from '../kernel/state/tree/prng.js';
import { LevelStore, type LevelTuning } from '../kernel/store/level-store.js';
import { compactionTotals } from '../kernel/store/compaction-totals.js';
import { parseLevelTuning } from './level-tuning.js';
import { parsePositiveInt } from './load-plan.js';
import { percentile } from './percentile.js';
import { mainThreadSched, newestSelfThreadSince, selfThreadRunNs } from './thread-cpu.js';

const KEY_BYTES = 32;
const VALUE_BYTES = 65;
const FILL_BATCH = 10_000;
/** LevelDB's background thread counts as idle once it ran less than this over IDLE_MS. */
const IDLE_MS = 1_500;
const IDLE_SLACK_NS = 2e6;
const IDLE_TIMEOUT_MS = 300_000;

type Layout = 'random' | 'sequential';

/** Every record's key in write order (32 bytes each, in one array) and which are deleted. */
class KeyLog {
  private readonly keys: Uint8Array;
  private readonly deleted: Uint8Array;
  count = 0;
  live = 0;

  constructor(capacity: number) {
    this.keys = new Uint8Array(capacity * KEY_BYTES);
    this.deleted = new Uint8Array(capacity);
  }

  /** Appends the next key under `layout` and returns it (a view: LevelDB's batch copies it). */
  append(layout: Layout, block: number, index: number, rng: Prng): Uint8Array {
    const key = this.keys.subarray(this.count * KEY_BYTES, (this.count + 1) * KEY_BYTES);
    if (layout === 'random') key.set(rng.bytes(KEY_BYTES));
    else {
      const view = new DataView(key.buffer, key.byteOffset, KEY_BYTES);
      view.setBigUint64(0, BigInt(block));
      view.setUint32(8, index);
      key.set(rng.bytes(KEY_BYTES - 12), 12);
    }
    this.count++;
    this.live++;
    return key;
  }

  /** A stored key among records `pick()` draws (retried while deleted); optionally marked deleted. */
  pickLive(pick: () => number, remove: boolean): Uint8Array {
    if (this.live === 0) throw new Error('no stored record to pick');
    for (;;) {
      const i = pick();
      if (this.deleted[i] === 1) continue;
      if (remove) {
        this.deleted[i] = 1;
        this.live--;
      }
      return this.keys.subarray(i * KEY_BYTES, (i + 1) * KEY_BYTES);
    }
  }
}

const filesPerLevel = (store: LevelStore): string => Array.from({ length: 7 }, (_, level) => store.property(`leveldb.num-files-at-level${level}`)).join(' ');

function bytesOnDisk(dir: string): number {
  return readdirSync(dir).reduce((sum, name) => sum + statSync(join(dir, name)).size, 0);
}

/** Nanoseconds a thread of this process has run (schedstat), or NaN when unknown. */
function threadNs(tid: number | null): number {
  if (tid === null) return NaN;
  const all = new Map<number, number>();
  selfThreadRunNs(all, 1);
  return all.get(tid) ?? NaN;
}

/** Waits until `tid` has run under IDLE_SLACK_NS over IDLE_MS (LevelDB has nothing left to compact); returns the seconds waited. */
async function untilIdle(tid: number | null): Promise<number> {
  if (tid === null) return 0;
  const started = performance.now();
  let mark = threadNs(tid);
  let markAt = performance.now();
  while (performance.now() - started < IDLE_TIMEOUT_MS) {
    await sleep(250);
    const now = threadNs(tid);
    if (now - mark > IDLE_SLACK_NS) {
      mark = now;
      markAt = performance.now();
    } else if (performance.now() - markAt >= IDLE_MS) return (markAt - started) / 1000;
  }
  throw new Error(`LevelDB's background thread still busy after ${IDLE_TIMEOUT_MS / 1000} s`);
}

interface Options {
  readonly fill: number;
  readonly blocks: number;
  readonly perBlock: number;
  readonly prune: boolean;
  readonly pruneAge: 'uniform' | 'log';
  readonly overwritePercent: number;
  /** Point reads of keys never written, per record a block writes, read after its write. */
  readonly absentReads: number;
  /** Point reads of stored keys, per record a block writes, read after its write. */
  readonly storedReads: number;
  readonly tuning: LevelTuning;
  /** `--level` as given, for the table. */
  readonly levelSpec: string;
  readonly reads: number;
  readonly seed: number;
  readonly dir: string;
}

/** Ids of this process's threads once a store is open (V8's and libuv's exist by then). */
let threadsBeforeLevelDb: Set<number> | null = null;
/** LevelDB's background thread: one per process (its default Env), shared by every store. */
let levelDbThread: number | null = null;

async function runLayout(layout: Layout, o: Options, log: (line: string) => void): Promise<Record<string, string | number>> {
  const path = join(o.dir, layout);
  rmSync(path, { recursive: true, force: true });
  const store = await LevelStore.open(path, o.tuning);
  try {
    if (threadsBeforeLevelDb === null) threadsBeforeLevelDb = new Set(readdirSync('/proc/self/task').map(Number));
    const keys = new KeyLog(o.fill + o.blocks * o.perBlock);
    // Separate streams, so --prune and --reads do not change which keys and values are written.
    const layoutSeed = o.seed ^ (layout === 'random' ? 0x72616e64 : 0x73657100);
    const rng = new Prng(layoutSeed);
    const pruneRng = new Prng(layoutSeed ^ 0x7072756e);
    const readRng = new Prng(layoutSeed ^ 0x72656164);
    const overwriteRng = new Prng(layoutSeed ^ 0x6f766572);
    const absentRng = new Prng(layoutSeed ^ 0x61627365);
    const storedRng = new Prng(layoutSeed ^ 0x73746f72);

    let t = performance.now();
    for (let start = 0; start < o.fill; start += FILL_BATCH) {
      const ops: KvOp[] = [];
      for (let j = start; j < Math.min(o.fill, start + FILL_BATCH); j++) {
        ops.push({ type: 'put', key: keys.append(layout, Math.floor(j / o.perBlock), j % o.perBlock, rng), value: rng.bytes(VALUE_BYTES) });
      }
      await store.write(ops, false);
    }
    const fillSeconds = (performance.now() - t) / 1000;
    if (levelDbThread === null) {
      const found = newestSelfThreadSince(threadsBeforeLevelDb);
      levelDbThread = found?.tid ?? null;
      if (found === null) log("  LevelDB's background thread not found (no flush yet: a larger --fill?); its columns read NaN");
      else if (found.newThreads > 1) log(`  ${found.newThreads} threads started since the store opened; taking the newest, ${found.tid}, as LevelDB's`);
    }
    const settleSeconds = await untilIdle(levelDbThread);
    log(`  ${layout}: filled ${o.fill} records in ${fillSeconds.toFixed(1)} s, compaction idle ${settleSeconds.toFixed(1)} s later; files per level ${filesPerLevel(store)}`);

    const firstBlock = Math.ceil(o.fill / o.perBlock);
    const counters0 = compactionTotals(store.property('leveldb.stats'));
    const levelDbAtStart = threadNs(levelDbThread);
    const perThread = new Map<number, number>();
    selfThreadRunNs(perThread, -1);
    const writeMs: number[] = [];
    let mainMs = 0;
    t = performance.now();
    for (let b = 0; b < o.blocks; b++) {
      const before = keys.count;
      const ops: KvOp[] = [];
      for (let i = 0; i < o.perBlock; i++) {
        const rewrite = o.overwritePercent > 0 && overwriteRng.below(100) < o.overwritePercent;
        const key = rewrite ? keys.pickLive(() => overwriteRng.below(before), false) : keys.append(layout, firstBlock + b, i, rng);
        ops.push({ type: 'put', key, value: rng.bytes(VALUE_BYTES) });
      }
      if (o.prune) {
        // Records of block `blk`: the fill's blocks first (the last one short), then the measured ones.
        const recordOf = (blk: number): number => (blk < firstBlock ? Math.min(o.fill - 1, blk * o.perBlock + pruneRng.below(o.perBlock)) : o.fill + (blk - firstBlock) * o.perBlock + pruneRng.below(o.perBlock));
        const blocksBefore = firstBlock + b;
        const pick = o.pruneAge === 'uniform' ? () => pruneRng.below(before) : () => recordOf(blocksBefore - Math.max(1, Math.min(blocksBefore, Math.floor(Math.exp((pruneRng.nextU32() / 2 ** 32) * Math.log(blocksBefore + 1))))));
        for (let i = 0; i < Math.floor(o.perBlock / 2); i++) ops.push({ type: 'del', key: keys.pickLive(pick, true) });
      }
      const m0 = mainThreadSched(process.pid);
      const w0 = performance.now();
      await store.write(ops, true);
      writeMs.push(performance.now() - w0);
      const m1 = mainThreadSched(process.pid);
      if (m0 !== null && m1 !== null) mainMs += m1.runMs - m0.runMs;
      // Keys never written inside the stored range, so each lookup consults a file a level: random 32
      // bytes, or for the sequential layout a stored record's block and index with another tail.
      if (o.absentReads > 0) await store.getMany(Array.from({ length: Math.round(o.absentReads * o.perBlock) }, () => absentKey(layout, keys, absentRng)));
      if (o.storedReads > 0) {
        const count = keys.count;
        await store.getMany(Array.from({ length: Math.round(o.storedReads * o.perBlock) }, () => keys.pickLive(() => storedRng.below(count), false)));
      }
    }
    const phaseMs = performance.now() - t;
    selfThreadRunNs(perThread, 1);
    const windowNs = levelDbThread === null ? NaN : perThread.get(levelDbThread) ?? NaN;
    const otherWindowNs = [...perThread].filter(([tid]) => tid !== process.pid && tid !== levelDbThread).reduce((sum, [, ns]) => sum + ns, 0);
    const tailSeconds = await untilIdle(levelDbThread);
    const toIdleNs = threadNs(levelDbThread) - levelDbAtStart;
    const counters1 = compactionTotals(store.property('leveldb.stats'));

    const getUs: number[] = [];
    let missing = 0;
    const g0 = mainThreadSched(process.pid);
    for (let i = 0; i < o.reads; i++) {
      const key = keys.pickLive(() => readRng.below(keys.count), false);
      const r0 = performance.now();
      const value = await store.get(key);
      getUs.push((performance.now() - r0) * 1000);
      if (value === undefined) missing++;
    }
    const g1 = mainThreadSched(process.pid);
    if (missing > 0) throw new Error(`${missing} of ${o.reads} stored keys read back as missing`);
    getUs.sort((a, b) => a - b);
    writeMs.sort((a, b) => a - b);

    const records = o.blocks * o.perBlock;
    const userMb = (records * (KEY_BYTES + VALUE_BYTES)) / 1e6;
    const row = {
      layout,
      prune: o.prune ? o.pruneAge : 'no',
      'overwrite %': o.overwritePercent,
      'absent reads per record': o.absentReads,
      'stored reads per record': o.storedReads,
      level: o.levelSpec === '' ? 'defaults' : o.levelSpec,
      'compaction µs/rec (to idle)': Number((toIdleNs / 1000 / records).toFixed(1)),
      'compaction µs/rec (window)': Number((windowNs / 1000 / records).toFixed(1)),
      'main µs/rec': Number(((mainMs * 1000) / records).toFixed(2)),
      'other threads µs/rec': Number((otherWindowNs / 1000 / records).toFixed(1)),
      'write ms/block p50': Number(percentile(writeMs, 50).toFixed(2)),
      'write ms/block p99': Number(percentile(writeMs, 99).toFixed(2)),
      'wall ms/block': Number((phaseMs / o.blocks).toFixed(2)),
      'compaction MB read': counters1.readMb - counters0.readMb,
      'flush+compaction MB written': counters1.writtenMb - counters0.writtenMb,
      'written / MB of records': Number(((counters1.writtenMb - counters0.writtenMb) / userMb).toFixed(1)),
      'store MB': Number((bytesOnDisk(path) / 1e6).toFixed(0)),
      'files per level': filesPerLevel(store),
      'get µs p50': Number(percentile(getUs, 50).toFixed(1)),
      'get µs p99': Number(percentile(getUs, 99).toFixed(1)),
      'get main µs': g0 !== null && g1 !== null ? Number((((g1.runMs - g0.runMs) * 1000) / o.reads).toFixed(1)) : '-',
    };
    log(
      `  ${layout}: ${o.blocks} blocks of ${o.perBlock} records${o.prune ? ` (+${Math.floor(o.perBlock / 2)} deletes each)` : ''} in ${(phaseMs / 1000).toFixed(1)} s, ` +
        `compaction idle ${tailSeconds.toFixed(1)} s after the last; LevelDB's compaction time ${(counters1.seconds - counters0.seconds).toFixed(0)} s (its own clock); ${JSON.stringify(row)}`,
    );
    return row;
  } finally {
    await store.close();
    rmSync(path, { recursive: true, force: true });
  }
}

function parsePercent(text: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n > 100) throw new Error(`--overwrite: a whole percentage 0-100, got "${text}"`);
  return n;
}

function badPruneAge(text: string): never {
  throw new Error(`--prune-age: uniform or log, got "${text}"`);
}

function absentKey(layout: Layout, keys: KeyLog, rng: Prng): Uint8Array {
  const key = rng.bytes(KEY_BYTES);
  if (layout === 'sequential') key.set(keys.pickLive(() => rng.below(keys.count), false).subarray(0, 12));
  return key;
}

function parseReadsPerRecord(text: string, flag: string): number {
  const n = Number(text);
  if (!/^\d+(\.\d+)?$/.test(text) || n > 100) throw new Error(`${flag}: reads per record written, 0-100 (e.g. 6 or 0.5), got "${text}"`);
  return n;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      layout: { type: 'string', default: 'both' },
      fill: { type: 'string', default: '2200000' },
      blocks: { type: 'string', default: '300' },
      'per-block': { type: 'string', default: '1550' },
      prune: { type: 'boolean', default: false },
      'prune-age': { type: 'string', default: 'uniform' },
      overwrite: { type: 'string', default: '0' },
      'absent-reads': { type: 'string', default: '0' },
      'stored-reads': { type: 'string', default: '0' },
      level: { type: 'string', default: '' },
      reads: { type: 'string', default: '1000' },
      seed: { type: 'string', default: '1' },
      dir: { type: 'string', default: join(tmpdir(), 'pq-chain-store-compaction-bench') },
    },
  });
  const layouts: Layout[] = values.layout === 'both' ? ['random', 'sequential'] : values.layout === 'random' || values.layout === 'sequential' ? [values.layout] : [];
  if (layouts.length === 0) throw new Error(`--layout: random, sequential or both, got "${values.layout}"`);
  // The log-age picker numbers each block's records as a whole block of appends; a block that
  // rewrites stored keys appends fewer, and the picker would name records never written.
  if (values.overwrite !== '0' && values.prune && values['prune-age'] === 'log') throw new Error('--overwrite with --prune --prune-age log: not supported (use --prune-age uniform)');
  const o: Options = {
    fill: parsePositiveInt(values.fill, '--fill'),
    blocks: parsePositiveInt(values.blocks, '--blocks'),
    perBlock: parsePositiveInt(values['per-block'], '--per-block'),
    prune: values.prune,
    pruneAge: values['prune-age'] === 'log' ? 'log' : values['prune-age'] === 'uniform' ? 'uniform' : badPruneAge(values['prune-age']),
    overwritePercent: parsePercent(values.overwrite),
    absentReads: parseReadsPerRecord(values['absent-reads']!, '--absent-reads'),
    storedReads: parseReadsPerRecord(values['stored-reads']!, '--stored-reads'),
    tuning: parseLevelTuning(values.level),
    levelSpec: values.level,
    reads: parsePositiveInt(values.reads, '--reads'),
    seed: parsePositiveInt(values.seed, '--seed'),
    dir: values.dir,
  };
  const log = (line: string): void => console.log(line);
  log(`store compaction: fill ${o.fill}, ${o.blocks} blocks of ${o.perBlock} records (${KEY_BYTES}-byte keys, ${VALUE_BYTES}-byte random values, ${o.overwritePercent} % rewriting a stored key), LevelDB ${o.levelSpec === '' ? 'defaults' : o.levelSpec}${o.prune ? `, each deleting ${Math.floor(o.perBlock / 2)} earlier records (${o.pruneAge} age)` : ''}, seed ${o.seed}, in ${o.dir}`);
  const started = performance.now();
  const rows: Array<Record<string, string | number>> = [];
  for (const layout of layouts) rows.push(await runLayout(layout, o, log));
  console.table(rows);
  if (levelDbThread !== null) log(`LevelDB's background thread: ${levelDbThread}`);
  log(`total ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

await main();
