import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Mempool, MempoolFullError } from './mempool.js';
import type { Tx } from '../chain/types.js';

function tx(from: string, nonce: number, hash = `${from}-${nonce}`): Tx {
  return { hash, origin: 'signed', target: 'transfer', from, to: 'b', value: 1n, nonce: BigInt(nonce), gasPrice: 1n, data: undefined, body: {}, canonical: '{}', sigVersion: 'v2', receivedAt: 0 };
}
const gas = (): number => 21;

test('per-sender nonce order, selection within the gas budget', () => {
  const m = new Mempool({ maxTxs: 100, maxPerSender: 10 });
  m.add(tx('a', 1));
  m.add(tx('b', 1));
  m.add(tx('a', 2));
  assert.equal(m.nextNonce('a', 0n), 3n);
  assert.equal(m.nextNonce('c', 5n), 6n);
  assert.throws(() => m.add(tx('a', 4)), /does not follow/);
  assert.deepEqual(m.select(42, gas).map((t) => t.hash), ['a-1', 'b-1']);
  assert.deepEqual(m.select(1000, gas).map((t) => t.hash), ['a-1', 'b-1', 'a-2']);
  assert.equal(m.pendingSpend('a', gas), 44n);
  m.removeCommitted(['a-1']);
  assert.deepEqual(m.select(1000, gas).map((t) => t.hash), ['b-1', 'a-2']);
  assert.deepEqual(m.evict('a-2').map((t) => t.hash), ['a-2']);
  assert.equal(m.size, 1);
});

test('size bounds', () => {
  const m = new Mempool({ maxTxs: 2, maxPerSender: 1 });
  m.add(tx('a', 1));
  assert.throws(() => m.add(tx('a', 2)), MempoolFullError);
  m.add(tx('b', 1));
  assert.throws(() => m.add(tx('c', 1)), /mempool is full/);
});

test('selection stops at the byte budget', () => {
  const m = new Mempool({ maxTxs: 100, maxPerSender: 10 });
  m.add(tx('a', 1));
  m.add(tx('b', 1));
  m.add(tx('c', 1));
  assert.deepEqual(m.select(1000, gas, 100, 25, () => 10).map((t) => t.hash), ['a-1', 'b-1']);
});

test('a gas limit no block can hold is passed over with its sender\'s later nonces, not in front of everyone else', () => {
  const m = new Mempool({ maxTxs: 100, maxPerSender: 10 });
  m.add(tx('a', 1));
  m.add(tx('a', 2));
  m.add(tx('b', 1));
  const limits = (t: Tx): number => (t.hash === 'a-1' ? 500 : 21);
  assert.deepEqual(m.select(100, limits).map((t) => t.hash), ['b-1']);
});
