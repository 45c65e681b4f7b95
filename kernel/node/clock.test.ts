import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseClockOffset, skewedClock } from './clock.js';

test('the clock offset is an integer of milliseconds; anything else is refused naming the variable', () => {
  assert.equal(parseClockOffset(undefined), 0);
  assert.equal(parseClockOffset(''), 0);
  assert.equal(parseClockOffset('2000'), 2000);
  assert.equal(parseClockOffset('-2000'), -2000);
  assert.equal(parseClockOffset('+15'), 15);
  for (const bad of ['1.5', '2s', 'abc', '86400001', '-86400001']) assert.throws(() => parseClockOffset(bad), /CHAIN_CLOCK_OFFSET_MS/, bad);
});

test('a skewed clock is the base clock shifted by the offset', () => {
  let t = 1_000;
  const base = (): number => t;
  const ahead = skewedClock(2_000, base);
  const behind = skewedClock(-2_000, base);
  assert.equal(ahead(), 3_000);
  assert.equal(behind(), -1_000);
  t = 5_000;
  assert.equal(ahead(), 7_000);
  assert.equal(skewedClock(0, base), base, 'no offset: the base clock itself');
});
