import { test } from 'node:test';
import assert from 'node:assert/strict';
import { activityOf, NO_ACTIVITY } from './activity.js';

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
