import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ACTIVITY_INTERVALS, ActivityWindow, activityOf, NO_ACTIVITY, type Activity } from './activity.js';

test('tps is an integer: 10 transactions over 3 s of blocks is 3, 5 over 2 s is 3 (rounded)', () => {
  assert.deepEqual(activityOf(10, 3000, 15), { tps: 3, blockMs: 200 });
  assert.deepEqual(activityOf(5, 2000, 10), { tps: 3, blockMs: 200 });
  assert.deepEqual(activityOf(1, 3000, 20), { tps: 0, blockMs: 150 });
  for (const [txs, span] of [[7, 999], [1234, 20_001], [3, 7000]] as const) assert.ok(Number.isInteger(activityOf(txs, span, 20).tps));
});

test('no time elapsed or no interval is no activity, not a division by zero', () => {
  assert.deepEqual(activityOf(10, 0, 20), NO_ACTIVITY);
  assert.deepEqual(activityOf(10, 1000, 0), NO_ACTIVITY);
});

test('the window reads each block once as it moves, and answers what reading all 21 would', async () => {
  const header = (h: number): { tx_count: number; timestamp: number } => ({ tx_count: (h * 7) % 5, timestamp: 1_000 + h * 300 + (h % 3) * 17 });
  const reads: number[] = [];
  const window = new ActivityWindow(async (h) => {
    reads.push(h);
    return h < 4 ? undefined : { header: header(h) };
  });
  const naive = (top: number): Activity => {
    const from = Math.max(1, top - ACTIVITY_INTERVALS);
    if (top < 2 || from < 4) return NO_ACTIVITY;
    let txs = 0;
    for (let h = from + 1; h <= top; h++) txs += header(h).tx_count;
    return activityOf(txs, header(top).timestamp - header(from).timestamp, top - from);
  };
  for (let top = 0; top <= 60; top++) assert.deepEqual(await window.at(top), naive(top), `top ${top}`);
  const counts = new Map<number, number>();
  for (const h of reads) counts.set(h, (counts.get(h) ?? 0) + 1);
  for (const [h, n] of counts) assert.ok(h < 4 || n === 1, `block ${h} read ${n} times`);
  assert.ok(counts.get(1)! > 1, 'a block the node does not hold is asked again');
});
