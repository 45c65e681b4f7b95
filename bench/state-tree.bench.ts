/**
 * Cost of one block's state-root update: 100 changed keys (70 overwrites, 20 inserts, 10 deletes)
 * applied to state trees of 10^3, 10^5 and 10^6 keys held in the in-memory store. The update cost
 * should grow with log n, not n. Run: `npx tsc -p tsconfig.json && node dist/bench/state-tree.bench.js`.
 */
import { createHash } from 'node:crypto';
import { Bench } from 'tinybench';
import { WriteBatch } from '../kernel/store/kv.js';
import { EMPTY_ROOT, StateTree, type StateChange } from '../kernel/state/tree/index.js';
import { MemoryKv } from '../kernel/state/tree/memory-kv.js';
import { Prng } from '../kernel/state/tree/prng.js';

const SIZES = [1_000, 100_000, 1_000_000];
const BLOCK_KEYS = 100;
const BUILD_BATCH = 100_000;
const VALUE_BYTES = 40;

const encoder = new TextEncoder();
const keyOf = (i: number): Uint8Array => encoder.encode(`acct/${i}`);

interface Built {
  readonly n: number;
  readonly kv: MemoryKv;
  readonly tree: StateTree;
  readonly root: Uint8Array;
  readonly buildSeconds: number;
}

/**
 * Builds a tree of n keys in batches of contiguous key-hash ranges. Random batches would rewrite
 * most of the existing tree's upper nodes every time and leave those copies in the (unpruned)
 * store; contiguous ranges only touch the boundary path, so the store holds about one tree.
 */
async function build(n: number, rng: Prng): Promise<Built> {
  const started = performance.now();
  // node:crypto only to pick the batch order faster; the tree itself hashes with the kernel's SHA3.
  const order = Array.from({ length: n }, (_, i) => ({ i, h: createHash('sha3-256').update(keyOf(i)).digest('hex') }));
  order.sort((a, b) => (a.h < b.h ? -1 : a.h > b.h ? 1 : 0));
  const kv = new MemoryKv();
  // The builder skips the LRU (it would only churn through every node once); the measured tree
  // below starts cold and warms up as real blocks would warm it.
  const builder = new StateTree(kv, { cacheNodes: 0 });
  let root = EMPTY_ROOT;
  for (let start = 0; start < n; start += BUILD_BATCH) {
    const changes: StateChange[] = order.slice(start, start + BUILD_BATCH).map(({ i }) => [keyOf(i), rng.bytes(VALUE_BYTES)] as const);
    const batch = new WriteBatch();
    root = await builder.update(root, changes, batch);
    kv.apply(batch);
    builder.releasePending();
    if (n > BUILD_BATCH) {
      const done = Math.min(n, start + BUILD_BATCH);
      const secs = ((performance.now() - started) / 1000).toFixed(1);
      const heap = (process.memoryUsage().heapUsed / 2 ** 20).toFixed(0);
      console.log(`  building ${n} keys: ${done}/${n} (${secs} s, ${kv.size} nodes stored, heap ${heap} MiB)`);
    }
  }
  return { n, kv, tree: new StateTree(kv), root, buildSeconds: (performance.now() - started) / 1000 };
}

function blockChanges(n: number, rng: Prng, block: number): StateChange[] {
  const changes: StateChange[] = [];
  for (let j = 0; j < 70; j++) changes.push([keyOf(rng.below(n)), rng.bytes(VALUE_BYTES)]);
  for (let j = 0; j < 20; j++) changes.push([encoder.encode(`new/${block}/${j}`), rng.bytes(VALUE_BYTES)]);
  for (let j = 0; j < 10; j++) changes.push([keyOf(rng.below(n)), null]);
  return changes;
}

/** Store reads and node writes of one block on a cold tree (no cache, nothing pending). */
async function countNodes(t: Built, rng: Prng): Promise<{ reads: number; writes: number }> {
  const cold = new StateTree(t.kv, { cacheNodes: 0 });
  const before = t.kv.reads;
  const batch = new WriteBatch();
  await cold.update(t.root, blockChanges(t.n, rng, -1), batch);
  return { reads: t.kv.reads - before, writes: batch.ops.length };
}

interface Row {
  readonly n: number;
  readonly variant: string;
  readonly buildSeconds: number;
  readonly counts: { reads: number; writes: number };
  readonly tree: StateTree;
}

async function measure(built: Built, row: Row, rng: Prng): Promise<Record<string, string | number>> {
  // One Bench per measurement, so a finished tree is not kept alive by a task closure.
  const bench = new Bench({ time: 1000, iterations: 24, warmupTime: 200, warmupIterations: 4 });
  let changes: StateChange[] = [];
  let block = 0;
  const name = `update ${BLOCK_KEYS} keys, n=${row.n}, ${row.variant}`;
  bench.add(
    name,
    async () => {
      await row.tree.update(built.root, changes, new WriteBatch());
    },
    {
      // Each iteration is a fresh block against the same base root; preparing it is not timed.
      beforeEach: () => {
        changes = blockChanges(row.n, rng, block++);
      },
      // These blocks are never written, so their nodes need not be kept for later updates.
      afterEach: () => {
        row.tree.releasePending();
      },
    },
  );
  await bench.run();
  const result = bench.getTask(name)!.result;
  if (result.state !== 'completed') throw new Error(`${name}: ${result.state}`);
  console.log(`  ${name}: mean ${result.latency.mean.toFixed(2)} ms over ${result.latency.samplesCount} blocks`);
  return {
    'keys in tree': row.n,
    reads: row.variant,
    'build (s)': Number(row.buildSeconds.toFixed(1)),
    'update mean (ms)': Number(result.latency.mean.toFixed(2)),
    'p50 (ms)': Number(result.latency.p50.toFixed(2)),
    'p99 (ms)': Number(result.latency.p99.toFixed(2)),
    'blocks/s': Number(result.throughput.mean.toFixed(1)),
    samples: result.latency.samplesCount,
    'cold reads/block': row.counts.reads,
    'nodes written/block': row.counts.writes,
  };
}

async function main(): Promise<void> {
  const started = performance.now();
  const rng = new Prng(0x5eed);
  const table: Array<Record<string, string | number>> = [];
  for (const n of SIZES) {
    console.log(`building a tree of ${n} keys…`);
    const built = await build(n, rng);
    const counts = await countNodes(built, rng);
    table.push(await measure(built, { n, variant: 'verified', buildSeconds: built.buildSeconds, counts, tree: built.tree }, rng));
    if (n === SIZES[SIZES.length - 1]) {
      const trusting = new StateTree(built.kv, { verifyReads: false });
      table.push(await measure(built, { n, variant: 'verifyReads=false', buildSeconds: built.buildSeconds, counts, tree: trusting }, rng));
    }
  }
  console.log(`\nstate tree: one block of ${BLOCK_KEYS} changed keys (70 overwrites, 20 inserts, 10 deletes), in-memory store`);
  console.table(table);
  console.log(`total ${((performance.now() - started) / 1000).toFixed(0)} s`);
}

await main();
