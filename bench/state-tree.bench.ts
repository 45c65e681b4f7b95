/**
 * Cost of a block's state-root update as the state grows: blocks of 100 changed keys (70
 * overwrites, 20 inserts, 10 deletes) applied one after another to trees of 10^3 … 10^7 keys held
 * in LevelDB, as a validator holds them. The figure that matters is the cost per changed key and how
 * it grows with the number of keys n (issue 40: at 10^6 within 1.5× of 10^3, at 10^7 within 2×).
 *
 *   npx tsc -p tsconfig.json && flock /tmp/heavy.lock node dist/bench/state-tree.bench.js \
 *     [--sizes 1e3,1e5,1e6,1e7] [--blocks 40] [--warmup 10] [--rounds 2] [--dir /tmp/…] \
 *     [--store node|chunked] [--variant name=module[:option=value…]]… [--cpu-profile DIR] [--threads] [--alloc]
 *
 * Each tree is built once into `--dir` (default: the OS temp dir) and reused by later runs;
 * `--store` says how (`StoreKind` below): `node` (the default) as a validator's tree store holds
 * it, `chunked` as every figure before 2026-11-30 evening was measured, nodes keyed by hash, which
 * is what a build from before the versioned layout can read (to compare with one, reuse a
 * directory built then, as /work/treebench's `n-…`). Variants sharing one store also share its
 * compaction, which lands on whichever variant writes next: compare layouts
 * with one variant per process, each on its own copy of the store. A variant is a tree
 * implementation (`current` = this checkout, or the path of another build's
 * dist/kernel/state/tree/index.js) with constructor options; variants run interleaved,
 * `--rounds` times each, every run on a fresh tree object (cold caches, as after a restart) and from
 * the same built root, so "before" and "after" meet the same store in the same hour. Bench options
 * of a variant: `warm=false` (no warm-up of the upper levels), `hints=true` (old values passed
 * with the changes, as the chain does; a build from before the tree took old values rather than
 * their hashes would take them for wrong hashes: same root, no reads saved).
 * `--cpu-profile DIR` writes a V8 CPU profile of each run's measured blocks (not the build, the
 * warm-up or the warm-up blocks) to DIR; `--threads` prints each thread's CPU over those blocks
 * (by thread id in creation order: V8's platform workers first, then libuv's pool, then
 * LevelDB's compaction thread); `--alloc` samples allocations over the same blocks and prints
 * what the tree's own modules allocated per changed key, and where (sampling slows the run: read
 * its times from a run without it). Allocation moves far less from run to run than time, so it is
 * what resolves a change to per-node objects that timing cannot (docs/performance.md, "Cutting c").
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createHash } from 'node:crypto';
import { parseArgs } from 'node:util';
import { Session } from 'node:inspector/promises';
import { LevelStore, type LevelTuning } from '../kernel/store/level-store.js';
import { parseLevelTuning } from './level-tuning.js';
import { WriteBatch, type KvReader, type KvBatch, type KvOp } from '../kernel/state/kv.js';
import { DEFAULT_NODE_PREFIX, EMPTY_ROOT, NodeKeys, StateTree, type StateChange } from '../kernel/state/tree/index.js';
import { PrefixRoutedStore } from '../kernel/store/prefix-routed-store.js';
import { prefixEnd } from '../kernel/store/keys.js';
import { bytesEqual } from '../kernel/codec/bytes.js';
import { Prng } from '../kernel/state/tree/prng.js';
import { allocationUnder, type HeapProfileNode } from './cpu-attribution.js';
import { selfThreadRunNs } from './thread-cpu.js';

const BLOCK_KEYS = 100;
const VALUE_BYTES = 40;
const BUILD_CHUNK = 50_000;
/**
 * Bumped whenever the build's keys or values change, so a stale directory is rebuilt. Not for the
 * versioned layout, which reads the format-1 stores built before it (and those are what a variant
 * from before it can read).
 */
const BUILD_FORMAT = 1;
/** The same for `--store node`'s builds. */
const NODE_BUILD_FORMAT = 2;

interface TreeLike {
  update(root: Uint8Array, changes: ReadonlyArray<StateChange>, batch: KvBatch): Promise<Uint8Array>;
  releasePending(): void;
  memoryBytes?(): number;
  /** A number from builds before 2026-11-30's node warm-up, `{nodes, complete}` since. */
  warmUpperLevels?(root: Uint8Array): Promise<number | { nodes: number }>;
}
type TreeCtor = new (store: KvReader, options?: Record<string, unknown>) => TreeLike;

interface Variant {
  readonly name: string;
  readonly ctor: TreeCtor;
  readonly options: Record<string, unknown>;
  /** Read the upper levels ahead of the blocks (as a node does at start), where the tree can. */
  readonly warm: boolean;
  /**
   * Pass each changed key's old value hash (StateChange's third element), as the chain's commit
   * path can; the hash of the old value is computed outside the timed update, as the caller's.
   */
  readonly hints: boolean;
}

const encoder = new TextEncoder();
const keyOf = (i: number): Uint8Array => encoder.encode(`acct/${i}`);
/** The value of key i in the built tree: deterministic, so a reused build needs no stored list. */
const valueOf = (i: number): Uint8Array => new Uint8Array(createHash('sha3-256').update(`value/${i}`).digest());

/** Counts the store reads a tree makes (the uncached node loads). */
class CountingReader implements KvReader {
  reads = 0;
  constructor(private readonly inner: BenchStore) {}
  get(key: Uint8Array): Promise<Uint8Array | undefined> {
    this.reads++;
    return this.inner.get(key);
  }
  async getMany(keys: readonly Uint8Array[]): Promise<Array<Uint8Array | undefined>> {
    this.reads += keys.length;
    return this.inner.getMany(keys);
  }
}

/**
 * Builds a tree of n keys into `store`, in chunks of consecutive key hashes: a chunk rewrites only
 * the path on its boundary, so the store ends up holding about one tree, not one per chunk, and each
 * chunk is one LevelDB write. The order is by the first 40 bits of the key hash (index in the low
 * 24 bits, so 10^7 keys sort as one BigUint64Array); the rare tie only costs a few extra nodes.
 */
async function build(store: LevelStore, n: number, log: (line: string) => void): Promise<Uint8Array> {
  if (n > 1 << 24) throw new RangeError('at most 2^24 keys');
  const started = performance.now();
  const order = new BigUint64Array(n);
  for (let i = 0; i < n; i++) {
    const h = createHash('sha3-256').update(keyOf(i)).digest();
    order[i] = (BigInt(h.readUIntBE(0, 5)) << 24n) | BigInt(i);
  }
  order.sort();
  const builder = new StateTree(store, { cacheNodes: 0 });
  let root: Uint8Array = EMPTY_ROOT;
  let nodes = 0;
  for (let start = 0; start < n; start += BUILD_CHUNK) {
    const changes: StateChange[] = [];
    for (let j = start; j < Math.min(n, start + BUILD_CHUNK); j++) {
      const i = Number(order[j]! & 0xffffffn);
      changes.push([keyOf(i), valueOf(i)]);
    }
    const batch = new WriteBatch();
    root = await builder.update(root, changes, batch);
    await store.write(batch.ops, false);
    builder.releasePending();
    nodes += batch.ops.length;
    const done = Math.min(n, start + BUILD_CHUNK);
    if (done === n || (done / BUILD_CHUNK) % 20 === 0) log(`  built ${done}/${n} keys, ${nodes} nodes written, ${((performance.now() - started) / 1000).toFixed(0)} s`);
  }
  return root;
}

/**
 * How the bench's store holds the tree before the blocks. `node`: as a validator's tree store holds
 * it, built once the way genesis and a snapshot install build it (`StateTree.bulkBuild`, every node
 * written once at one version) and settled into one level (`ChainStore.settleTree`), and settled
 * again before each run, after the records of earlier runs are deleted (`resetToBuilt`), so that
 * every run, like a node's blocks, writes versions above everything stored and reads each old node
 * from one table file. `chunked`: built by `update`s of
 * 50,000 keys with nodes keyed by hash (the layout before versions), what every figure before
 * 2026-11-30 evening was measured on, and what a build from before the versioned layout can read;
 * its old nodes lie in every level, and runs that start from the same root rewrite the same
 * versions, so its reads charge LevelDB's seek compaction and its writes merge with the last run's
 * (docs/performance.md, "The bench's store and a node's").
 */
type StoreKind = 'node' | 'chunked';
const STORE_KINDS: readonly StoreKind[] = ['node', 'chunked'];
const isStoreKind = (s: string): s is StoreKind => (STORE_KINDS as readonly string[]).includes(s);

/** Every key the bench's stores hold (`smt/…` and the sync mark), for LevelDB's CompactRange. */
const WHOLE_STORE = { gte: Uint8Array.of(0), lt: new Uint8Array(64).fill(0xff) };

/** A tree of n keys written as genesis writes one: leaves as they come, internal nodes bottom-up once. */
async function buildBulk(store: BenchStore, n: number, log: (line: string) => void): Promise<Uint8Array> {
  const started = performance.now();
  const bulk = new StateTree(store, { cacheNodes: 0 }).bulkBuild(n);
  let batch = new WriteBatch();
  for (let i = 0; i < n; i++) {
    bulk.add(keyOf(i), valueOf(i), batch);
    if (batch.ops.length >= BUILD_CHUNK) {
      await store.write(batch.ops, false);
      batch = new WriteBatch();
    }
  }
  await store.write(batch.ops, false);
  log(`  ${n} leaves written, ${((performance.now() - started) / 1000).toFixed(0)} s`);
  return bulk.finish((ops) => store.write(ops, false), BUILD_CHUNK);
}

/** What the runs read and write: one LevelDB store (`chunked`), or a node's two behind one key space (`node`). */
interface BenchStore {
  get(key: Uint8Array): Promise<Uint8Array | undefined>;
  getMany(keys: readonly Uint8Array[]): Promise<Array<Uint8Array | undefined>>;
  write(ops: readonly KvOp[], sync: boolean): Promise<void>;
  close(): Promise<void>;
}

interface OpenStores {
  readonly store: BenchStore;
  /** The store the tree's nodes are in. */
  readonly nodes: LevelStore;
  /** `node`: the store its root records are in. */
  readonly roots: LevelStore | null;
}

interface BuiltStore extends OpenStores {
  readonly root: Uint8Array;
  readonly buildSeconds: number | null;
}

const VERSIONED_NODES = NodeKeys.versionedPrefix(DEFAULT_NODE_PREFIX);
const NODE_KEYS = new NodeKeys(DEFAULT_NODE_PREFIX);
/** Where the nodes of versions above the build's (1: `bulkBuild`'s first) begin: what runs write. */
const RUN_VERSIONS = NODE_KEYS.nodeKey(new Uint8Array(32), 2);

/**
 * `node`: the tree's versioned nodes in a LevelDB store of their own and its root records in
 * another, as a node routes them (`kernel/store/chain-stores.ts`): a root record is keyed by the
 * root's hash, and in the nodes' store each one would make the file it is flushed in span every
 * stored version, so that its compaction rewrote the whole tree.
 */
async function openStores(path: string, kind: StoreKind, tuning: LevelTuning, mustExist: boolean): Promise<OpenStores> {
  if (kind === 'chunked') {
    const one = await LevelStore.open(path, tuning);
    return { store: one, nodes: one, roots: null };
  }
  const nodes = await LevelStore.open(join(path, 'nodes'), tuning, mustExist);
  let roots: LevelStore;
  try {
    roots = await LevelStore.open(join(path, 'roots'), tuning, mustExist);
  } catch (e) {
    await nodes.close();
    throw e;
  }
  const routed = new PrefixRoutedStore(roots, nodes, VERSIONED_NODES, { main: encoder.encode('bench/sync-mark'), side: VERSIONED_NODES });
  return { store: routed, nodes, roots };
}

async function openBuilt(dir: string, n: number, kind: StoreKind, log: (line: string) => void, tuning: LevelTuning): Promise<BuiltStore> {
  const path = join(dir, kind === 'chunked' ? `n-${n}` : `node-${n}`);
  const format = kind === 'chunked' ? BUILD_FORMAT : NODE_BUILD_FORMAT;
  const metaPath = join(path, 'bench-meta.json');
  if (existsSync(metaPath)) {
    const meta = JSON.parse(readFileSync(metaPath, 'utf8')) as { n: number; root: string; format: number };
    if (meta.n === n && meta.format === format) {
      return { ...(await openStores(path, kind, tuning, true)), root: Uint8Array.from(Buffer.from(meta.root, 'hex')), buildSeconds: null };
    }
  }
  const started = performance.now();
  if (kind === 'chunked') {
    mkdirSync(path, { recursive: true });
    const opened = await openStores(path, kind, tuning, false);
    log(`building a tree of ${n} keys in ${path} (${kind})…`);
    const root = await build(opened.nodes, n, log);
    writeFileSync(metaPath, JSON.stringify({ n, root: Buffer.from(root).toString('hex'), format }));
    return { ...opened, root, buildSeconds: (performance.now() - started) / 1000 };
  }
  // Built beside and renamed once whole, so a build cut off, or another process's, is never taken
  // for one (LevelDB's lock is taken only once the stores open, after the rename).
  const building = `${path}.building-${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  mkdirSync(building, { recursive: true });
  const fresh = await openStores(building, kind, tuning, false);
  log(`building a tree of ${n} keys in ${path} (${kind})…`);
  const root = await buildBulk(fresh.store, n, log);
  await fresh.store.close();
  writeFileSync(join(building, 'bench-meta.json'), JSON.stringify({ n, root: Buffer.from(root).toString('hex'), format }));
  rmSync(path, { recursive: true, force: true });
  renameSync(building, path);
  return { ...(await openStores(path, kind, tuning, true)), root, buildSeconds: (performance.now() - started) / 1000 };
}

/**
 * A `node` store back to its build: every node above the build's version and every root record
 * but the built root's deleted (what the last runs wrote, finished or not), so the next run's
 * versions, which start above the built root's as every run's do, are again the newest stored.
 */
async function resetToBuilt(nodes: LevelStore, roots: LevelStore, root: Uint8Array): Promise<number> {
  const keep = NODE_KEYS.rootKey(root);
  let deleted = 0;
  const dropAll = async (store: LevelStore, range: { gte?: Uint8Array; lt?: Uint8Array }, spare?: Uint8Array): Promise<void> => {
    for await (const run of store.keyRuns(range)) {
      const ops = run.filter((key) => spare === undefined || !bytesEqual(key, spare)).map((key) => ({ type: 'del' as const, key }));
      if (ops.length > 0) await store.write(ops, false);
      deleted += ops.length;
    }
  };
  await dropAll(nodes, { gte: RUN_VERSIONS, lt: prefixEnd(VERSIONED_NODES) });
  await dropAll(roots, {}, keep);
  return deleted;
}

function blockChanges(n: number, rng: Prng, tag: string): StateChange[] {
  const changes: StateChange[] = [];
  for (let j = 0; j < 70; j++) changes.push([keyOf(rng.below(n)), rng.bytes(VALUE_BYTES)]);
  for (let j = 0; j < 20; j++) changes.push([encoder.encode(`new/${tag}/${j}`), rng.bytes(VALUE_BYTES)]);
  for (let j = 0; j < 10; j++) changes.push([keyOf(rng.below(n)), null]);
  return changes;
}

interface RunResult {
  readonly updateMs: number[];
  /** CPU time of the update (all of the process's threads), less disturbed by neighbours than wall time. */
  readonly updateCpuMs: number[];
  /** Of that, the main thread's (schedstat; empty off Linux): the rest is LevelDB's and libuv's threads and GC helpers. */
  readonly updateMainMs: number[];
  readonly writeMs: number[];
  readonly readsPerKey: number;
  readonly writesPerKey: number;
  readonly treeBytes: number | null;
  readonly warmSeconds: number | null;
  readonly warmNodes: number | null;
  /** Nanoseconds each thread ran during the measured updates, by thread id. */
  readonly perThreadNs: Map<number, number>;
  readonly allocation: TreeAllocation | null;
}

interface RunOptions {
  readonly profileTo: string | undefined;
  /** Sample allocations over the measured blocks (`--alloc`). */
  readonly alloc: boolean;
}

/** A run's allocations by the tree's own code (`--alloc`): per changed key, and its largest sites. */
interface TreeAllocation {
  readonly bytesPerKey: number;
  readonly topSites: ReadonlyArray<readonly [string, number]>;
}

/** The tree's modules, whichever build a variant loads: their allocations are the tree's. */
const isTreeModule = (url: string): boolean => /\/state\/tree\/[^/]+\.js$/.test(url);

/**
 * One run of a variant: a fresh tree (cold caches) over the built store, `warmup` + `blocks`
 * chained blocks from the built root, each written before the next as a validator commits them.
 * The same seed gives every variant the same blocks.
 */
async function run(variant: Variant, store: BenchStore, root0: Uint8Array, n: number, warmup: number, blocks: number, runTag: string, options: RunOptions): Promise<RunResult> {
  const reader = new CountingReader(store);
  const tree = new variant.ctor(reader, variant.options);
  let warmSeconds: number | null = null;
  let warmNodes: number | null = null;
  if (variant.warm && tree.warmUpperLevels !== undefined) {
    const t = performance.now();
    const warmed = await tree.warmUpperLevels(root0);
    warmNodes = typeof warmed === 'number' ? warmed : warmed.nodes;
    warmSeconds = (performance.now() - t) / 1000;
  }
  const rng = new Prng(0x5eed ^ n);
  // The value of every key this run changed (null once deleted); the rest hold valueOf(i).
  const current = new Map<string, Uint8Array | null>();
  const oldValue = (key: Uint8Array): Uint8Array | undefined => {
    const text = Buffer.from(key).toString('utf8');
    const known = current.get(text);
    if (known !== undefined) return known ?? undefined;
    return text.startsWith('acct/') ? valueOf(Number(text.slice(5))) : undefined;
  };
  let root = root0;
  const updateMs: number[] = [];
  const updateCpuMs: number[] = [];
  const updateMainMs: number[] = [];
  const writeMs: number[] = [];
  let reads = 0;
  let writes = 0;
  const perThreadNs = new Map<number, number>();
  const session = options.profileTo === undefined && !options.alloc ? null : new Session();
  for (let b = 0; b < warmup + blocks; b++) {
    if (session !== null && b === warmup) {
      session.connect();
      if (options.profileTo !== undefined) {
        await session.post('Profiler.enable');
        await session.post('Profiler.setSamplingInterval', { interval: 250 });
        await session.post('Profiler.start');
      }
      if (options.alloc) {
        // Objects the scavenger collects count too: most of an update's allocation dies young.
        await session.post('HeapProfiler.enable');
        await session.post('HeapProfiler.startSampling', { samplingInterval: 512, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
      }
    }
    let changes = blockChanges(n, rng, `${runTag}/${b}`);
    if (variant.hints) {
      changes = changes.map(([key, value]): StateChange => {
        const hint = oldValue(key);
        return hint === undefined ? [key, value] : [key, value, hint];
      });
      for (const [key, value] of changes) current.set(Buffer.from(key).toString('utf8'), value);
    }
    const readsBefore = reader.reads;
    const batch = new WriteBatch();
    const s0 = selfThreadRunNs(b >= warmup ? perThreadNs : undefined, -1);
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    root = await tree.update(root, changes, batch);
    const t1 = performance.now();
    const cpu = process.cpuUsage(c0);
    const s1 = selfThreadRunNs(b >= warmup ? perThreadNs : undefined, 1);
    await store.write(batch.ops, false);
    tree.releasePending();
    const t2 = performance.now();
    if (b >= warmup) {
      updateMs.push(t1 - t0);
      updateCpuMs.push((cpu.user + cpu.system) / 1000);
      if (s0 !== null && s1 !== null) updateMainMs.push((s1.main - s0.main) / 1e6);
      writeMs.push(t2 - t1);
      reads += reader.reads - readsBefore;
      writes += batch.ops.length;
    }
  }
  let allocation: TreeAllocation | null = null;
  if (session !== null) {
    if (options.alloc) {
      const { profile } = await session.post('HeapProfiler.stopSampling');
      const { total, bySite } = allocationUnder(profile.head as HeapProfileNode, isTreeModule);
      const keys = blocks * BLOCK_KEYS;
      allocation = { bytesPerKey: total / keys, topSites: [...bySite].sort((a, b) => b[1] - a[1]).slice(0, 20).map(([site, bytes]) => [site, bytes / keys] as const) };
    }
    if (options.profileTo !== undefined) {
      const { profile } = await session.post('Profiler.stop');
      mkdirSync(options.profileTo, { recursive: true });
      const file = join(options.profileTo, `state-tree-${n}-${runTag.replace(/\//g, '-')}.cpuprofile`);
      writeFileSync(file, JSON.stringify(profile));
    }
    session.disconnect();
  }
  return { allocation, perThreadNs, updateMs, updateCpuMs, updateMainMs, writeMs, readsPerKey: reads / (blocks * BLOCK_KEYS), writesPerKey: writes / (blocks * BLOCK_KEYS), treeBytes: tree.memoryBytes?.() ?? null, warmSeconds, warmNodes };
}

const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
const quantile = (xs: readonly number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};

async function loadVariant(spec: string): Promise<Variant> {
  // name=module[:key=value…]; module "current" is this checkout's tree.
  const eq = spec.indexOf('=');
  if (eq < 1) throw new Error(`--variant ${spec}: expected name=module[:option=value…]`);
  const name = spec.slice(0, eq);
  const [modulePath, ...opts] = spec.slice(eq + 1).split(':');
  const ctor = modulePath === 'current' ? (StateTree as unknown as TreeCtor) : ((await import(pathToFileURL(modulePath!).href)) as { StateTree: TreeCtor }).StateTree;
  const options: Record<string, unknown> = {};
  let warm = true;
  let hints = false;
  for (const o of opts) {
    const [k, v] = o.split('=');
    if (k === undefined || v === undefined) throw new Error(`--variant ${spec}: bad option ${o}`);
    if (k === 'warm') warm = v === 'true';
    else if (k === 'hints') hints = v === 'true';
    else options[k] = v === 'true' ? true : v === 'false' ? false : Number(v);
  }
  return { name, ctor, options, warm, hints };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      sizes: { type: 'string', default: '1e3,1e5,1e6,1e7' },
      blocks: { type: 'string', default: '50' },
      warmup: { type: 'string', default: '30' },
      rounds: { type: 'string', default: '2' },
      dir: { type: 'string', default: join(tmpdir(), 'pq-chain-state-tree-bench') },
      variant: { type: 'string', multiple: true },
      'cpu-profile': { type: 'string' },
      /** LevelDB options for the run, e.g. compression=false,cacheSize=67108864 (the build uses the same). */
      level: { type: 'string', default: '' },
      threads: { type: 'boolean', default: false },
      alloc: { type: 'boolean', default: false },
      store: { type: 'string', default: 'node' },
    },
  });
  if (!isStoreKind(values.store)) throw new Error(`--store ${values.store}: expected ${STORE_KINDS.join(' or ')}`);
  const storeKind = values.store;
  const sizes = values.sizes.split(',').map((s) => Math.round(Number(s)));
  const blocks = Number(values.blocks);
  const warmup = Number(values.warmup);
  const rounds = Number(values.rounds);
  const variants = await Promise.all((values.variant ?? ['current=current']).map(loadVariant));
  const log = (line: string): void => console.log(line);
  const tuning = parseLevelTuning(values.level);
  if (values.level !== '') log(`LevelDB options: ${JSON.stringify(tuning)}`);
  const started = performance.now();
  const table: Array<Record<string, string | number>> = [];
  const perKeyAt = new Map<string, Map<number, number>>();
  for (const n of sizes) {
    const { store, nodes, roots, root, buildSeconds } = await openBuilt(values.dir, n, storeKind, log, tuning);
    if (buildSeconds !== null) log(`  build of ${n} keys took ${buildSeconds.toFixed(0)} s`);
    for (let round = 0; round < rounds; round++) {
      for (const v of variants) {
        if (roots !== null) {
          // Back to the build, settled into one level as a node's store is after genesis or a
          // snapshot install: not timed.
          const t = performance.now();
          const deleted = await resetToBuilt(nodes, roots, root);
          await nodes.settle(WHOLE_STORE);
          const files = [0, 1, 2, 3, 4].map((level) => nodes.property(`leveldb.num-files-at-level${level}`)).join('/');
          log(`  n=${n}: ${deleted} records of earlier runs deleted and the nodes' store settled in ${((performance.now() - t) / 1000).toFixed(1)} s (${files} files in levels 0-4)`);
        }
        const r = await run(v, store, root, n, warmup, blocks, `${v.name}/${round}`, { profileTo: values['cpu-profile'], alloc: values.alloc });
        const perKeyUs = (mean(r.updateMs) * 1000) / BLOCK_KEYS;
        const cpuPerKeyUs = (mean(r.updateCpuMs) * 1000) / BLOCK_KEYS;
        const mainPerKeyUs = r.updateMainMs.length > 0 ? (mean(r.updateMainMs) * 1000) / BLOCK_KEYS : NaN;
        const rss = process.memoryUsage().rss / 2 ** 20;
        if (r.warmSeconds !== null) log(`  n=${n} ${v.name}: upper levels warmed in ${r.warmSeconds.toFixed(1)} s (${r.warmNodes} nodes read)`);
        log(`  n=${n} ${v.name} round ${round + 1}: update ${mean(r.updateMs).toFixed(2)} ms/block (${perKeyUs.toFixed(1)} µs/key, cpu ${cpuPerKeyUs.toFixed(1)} µs/key of which main thread ${mainPerKeyUs.toFixed(1)}), write ${mean(r.writeMs).toFixed(2)} ms/block, ${r.readsPerKey.toFixed(2)} reads/key, rss ${rss.toFixed(0)} MiB`);
        if (values.threads) {
          const parts = [...r.perThreadNs].sort((a, b) => a[0] - b[0]).filter(([, ns]) => ns > 0).map(([tid, ns]) => `${tid === process.pid ? 'main' : tid}: ${((ns / 1000) / (blocks * BLOCK_KEYS)).toFixed(1)}`);
          log(`    per-thread cpu µs/key over the measured updates: ${parts.join(', ')}`);
        }
        if (r.allocation !== null) {
          log(`    the tree's allocation over the measured updates: ${(r.allocation.bytesPerKey / 1024).toFixed(2)} KB per changed key; largest sites (KB/key): ${r.allocation.topSites.map(([site, b]) => `${site} ${(b / 1024).toFixed(2)}`).join(', ')}`);
        }
        table.push({
          keys: n,
          variant: v.name,
          round: round + 1,
          'update ms/block': Number(mean(r.updateMs).toFixed(2)),
          'p50 ms': Number(quantile(r.updateMs, 0.5).toFixed(2)),
          'p90 ms': Number(quantile(r.updateMs, 0.9).toFixed(2)),
          'µs/key': Number(perKeyUs.toFixed(1)),
          'cpu µs/key': Number(cpuPerKeyUs.toFixed(1)),
          'main µs/key': Number.isNaN(mainPerKeyUs) ? '-' : Number(mainPerKeyUs.toFixed(1)),
          'write ms/block': Number(mean(r.writeMs).toFixed(2)),
          'store reads/key': Number(r.readsPerKey.toFixed(2)),
          'nodes written/key': Number(r.writesPerKey.toFixed(2)),
          'warm s': r.warmSeconds === null ? '-' : Number(r.warmSeconds.toFixed(1)),
          'tree cache MiB': r.treeBytes === null ? '-' : Number((r.treeBytes / 2 ** 20).toFixed(1)),
          'rss MiB': Number(rss.toFixed(0)),
          ...(r.allocation === null ? {} : { 'tree KB/key allocated': Number((r.allocation.bytesPerKey / 1024).toFixed(2)) }),
        });
        for (const [label, value] of [['wall', perKeyUs], ['cpu', cpuPerKeyUs], ['main-thread cpu', mainPerKeyUs]] as const) {
          if (Number.isNaN(value)) continue;
          const best = perKeyAt.get(`${v.name} (${label})`) ?? new Map<number, number>();
          best.set(n, Math.min(best.get(n) ?? Infinity, value));
          perKeyAt.set(`${v.name} (${label})`, best);
        }
      }
    }
    await store.close();
  }
  console.log(`\nstate tree: blocks of ${BLOCK_KEYS} changed keys (70 overwrites, 20 inserts, 10 deletes), LevelDB store (${storeKind}), ${blocks} blocks after ${warmup} warm-up, ${rounds} interleaved round(s)`);
  console.table(table);
  // The issue's yardstick: cost per changed key at n against the smallest n (best round of each).
  for (const [name, byN] of perKeyAt) {
    const base = byN.get(sizes[0]!)!;
    const ratios = sizes.map((n) => `${n}: ${(byN.get(n)! / base).toFixed(2)}×`).join(', ');
    console.log(`${name}: µs/key relative to n=${sizes[0]} → ${ratios}`);
  }
  console.log(`total ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

await main();
