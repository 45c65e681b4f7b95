import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readU64, txByAddressKey, u32, u64 } from './keys.js';
import { toHex } from '../codec/hex.js';

test('u64 and u32 key parts are big-endian, so byte order is numeric order, and refuse what they cannot hold', () => {
  assert.equal(toHex(u64(0)), '0000000000000000');
  assert.equal(toHex(u64(258)), '0000000000000102');
  assert.equal(toHex(u64(2 ** 32)), '0000000100000000');
  assert.equal(toHex(u64(Number.MAX_SAFE_INTEGER)), '001fffffffffffff');
  for (const n of [0, 1, 255, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 40 + 7, Number.MAX_SAFE_INTEGER]) assert.equal(readU64(u64(n)), n);
  assert.equal(toHex(u32(0xdeadbeef)), 'deadbeef');
  assert.equal(toHex(u32(1)), '00000001');
  for (const bad of [-1, 1.5, Number.NaN, 2 ** 53]) assert.throws(() => u64(bad), RangeError);
  for (const bad of [-1, 0.5, 2 ** 32]) assert.throws(() => u32(bad), RangeError);
  const keys = [[7, 3], [7, 2], [2 ** 32, 0], [256, 1]].map(([h, i]) => toHex(txByAddressKey('chain:a.human', h!, i!)));
  assert.deepEqual([...keys].sort(), [keys[1], keys[0], keys[3], keys[2]]);
});
