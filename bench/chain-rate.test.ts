import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chainRate } from './chain-rate.js';

const block = (height: number, seen: number, txs: number) => ({ height, seen, txs });

test('the chain rate counts the transactions of the blocks seen in the phase but the first, over their span', () => {
  // A block of 200 every second from t = 500, the phase from 0 to 4,000: blocks at 500 … 3,500.
  const blocks = [block(1, -500, 999), ...[0, 1, 2, 3].map((i) => block(i + 2, 500 + i * 1000, 200)), block(6, 4_500, 999)];
  assert.equal(chainRate(blocks, 0, 4_000), 200);
  // Whoever sent them: the rate does not depend on which transactions the blocks hold.
  assert.equal(chainRate(blocks.map((b) => ({ ...b, txs: b.txs === 200 ? 100 : b.txs })), 0, 4_000), 100);
});

test('fewer than two blocks in the phase give no rate', () => {
  assert.equal(chainRate([], 0, 1_000), null);
  assert.equal(chainRate([block(1, 10, 5)], 0, 1_000), null);
  assert.equal(chainRate([block(1, 10, 5), block(2, 10, 5)], 0, 1_000), null);
});
