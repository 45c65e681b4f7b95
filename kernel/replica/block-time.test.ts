import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_TIMESTAMP_PRECISION_MS, isTimely } from './block-time.js';

test('a block time up to the precision ahead of arrival is timely; beyond it is not', () => {
  const arrived = 1_800_000_000_000;
  assert.equal(isTimely(arrived, arrived, DEFAULT_TIMESTAMP_PRECISION_MS), true);
  assert.equal(isTimely(arrived + DEFAULT_TIMESTAMP_PRECISION_MS, arrived, DEFAULT_TIMESTAMP_PRECISION_MS), true);
  assert.equal(isTimely(arrived + DEFAULT_TIMESTAMP_PRECISION_MS + 1, arrived, DEFAULT_TIMESTAMP_PRECISION_MS), false);
  assert.equal(isTimely(arrived + 1, arrived, 0), false);
});

test('an old block time is timely: the next correct proposer brings chain time back', () => {
  assert.equal(isTimely(1_700_000_000_000, 1_800_000_000_000, DEFAULT_TIMESTAMP_PRECISION_MS), true);
});
