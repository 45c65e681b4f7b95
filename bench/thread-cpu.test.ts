import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { cpuByKind, eventLoopsOf, noteEventLoopThreads, threadKinds } from './thread-cpu.js';

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
  const kinds = threadKinds(100, samples(1));
  assert.deepEqual(
    threads.map(([tid]) => kinds.get(tid)),
    ['main', 'platform', 'platform', 'platform', 'platform', 'platform', 'platform', 'libuv', 'libuv', 'libuv', 'libuv', 'workers', 'workers', 'leveldb', 'other'],
  );
  // Once the threads seen waiting in epoll are known, the consensus worker is a worker too.
  assert.equal(threadKinds(100, samples(1), new Set([100, 154, 155, 656])).get(656), 'workers');
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
  const byOrder = threadKinds(100, small, new Set());
  assert.equal(byOrder.get(152), 'leveldb', 'start order alone mistakes the consensus worker for LevelDB');
  const kinds = threadKinds(100, small, new Set([100, 148, 149, 152]));
  assert.deepEqual([148, 149, 152, 170].map((tid) => kinds.get(tid)), ['workers', 'workers', 'workers', 'leveldb']);
});

test('CPU by kind is what each kind used between two samples', () => {
  const by = cpuByKind(100, samples(1), samples(2));
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
