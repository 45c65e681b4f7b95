import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_MEMPOOL_MAX_BYTES, Mempool, MempoolFullError } from './mempool.js';
import type { Tx } from '../model/types.js';

function tx(from: string, nonce: number, hash = `${from}-${nonce}`): Tx {
  return { hash, origin: 'signed', target: 'transfer', from, to: 'b', value: 1n, nonce: BigInt(nonce), gasPrice: 1n, data: undefined, body: {}, canonical: '{}', sigVersion: 'v2', receivedAt: 0 };
}
/** An operation: a millisecond nonce, kept per actor in arrival order. */
function op(from: string, nonce: number, hash = `${from}-op${nonce}`): Tx {
  return { ...tx(from, nonce, hash), target: 'op:note', nonce: BigInt(1_700_000_000_000 + nonce) };
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

test('a nonce the chain has taken is dropped alone: the nonces behind it stay', () => {
  const m = new Mempool({ maxTxs: 100, maxPerSender: 10 });
  // a-5 came out of admission after the block carrying it (confirmed nonce 5) had committed; a-6 followed it in.
  m.add(tx('a', 5));
  m.add(tx('a', 6));
  m.add(tx('a', 7));
  assert.deepEqual(m.dropTaken('a', 5n).map((t) => t.hash), ['a-5']);
  assert.deepEqual(m.pendingOf('a').map((t) => t.hash), ['a-6', 'a-7']);
  assert.equal(m.nextNonce('a', 5n), 8n);
  assert.deepEqual(m.select(1000, gas).map((t) => t.hash), ['a-6', 'a-7']);
  assert.deepEqual(m.dropTaken('a', 5n), [], 'nothing else is taken');
  assert.deepEqual(m.dropTaken('b', 9n), []);
});

test('size bounds', () => {
  const m = new Mempool({ maxTxs: 2, maxPerSender: 1 });
  m.add(tx('a', 1));
  assert.throws(() => m.add(tx('a', 2)), MempoolFullError);
  m.add(tx('b', 1));
  assert.throws(() => m.add(tx('c', 1)), /mempool is full/);
});

test('selection keeps within the byte budget, passing over what does not fit for what does', () => {
  const m = new Mempool({ maxTxs: 100, maxPerSender: 10 });
  m.add(tx('a', 1));
  m.add(tx('b', 1));
  m.add(tx('c', 1));
  m.add(tx('d', 1));
  assert.deepEqual(m.select(1000, gas, 100, 25, () => 10).map((t) => t.hash), ['a-1', 'b-1']);
  assert.deepEqual(m.select(1000, gas, 100, 25, (t) => (t.hash === 'a-1' ? 20 : 10)).map((t) => t.hash), ['a-1'], 'after a-1, 5 bytes are left');
  assert.deepEqual(m.select(1000, gas, 100, 25, (t) => (t.hash === 'b-1' ? 20 : 10)).map((t) => t.hash), ['a-1', 'c-1'], 'b-1 does not fit what is left, c-1 does');
});

test('a block fills with everything that fits: a large declared limit is passed over, not a wall in front of what arrived after it (issue 29, item 7)', () => {
  const m = new Mempool({ maxTxs: 100, maxPerSender: 10 });
  m.add(tx('s', 1));
  m.add(tx('big', 1));
  m.add(tx('big', 2));
  for (const x of ['c', 'd', 'e']) m.add(tx(x, 1));
  const limits = (t: Tx): number => (t.hash === 'big-1' ? 90 : 21);
  assert.deepEqual(m.select(100, limits).map((t) => t.hash), ['s-1', 'c-1', 'd-1', 'e-1'], 'big-1 needs 90 of the 79 left; its nonce 2 waits behind it; the rest fit');
  // An actor's later operations wait behind one passed over: their nonces would make it stale.
  const o = new Mempool({ maxTxs: 100, maxPerSender: 10 });
  o.add(op('x', 1));
  o.add(op('x', 2));
  o.add(op('y', 1));
  const opLimits = (t: Tx): number => (t.hash === 'x-op1' ? 200 : 21);
  assert.deepEqual(o.select(100, opLimits).map((t) => t.hash), ['y-op1']);
});

test('a gas limit no block can hold is passed over with its sender\'s later nonces, not in front of everyone else', () => {
  const m = new Mempool({ maxTxs: 100, maxPerSender: 10 });
  m.add(tx('a', 1));
  m.add(tx('a', 2));
  m.add(tx('b', 1));
  const limits = (t: Tx): number => (t.hash === 'a-1' ? 500 : 21);
  assert.deepEqual(m.select(100, limits).map((t) => t.hash), ['b-1']);
});

test('pendingSpend sums what each pending transaction holds of the account: its holds, else value + fee of its limit; released when it leaves', () => {
  const m = new Mempool({ maxTxs: 100, maxPerSender: 10 });
  // A name's price held besides the fee, from the signing account.
  m.add({ ...op('a', 1), value: 0n, holds: [{ account: 'a', amount: 10_000_100n }] });
  // A vault payout: the signed amount is the vault's to pay, so only the fee is held of its proposer.
  m.add({ ...op('a', 2), value: 5_000_000n, holds: [{ account: 'a', amount: 60n }] });
  // A fee paid by a sponsor: the value of the sender, the fee of the sponsor.
  m.add({ ...tx('a', 1), holds: [{ account: 'a', amount: 1n }, { account: 'sponsor', amount: 21n }] });
  // Without holds: value + fee of its limit from `from`.
  m.add(tx('b', 1));
  assert.equal(m.pendingSpend('a', gas), 10_000_100n + 60n + 1n);
  assert.equal(m.pendingSpend('sponsor', gas), 21n);
  assert.equal(m.pendingSpend('b', gas), 22n);
  m.removeCommitted(['a-op1', 'a-1']);
  assert.equal(m.pendingSpend('a', gas), 60n);
  assert.equal(m.pendingSpend('sponsor', gas), 0n);
  m.evict('a-op2');
  assert.equal(m.pendingSpend('a', gas), 0n);
});

test('bounded by the bytes of pending texts too: a refusal holds nothing, a removal frees its bytes', () => {
  const sized = (from: string, nonce: number, bytes: number): Tx => ({ ...tx(from, nonce), canonical: 'x'.repeat(bytes) });
  const m = new Mempool({ maxTxs: 100, maxPerSender: 10, maxBytes: 1_000 });
  m.add(sized('a', 1, 600));
  m.add(sized('b', 1, 400));
  assert.equal(m.bytes, 1_000);
  assert.throws(() => m.add(sized('c', 1, 1)), /mempool is full \(1000 bytes of pending transactions\)/);
  assert.equal(m.bytes, 1_000, 'the refused one counts nothing');
  assert.deepEqual(m.pendingOf('c'), []);
  m.removeCommitted(['a-1']);
  assert.equal(m.bytes, 400);
  m.add(sized('c', 1, 600));
  // UTF-8 bytes, not UTF-16 units: 'é' is two bytes.
  m.removeCommitted(['b-1', 'c-1']);
  m.add({ ...tx('d', 1), canonical: 'é'.repeat(500) });
  assert.equal(m.bytes, 1_000);
  assert.equal(m.size, 1);
});

test('the byte bound defaults to DEFAULT_MEMPOOL_MAX_BYTES', () => {
  const m = new Mempool({ maxTxs: 100, maxPerSender: 10 });
  assert.throws(() => m.add({ ...tx('a', 1), canonical: 'x'.repeat(DEFAULT_MEMPOOL_MAX_BYTES + 1) }), MempoolFullError);
  assert.equal(m.bytes, 0);
});

test('system transactions by target, in arrival order, gone once committed or evicted', () => {
  const m = new Mempool({ maxTxs: 100, maxPerSender: 10 });
  const relay = (target: string, hash: string): Tx => ({ ...tx('chain:system.relay', 0, hash), origin: 'system', target, nonce: 0n });
  m.add(relay('xshard.commit', 'c1'));
  m.add(tx('a', 1));
  m.add(relay('xshard.ack', 'k1'));
  m.add(relay('xshard.commit', 'c2'));
  assert.deepEqual(m.systemNamed('xshard.commit').map((t) => t.hash), ['c1', 'c2']);
  assert.deepEqual(m.systemNamed('xshard.ack').map((t) => t.hash), ['k1']);
  assert.deepEqual(m.systemNamed('transfer'), [], 'signed transactions are not system ones');
  m.removeCommitted(['c1']);
  m.evict('k1');
  assert.deepEqual(m.systemNamed('xshard.commit').map((t) => t.hash), ['c2']);
  assert.deepEqual(m.systemNamed('xshard.ack'), []);
});
