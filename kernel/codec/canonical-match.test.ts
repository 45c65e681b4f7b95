import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalJson } from './json.js';
import { isCanonicalJsonOf, type LongStringInText } from './canonical-match.js';
import { mulberry32, testSeed } from '../../test/helpers/prng.js';

type Rand = () => number;
const pick = <T>(r: Rand, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

/** Strings that exercise every escaping rule: quotes, backslashes, controls, DEL, non-ASCII, lone and paired surrogates. */
function randomString(r: Rand): string {
  const alphabet = ['a', 'Z', '0', ' ', '"', '\\', '/', '\n', '\t', '\u0001', '\u001f', '\u007f', 'é', '€', '\ud83d\ude00', '\ud800', '\udfff', '\u2028'];
  if (r() < 0.2) return 'ab'.repeat(Math.floor(r() * 3000)); // long and plain, like a hex signature
  return Array.from({ length: Math.floor(r() * 6) }, () => pick(r, alphabet)).join('');
}

function randomKey(r: Rand): string {
  return pick(r, ['a', 'b', 'from', 'to', 'value', '10', '9', '__proto__', 'é', 'a"b', '', 'Z', 'signature']);
}

function randomValue(r: Rand, depth: number): unknown {
  const kind = Math.floor(r() * (depth > 2 ? 6 : 9));
  switch (kind) {
    case 0:
      return randomString(r);
    case 1:
      return pick(r, [0, -0, 1, -1, 0.1, 1e21, 2 ** 53 - 1, 123456789, 5e-7]);
    case 2:
      return pick(r, [true, false]);
    case 3:
      return null;
    case 4:
      return BigInt(Math.floor(r() * 1e9)) * 10n ** BigInt(Math.floor(r() * 20));
    case 5:
      return undefined;
    case 6:
    case 7: {
      const o: Record<string, unknown> = {};
      const n = Math.floor(r() * 6);
      // defineProperty, so a key named __proto__ is an own property as JSON.parse makes it.
      for (let i = 0; i < n; i++) Object.defineProperty(o, randomKey(r), { value: randomValue(r, depth + 1), enumerable: true, configurable: true, writable: true });
      return o;
    }
    default:
      return Array.from({ length: Math.floor(r() * 4) }, () => randomValue(r, depth + 1));
  }
}

/** One random edit of a text: what a sloppy or hostile sender would change. */
function mutate(r: Rand, s: string): string {
  const at = Math.floor(r() * (s.length + 1));
  switch (Math.floor(r() * 5)) {
    case 0:
      return s.slice(0, at) + pick(r, [' ', '\n', ',', '"', '}', '0', 'a']) + s.slice(at);
    case 1:
      return s.slice(0, at) + s.slice(at + 1);
    case 2:
      return s.slice(0, at) + s.charAt(at + 1) + s.charAt(at) + s.slice(at + 2);
    case 3:
      return s.replace('"a"', '"\\u0061"');
    default:
      return s + pick(r, ['', ' ', '}', '\n']);
  }
}

/** Whatever the full comparison says, including when it throws. */
function oracle(text: string, value: unknown): boolean | 'throws' {
  try {
    return canonicalJson(value) === text;
  } catch {
    return 'throws';
  }
}

function answer(text: string, value: unknown): boolean | 'throws' {
  try {
    return isCanonicalJsonOf(text, value);
  } catch {
    return 'throws';
  }
}

test('isCanonicalJsonOf answers exactly as canonicalJson(value) === text, over random values, edits and key orders', () => {
  const seed = testSeed('canonical-match');
  const r = mulberry32(seed);
  for (let i = 0; i < 3000; i++) {
    const v = randomValue(r, 0);
    const canonical = oracle('', v) === 'throws' ? null : canonicalJson(v);
    if (canonical !== null) assert.equal(isCanonicalJsonOf(canonical, v), true, `seed ${seed}, case ${i}: its own canonical text`);
    const texts = [
      mutate(r, canonical ?? '{}'),
      mutate(r, mutate(r, canonical ?? '[]')),
      // Insertion order instead of sorted keys, as most encoders write.
      (() => {
        try {
          return JSON.stringify(v) ?? '';
        } catch {
          return '';
        }
      })(),
    ];
    for (const t of texts) assert.equal(answer(t, v), oracle(t, v), `seed ${seed}, case ${i}: text ${JSON.stringify(t.slice(0, 200))}`);
    // The admission path: a text parsed, then checked against what it parsed to.
    for (const t of texts) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(t);
      } catch {
        continue;
      }
      assert.equal(answer(t, parsed), oracle(t, parsed), `seed ${seed}, case ${i}: parsed ${JSON.stringify(t.slice(0, 200))}`);
    }
  }
});

test('values canonicalJson refuses or converts are decided (or refused) by canonicalJson itself', () => {
  assert.throws(() => isCanonicalJsonOf('{"x":NaN}', { x: Number.NaN }), TypeError);
  assert.throws(() => isCanonicalJsonOf('[1]', [() => 1]), TypeError);
  assert.throws(() => isCanonicalJsonOf('"AQ=="', new Uint8Array([1])), TypeError);
  const withToJson = { toJSON: () => ({ b: 1, a: 2 }) };
  assert.equal(isCanonicalJsonOf('{"a":2,"b":1}', withToJson), true);
  assert.equal(isCanonicalJsonOf('{"b":1,"a":2}', withToJson), false);
});

test('a transfer body: canonical text accepted, any other spelling of it refused', () => {
  const body = { to: 'chain:b.human', from: 'chain:a.human', value: 5, nonce: 1, public_key: 'ab'.repeat(976), signature: 'cd'.repeat(3309) };
  const canonical = canonicalJson(body);
  assert.equal(isCanonicalJsonOf(canonical, JSON.parse(canonical)), true);
  assert.equal(isCanonicalJsonOf(JSON.stringify(body), body), false, 'insertion order');
  assert.equal(isCanonicalJsonOf(canonical.replace('"value":5', '"value":5.0'), body), false, 'another number spelling');
  assert.equal(isCanonicalJsonOf(canonical.replace('"nonce"', '"non\\u0063e"'), body), false, 'an escaped key');
  assert.equal(isCanonicalJsonOf(canonical + ' ', body), false, 'trailing whitespace');
  assert.equal(isCanonicalJsonOf(canonical.slice(0, -2) + '"}', body), false, 'a cut signature');
});

test('long unescaped string values are reported where they stand in the text, escaped or short ones are not', () => {
  const body = { a: 'x'.repeat(64), b: 'short', c: 'q"'.repeat(40), d: { e: 'y'.repeat(100) }, f: ['z'.repeat(100)] };
  const text = canonicalJson(body);
  const found: LongStringInText[] = [];
  assert.equal(isCanonicalJsonOf(text, body, found), true);
  assert.deepEqual(found.map((s) => s.key), ['a', 'e'], 'array elements and escaped strings are left alone');
  for (const s of found) assert.equal(text.substring(s.start, s.end), s.holder[s.key]);
  // What the walk fell back on (a value it does not mirror) reports nothing.
  const unusual: LongStringInText[] = [];
  const withDate = { a: 'x'.repeat(64), t: new Date(0) };
  assert.equal(isCanonicalJsonOf(canonicalJson(withDate), withDate, unusual), true);
  assert.deepEqual(unusual, []);
});
