import { test } from 'node:test';
import assert from 'node:assert/strict';
import { amountToUcoin, MAX_UCOIN } from './amount.js';

const ucoin = (a: unknown): bigint => {
  const r = amountToUcoin(a);
  assert.ok(r.ok, `${JSON.stringify(a)}: ${r.ok ? '' : r.reason}`);
  return r.ucoin;
};
const refused = (a: unknown, re: RegExp): void => {
  const r = amountToUcoin(a);
  assert.ok(!r.ok, `${JSON.stringify(a)} was accepted as ${r.ok ? r.ucoin : ''}`);
  assert.match(r.reason, re);
};

test('decimal text is converted on its digits, never through floating point', () => {
  assert.equal(ucoin('0.000001'), 1n, 'the smallest amount: one ucoin');
  assert.equal(ucoin('0.123457'), 123_457n);
  assert.equal(ucoin('1.005'), 1_005_000n, 'where 1.005 * 1e6 is 1004999.9999999999');
  assert.equal(ucoin('12'), 12_000_000n);
  assert.equal(ucoin('9007199254.740991'), 9_007_199_254_740_991n, '2^53 - 1 ucoin, the most a value carries');
  assert.equal(ucoin('9007199254.740991'), MAX_UCOIN);
});

test('a JSON number goes through its shortest decimal form', () => {
  assert.equal(ucoin(1.005), 1_005_000n, 'String(1.005) is "1.005"');
  assert.equal(ucoin(0.1), 100_000n);
  assert.equal(ucoin(0.000001), 1n);
  assert.equal(ucoin(5), 5_000_000n);
  refused(1e21, /exponent form/); // String(1e21) is "1e+21"
  refused(1e-7, /exponent form/); // String(1e-7) is "1e-7"
  refused(0.1234567, /7 decimals.*at most 6/);
});

test('leading zeros are digits like any other', () => {
  assert.equal(ucoin('007'), 7_000_000n);
  assert.equal(ucoin('00.5'), 500_000n);
  assert.equal(ucoin('0000.000001'), 1n);
});

test('refusals name the rule', () => {
  refused('0.1234567', /7 decimals: ucoin is the 6th decimal of a COIN.*at most 6 decimals/);
  refused('1e-7', /exponent form/);
  refused('1E3', /exponent form/);
  refused('.', /not a decimal number of COIN/);
  refused('1.', /not a decimal number of COIN/);
  refused('.5', /not a decimal number of COIN/);
  refused('', /not a decimal number/);
  refused(' 1', /not a decimal number/);
  refused('1,5', /not a decimal number/);
  refused('0x10', /not a decimal number/);
  refused('-1', /negative/);
  refused(-1, /negative/);
  refused('0', /zero/);
  refused(0, /zero/);
  refused('0.000000', /zero/);
  refused('9007199254.740992', /above 2\^53 - 1 \(9007199254740991\) ucoin/);
  refused(9007199255, /above 2\^53 - 1/);
  refused(true, /decimal text.*or a JSON number/);
  refused(Number.NaN, /decimal text.*or a JSON number/);
});
