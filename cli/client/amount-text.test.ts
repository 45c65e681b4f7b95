import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseCliAmount } from './amount-text.js';

test('amounts typed on the command line: COIN as decimal text, ucoin with its unit, nothing else', () => {
  assert.equal(parseCliAmount('1.5'), 1_500_000n);
  assert.equal(parseCliAmount('2'), 2_000_000n);
  assert.equal(parseCliAmount('0.000001'), 1n);
  assert.equal(parseCliAmount('1.5 COIN'), 1_500_000n);
  assert.equal(parseCliAmount('12COIN'), 12_000_000n);
  assert.equal(parseCliAmount('1500000ucoin'), 1_500_000n);
  assert.equal(parseCliAmount('7 ucoin'), 7n);
  // Exact beyond what a double holds: 2^53 + 1 COIN and a sixth decimal.
  assert.equal(parseCliAmount('9007199254740993.000001'), 9_007_199_254_740_993_000_001n);
  for (const bad of ['', '1.0000001', '-1', '1e3', '0x10', '1,5', '.5', '1.', 'lots', '1.5ucoin', 'ucoin']) assert.equal(parseCliAmount(bad), null, bad);
});
