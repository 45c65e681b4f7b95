import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpuByKind, threadKinds } from './thread-cpu.js';

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
  [200, 1620, 80], // LevelDB's background thread, at the first memtable flush
  [656, 16000, 3], // a late thread
];

const samples = (scale: number): Map<number, { ticks: number; start: number }> => new Map(threads.map(([tid, start, ticks]) => [tid, { start, ticks: ticks * scale }]));

test('threads are told apart by the order Node starts them', () => {
  const kinds = threadKinds(100, samples(1));
  assert.deepEqual(
    threads.map(([tid]) => kinds.get(tid)),
    ['main', 'platform', 'platform', 'platform', 'platform', 'platform', 'platform', 'libuv', 'libuv', 'libuv', 'libuv', 'verify', 'verify', 'leveldb', 'other'],
  );
});

test('CPU by kind is what each kind used between two samples', () => {
  const by = cpuByKind(100, samples(1), samples(2));
  const rounded = Object.fromEntries(Object.entries(by).map(([k, v]) => [k, Math.round(v * 100) / 100]));
  assert.deepEqual(rounded, { main: 5, platform: 0.97, libuv: 0.2, verify: 0.25, leveldb: 0.8, other: 0.03 });
});
