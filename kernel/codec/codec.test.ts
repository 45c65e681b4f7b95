import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalJson, stringify } from './json.js';
import { sortedKeys } from './sorted-keys.js';
import { formatCoin, wireAmount } from './amount.js';
import { parseHex, toHex0x, isHash0x } from './hex.js';

test('bigint amounts are JSON integers on the wire; canonical form sorts keys', () => {
  assert.equal(stringify({ b: 2n ** 70n, a: [1, undefined, 'x'] }), '{"b":1180591620717411303424,"a":[1,null,"x"]}');
  assert.equal(canonicalJson({ b: 1, a: { d: 1n, c: null }, u: undefined }), '{"a":{"c":null,"d":1},"b":1}');
  assert.throws(() => stringify({ x: Number.NaN }));
});

test('*_human strings', () => {
  assert.equal(formatCoin(50_000_000n), '50 COIN');
  assert.equal(formatCoin(21n), '0.000021 COIN');
  assert.equal(formatCoin(1_500_000n), '1.5 COIN');
  assert.equal(formatCoin(0n), '0 COIN');
  assert.equal(formatCoin(-42n), '-0.000042 COIN');
});

test('wire amounts: non-negative safe integers only', () => {
  assert.equal(wireAmount(5), 5n);
  assert.equal(wireAmount('5'), null);
  assert.equal(wireAmount(1.5), null);
  assert.equal(wireAmount(-1), null);
  assert.equal(wireAmount(2 ** 53), null);
});

test('hex parsing is strict', () => {
  assert.deepEqual(parseHex('0x0aff'), Uint8Array.of(10, 255));
  assert.equal(parseHex('abc'), null);
  assert.equal(parseHex('zz'), null);
  assert.equal(parseHex('00', 2), null);
  assert.ok(isHash0x(toHex0x(new Uint8Array(32))));
  assert.equal(isHash0x('0x' + 'A'.repeat(64)), false);
});

test('canonical JSON of flat objects matches the general encoder, key order, __proto__ and integer keys included', () => {
  const body = JSON.parse('{"z":1,"__proto__":"p","a":"x\\"y","m":null,"t":true,"10":1,"9":2}') as Record<string, unknown>;
  assert.equal(canonicalJson(body), '{"10":1,"9":2,"__proto__":"p","a":"x\\"y","m":null,"t":true,"z":1}');
  assert.equal(canonicalJson({ b: 'x', a: undefined, c: 2.5 }), '{"b":"x","c":2.5}');
  assert.throws(() => canonicalJson({ a: Number.NaN }), /non-finite/);
  assert.equal(canonicalJson({ b: 1n, a: [2n] }), '{"a":[2],"b":1}');
});

test('sortedKeys gives the order sort() gives, whether or not the keys were in it already', () => {
  assert.deepEqual(sortedKeys({ a: 1, b: 2, c: 3 }), ['a', 'b', 'c']);
  assert.deepEqual(sortedKeys({ c: 1, a: 2, b: 3 }), ['a', 'b', 'c']);
  // Integer-like keys come first in numeric order from Object.keys; sort() orders them as strings.
  assert.deepEqual(sortedKeys({ x: 1, 10: 1, 9: 1 }), ['10', '9', 'x']);
  assert.deepEqual(sortedKeys({ Z: 1, a: 1, é: 1, _: 1 }), ['Z', '_', 'a', 'é']);
  assert.deepEqual(sortedKeys({}), []);
  // Longer than the insertion-sort bound, and random orders of every size up to it.
  const many = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${(i * 7919) % 40}`, i]));
  assert.deepEqual(sortedKeys(many), Object.keys(many).sort());
  let seed = 17;
  for (let n = 0; n <= 33; n++) {
    const o: Record<string, number> = {};
    for (let i = 0; i < n; i++) o[`${String.fromCharCode(97 + ((seed = (seed * 1103515245 + 12345) >>> 0) % 26))}${i}`] = i;
    assert.deepEqual(sortedKeys(o), Object.keys(o).sort(), `${n} keys`);
  }
});
