import { test } from 'node:test';
import assert from 'node:assert/strict';
import { labelProblem, NAME_PRICE_DEFAULT, NAME_PRICE_MAX, namePrice } from './price.js';

test('the price by length: base × 2^(8 − len) below 8, base from 8 on (decisions.md §38 defaults)', () => {
  assert.equal(namePrice(1, NAME_PRICE_DEFAULT), 1_280_000_000n);
  assert.equal(namePrice(7, NAME_PRICE_DEFAULT), 20_000_000n);
  assert.equal(namePrice(8, NAME_PRICE_DEFAULT), 10_000_000n);
  assert.equal(namePrice(32, NAME_PRICE_DEFAULT), 10_000_000n);
  const defaults = [1_280_000_000n, 640_000_000n, 320_000_000n, 160_000_000n, 80_000_000n, 40_000_000n, 20_000_000n];
  defaults.forEach((p, i) => assert.equal(namePrice(i + 1, NAME_PRICE_DEFAULT), p));
});

test('the price at the parameter\'s bounds is exact in integers', () => {
  assert.equal(namePrice(1, NAME_PRICE_MAX), 128_000_000_000_000n);
  assert.equal(namePrice(3, 1n), 32n);
  assert.equal(namePrice(9, 1n), 1n);
  assert.throws(() => namePrice(0, 1n), RangeError);
});

test('labels: §32 characters, 15 hex refused for .human, 10 hex for .app, each only for its kind', () => {
  assert.equal(labelProblem('alice', 'human'), undefined);
  assert.equal(labelProblem('a-b-9', 'agent'), undefined);
  for (const bad of ['', '-a', 'a-', 'Alice', 'a_b', 'a.b', 'x'.repeat(33)]) assert.equal(labelProblem(bad, 'human')?.status, 400, bad);
  assert.match(labelProblem('0123456789abcde', 'human')!.message, /shadow/);
  assert.equal(labelProblem('0123456789abcde', 'agent'), undefined);
  assert.match(labelProblem('0123456789', 'app')!.message, /shadow/);
  assert.equal(labelProblem('0123456789', 'human'), undefined);
});
