import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { pbkdf2 } from 'node:crypto';
import { cpuByKind, eventLoopsOf, nodeThreadLayout, nodeThreadLayoutOf, noteEventLoopThreads, poolsNamed, threadKinds, threadSamples, type ThreadSample } from './thread-cpu.js';

/** A validator's: V8's scheduler, 4 workers and the inspector's signal thread, then libuv's pool of 4 (nodeThreadLayout). */
const LAYOUT = { platform: 6, libuv: 4 };

/** A validator's threads as procfs showed them at 10^6 accounts: [tid, start tick, CPU ticks]. */
const threads: Array<[number, number, number]> = [
  [100, 1000, 500], // main
  [103, 1010, 0], // inspector signal thread, with the platform's
  [104, 1010, 20],
  [105, 1010, 30],
  [106, 1010, 25],
  [107, 1010, 22],
  [109, 1017, 0], // the platform's delayed-task scheduler
  [120, 1025, 5],
  [121, 1026, 6],
  [122, 1026, 4],
  [123, 1026, 5],
  [154, 1350, 12],
  [155, 1354, 13], // the second verify worker, a few ticks after the first
  [200, 1620, 80], // LevelDB's background thread, at the first memtable flush (during genesis at 10^6)
  [656, 16000, 3], // the consensus signature worker, when block production starts
];

const samples = (scale: number): Map<number, { ticks: number; start: number }> => new Map(threads.map(([tid, start, ticks]) => [tid, { start, ticks: ticks * scale }]));

test('threads are told apart by the order Node starts them', () => {
  const kinds = threadKinds(100, samples(1), new Set(), LAYOUT);
  assert.deepEqual(
    threads.map(([tid]) => kinds.get(tid)),
    ['main', 'platform', 'platform', 'platform', 'platform', 'platform', 'platform', 'libuv', 'libuv', 'libuv', 'libuv', 'workers', 'workers', 'leveldb', 'other'],
  );
  // Once the threads seen waiting in epoll are known, the consensus worker is a worker too.
  assert.equal(threadKinds(100, samples(1), new Set([100, 154, 155, 656]), LAYOUT).get(656), 'workers');
});

test('at 10^3 accounts LevelDB starts its thread under load, after the consensus worker: how they wait tells them apart', () => {
  // As procfs showed a 10^3 validator: verify workers at +2.1 s, the consensus worker at +3.0 s, LevelDB at its first flush.
  const small = new Map<number, { ticks: number; start: number }>([
    [100, { start: 1000, ticks: 300 }],
    ...[104, 105, 106, 107, 108].map((tid): [number, { ticks: number; start: number }] => [tid, { start: 1011, ticks: 20 }]),
    [114, { start: 1029, ticks: 0 }],
    ...[125, 126, 127, 128].map((tid): [number, { ticks: number; start: number }] => [tid, { start: 1034, ticks: 3 }]),
    [148, { start: 1241, ticks: 17 }],
    [149, { start: 1241, ticks: 17 }],
    [152, { start: 1329, ticks: 23 }], // consensus signature worker
    [170, { start: 5200, ticks: 40 }], // LevelDB's thread, at the first flush under load
  ]);
  const byOrder = threadKinds(100, small, new Set(), LAYOUT);
  assert.equal(byOrder.get(152), 'leveldb', 'start order alone mistakes the consensus worker for LevelDB');
  const kinds = threadKinds(100, small, new Set([100, 148, 149, 152]), LAYOUT);
  assert.deepEqual([148, 149, 152, 170].map((tid) => kinds.get(tid)), ['workers', 'workers', 'workers', 'leveldb']);
});

test("libuv's pool started within a tick or two of the platform's last thread is still libuv's, not V8's", () => {
  // A 10^3 devnet validator on a 2-core machine as procfs showed it (Node 20: every thread named `node`):
  // [tid, start tick, CPU ticks]. Its libuv pool started 1 and 2 ticks after the inspector's signal
  // thread, so grouping threads by gaps of ≤ 3 ticks made one group of all ten, found no libuv
  // group of 4 after it, and filed every later thread (libuv, workers, LevelDB) as V8's.
  const validator: Array<[number, number, number]> = [
    [31698, 231877, 264], // main
    [31706, 231895, 0], // V8's delayed-task scheduler (waits in epoll)
    [31711, 231895, 36],
    [31712, 231895, 37],
    [31713, 231895, 36],
    [31714, 231895, 35],
    [31719, 231898, 0], // the inspector's signal thread
    [31721, 231899, 3], // libuv's pool
    [31722, 231900, 3],
    [31723, 231900, 3],
    [31724, 231900, 3],
    [31739, 232197, 21], // the verify pool's 2 workers
    [31740, 232197, 23],
    [31747, 232303, 15], // the consensus signature worker
  ];
  const after = new Map(validator.map(([tid, start, ticks]): [number, ThreadSample] => [tid, { start, ticks, name: 'node' }]));
  const before = new Map(validator.map(([tid, start]): [number, ThreadSample] => [tid, { start, ticks: 0, name: 'node' }]));
  assert.equal(poolsNamed(after), false, 'Node 20 names no thread');
  const kinds = threadKinds(31698, after, new Set([31698, 31706, 31739, 31740, 31747]), LAYOUT);
  assert.deepEqual(
    validator.map(([tid]) => kinds.get(tid)),
    ['main', 'platform', 'platform', 'platform', 'platform', 'platform', 'platform', 'libuv', 'libuv', 'libuv', 'libuv', 'workers', 'workers', 'workers'],
  );
  // (cpuByKind asks how threads waited of what was noted for pid 31698, nothing: the later three go by start order.)
  const by = cpuByKind(31698, before, after, LAYOUT);
  assert.deepEqual([by.platform, by.libuv, by.workers + by.leveldb].map((x) => Math.round(x * 100) / 100), [1.44, 0.12, 0.59]);

  // The same with every one of the ten started in one tick, as a test process of this machine showed them.
  const sameTick = new Map([...after].map(([tid, s]): [number, ThreadSample] => [tid, tid === 31698 || tid > 31724 ? s : { ...s, start: 231895 }]));
  const flat = threadKinds(31698, sameTick, new Set([31698, 31739, 31740, 31747]), LAYOUT);
  assert.deepEqual([31711, 31719, 31721, 31724, 31739].map((tid) => flat.get(tid)), ['platform', 'platform', 'libuv', 'libuv', 'workers']);
});

test("where Node and libuv name their pools' threads (after Node 20), the names decide, not the counts", () => {
  // A --v8-pool-size=2 process told by a layout of 6 and 4: the names still tell each pool.
  const named = new Map<number, ThreadSample>([
    [500, { start: 10, ticks: 0, name: 'node' }],
    [501, { start: 11, ticks: 0, name: 'node' }], // the scheduler, unnamed
    [502, { start: 11, ticks: 7, name: 'V8Worker' }],
    [503, { start: 11, ticks: 8, name: 'V8Worker' }],
    [504, { start: 11, ticks: 0, name: 'node' }], // the signal thread
    [505, { start: 11, ticks: 1, name: 'libuv-worker' }],
    [506, { start: 11, ticks: 1, name: 'libuv-worker' }],
    [507, { start: 11, ticks: 1, name: 'libuv-worker' }],
    [508, { start: 11, ticks: 1, name: 'libuv-worker' }],
    [509, { start: 40, ticks: 9, name: 'node' }], // a worker thread
    [510, { start: 90, ticks: 4, name: 'node' }], // LevelDB's
  ]);
  assert.ok(poolsNamed(named));
  const kinds = threadKinds(500, named, new Set([500, 509]), LAYOUT);
  assert.deepEqual([...named.keys()].map((tid) => kinds.get(tid)), ['main', 'platform', 'platform', 'platform', 'platform', 'libuv', 'libuv', 'libuv', 'libuv', 'workers', 'leveldb']);
});

test("a node process's pool sizes are read from its command line and environment as Node 20 and libuv 1.46 read them", () => {
  const validator = ['/usr/bin/node', '--max-semi-space-size=32', '/work/main/dist/cli/main.js', 'node', '--v8-pool-size=9'];
  assert.deepEqual(nodeThreadLayoutOf(validator, {}, 2, true), { platform: 6, libuv: 4 }, "defaults; an argument after the script is the script's");
  assert.deepEqual(nodeThreadLayoutOf(validator, {}, 2, false), { platform: 5, libuv: 4 }, 'no inspector, no signal thread');
  assert.deepEqual(nodeThreadLayoutOf(['node', '--v8-pool-size=2', 'x.js'], {}, 2, true), { platform: 4, libuv: 4 });
  assert.deepEqual(nodeThreadLayoutOf(['node', '--v8-pool-size', '0', 'x.js'], {}, 8, true), { platform: 9, libuv: 4 }, '0: one per core but one');
  assert.deepEqual(nodeThreadLayoutOf(['node', 'x.js'], { NODE_OPTIONS: '--max-old-space-size=100 --v8-pool-size=3' }, 2, true), { platform: 5, libuv: 4 });
  assert.deepEqual(nodeThreadLayoutOf(['node', '--v8-pool-size=1', 'x.js'], { NODE_OPTIONS: '--v8-pool-size=3' }, 2, true), { platform: 3, libuv: 4 }, 'the command line over NODE_OPTIONS');
  const uv = (v: string): number => nodeThreadLayoutOf(['node', 'x.js'], { UV_THREADPOOL_SIZE: v }, 2, true).libuv;
  assert.deepEqual(['8', '0', 'abc', '2000', ' 16x'].map(uv), [8, 1, 1, 1024, 16]);
});

test('CPU by kind is what each kind used between two samples', () => {
  const by = cpuByKind(100, samples(1), samples(2), LAYOUT);
  const rounded = Object.fromEntries(Object.entries(by).map(([k, v]) => [k, Math.round(v * 100) / 100]));
  assert.deepEqual(rounded, { main: 5, platform: 0.97, libuv: 0.2, workers: 0.25, leveldb: 0.8, other: 0.03 });
});

test('an idle worker thread is seen waiting in epoll, and the process main thread too', { skip: !existsSync('/proc/self/task') }, async () => {
  const worker = new Worker('setInterval(() => {}, 1000)', { eval: true });
  try {
    await once(worker, 'online');
    // The worker idles in its event loop; this thread waits in its own while the timers run.
    for (let i = 0; i < 20 && eventLoopsOf(process.pid).size < 2; i++) {
      await new Promise<void>((resolve) => setTimeout(resolve, 25));
      noteEventLoopThreads(process.pid);
    }
    const seen = eventLoopsOf(process.pid);
    assert.ok(seen.size >= 1, 'no thread of this process was seen waiting in epoll');
    assert.ok([...seen].some((tid) => tid !== process.pid), 'the idle worker was never seen waiting in epoll');
  } finally {
    await worker.terminate();
  }
});

test("this process's threads: what runs crypto.pbkdf2 is libuv's pool, an idle worker a worker, whatever the start ticks", { skip: !existsSync('/proc/self/task') }, async () => {
  const worker = new Worker('setInterval(() => {}, 1000)', { eval: true });
  try {
    await once(worker, 'online');
    const newest = (samples: ReadonlyMap<number, ThreadSample>): number => [...samples].sort((x, y) => x[1].start - y[1].start || x[0] - y[0]).at(-1)![0];
    const workerTid = newest(threadSamples(process.pid)!);
    for (let i = 0; i < 40 && !eventLoopsOf(process.pid).has(workerTid); i++) {
      await new Promise<void>((resolve) => setTimeout(resolve, 25));
      noteEventLoopThreads(process.pid);
    }
    const before = threadSamples(process.pid)!;
    // Four jobs at once on the pool: each of libuv's threads runs one for some 100 ms.
    await Promise.all([0, 1, 2, 3].map(() => new Promise<void>((resolve, reject) => pbkdf2('load', 'bench', 200_000, 64, 'sha512', (err) => (err ? reject(err) : resolve())))));
    const after = threadSamples(process.pid)!;
    const layout = nodeThreadLayout(process.pid);
    const kinds = threadKinds(process.pid, after, eventLoopsOf(process.pid), layout);
    const busy = [...after].filter(([tid, s]) => tid !== process.pid && s.ticks - (before.get(tid)?.ticks ?? 0) >= 3).map(([tid]) => tid);
    assert.ok(busy.length > 0, 'no thread ran the pbkdf2 jobs');
    assert.deepEqual(busy.map((tid) => kinds.get(tid)), busy.map(() => 'libuv'), `threads that ran pbkdf2: ${busy.join(', ')}; kinds ${JSON.stringify([...kinds])}`);
    const count = (k: string): number => [...kinds.values()].filter((x) => x === k).length;
    assert.equal(count('platform'), layout.platform);
    assert.equal(count('libuv'), layout.libuv);
    assert.equal(newest(after), workerTid);
    assert.equal(kinds.get(workerTid), 'workers', 'the worker started last, and idles in epoll');
  } finally {
    await worker.terminate();
  }
});
