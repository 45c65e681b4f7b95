import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isChainError, toHex } from '../../kernel/sdk.js';
import { jsonTextDepth } from '../../kernel/sdk.js';
import { callInput, deployFromData, initDecimals, initializeInput, MAX_DATA_NESTING, toUnits } from './calls.js';
import { eventData, MAX_EVENT_NESTING } from './execute.js';

const text = (b: Uint8Array): string => new TextDecoder().decode(b);
const refused = (fn: () => unknown, re: RegExp) => assert.throws(fn, (e: unknown) => isChainError(e) && e.status === 400 && re.test(e.message));

test('amounts: whole tokens in the smallest unit with the decimals, exact beyond 2^53; too many decimals or other forms refused', () => {
  assert.equal(toUnits('2.5', 6, 'a'), 2_500_000n);
  assert.equal(toUnits(3, 0, 'a'), 3n);
  assert.equal(toUnits(0.25, 2, 'a'), 25n);
  assert.equal(toUnits('1000000000', 18, 'a'), 10n ** 27n);
  assert.equal(toUnits('1.500', 1, 'a'), 15n, 'trailing zeros are not decimals');
  refused(() => toUnits('1.25', 1, 'args.amount'), /more than the token's 1 decimals/);
  refused(() => toUnits('-1', 6, 'args.amount'), /plain decimal/);
  refused(() => toUnits(1e21, 6, 'args.amount'), /plain decimal/);
  refused(() => toUnits(true, 6, 'args.amount'), /decimal string or a number/);
});

test('call input: function or method, args flattened, amount converted, caller dropped; hex JSON read, other hex passed raw', () => {
  const a = callInput(JSON.stringify({ function: 'transfer', args: { to: 'chain:b', amount: '1.5', caller: 'chain:evil' }, caller: 'chain:evil' }), 2);
  assert.equal(a.fn, 'transfer');
  assert.equal(text(a.bytes), '{"function":"transfer","args":{"to":"chain:b","amount":150,"caller":"chain:evil"},"to":"chain:b","amount":150}');
  const m = callInput(toHex(new TextEncoder().encode('{"method":"name"}')), 0);
  assert.equal(text(m.bytes), '{"function":"name","args":{}}');
  const raw = callInput('0x0102ff', 0);
  assert.deepEqual([raw.fn, [...raw.bytes]], [undefined, [1, 2, 255]]);
  refused(() => callInput('{"args":{}}', 0), /name the contract function/);
  refused(() => callInput('{"function":"f","args":[1]}', 0), /args must be an object/);
  refused(() => callInput('hello', 0), /JSON object/);
});

test('deploy fields: hex or base64, init_args decimals as a JSON number only (a string counts as 0), total_supply converted', () => {
  const bytes = new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]);
  assert.deepEqual([...deployFromData(JSON.stringify({ base64_wasm: Buffer.from(bytes).toString('base64') }), 100).bytecode ?? []], [...bytes]);
  assert.deepEqual([...deployFromData(toHex(new TextEncoder().encode(JSON.stringify({ bytecode_hex: toHex(bytes) }))), 100).bytecode ?? []], [...bytes]);
  refused(() => deployFromData(JSON.stringify({ bytecode_hex: toHex(bytes) }), 4), /above contract_max_bytecode_bytes/);
  refused(() => deployFromData(JSON.stringify({ name: 'x' }), 100), /bytecode_hex or base64_wasm/);
  assert.equal(initDecimals({ decimals: 6 }), 6);
  assert.equal(initDecimals({ decimals: '6' }), 0);
  assert.equal(text(initializeInput({ name: 'T', decimals: 3, total_supply: '2.5' }, 3)), '{"function":"initialize","args":{"name":"T","decimals":3,"total_supply":2500},"name":"T","decimals":3,"total_supply":2500}');
});

test('contract event data: integer JSON is kept as data; floats, and nesting deeper than MAX_EVENT_NESTING, stay text (no recursion whose limit differs between nodes)', () => {
  assert.deepEqual(eventData('{"from":"a","amount":5}'), { from: 'a', amount: 5 });
  assert.equal(eventData('{"x":1.5}'), '{"x":1.5}');
  const nested = (n: number) => `${'['.repeat(n)}1${']'.repeat(n)}`;
  assert.equal(jsonTextDepth(nested(MAX_EVENT_NESTING)), MAX_EVENT_NESTING);
  assert.equal(jsonTextDepth('{"a":"[[[{{{\\"]]]"}'), 1, 'brackets and escaped quotes inside strings do not count');
  assert.notEqual(typeof eventData(nested(MAX_EVENT_NESTING)), 'string');
  assert.equal(eventData(nested(MAX_EVENT_NESTING + 1)), nested(MAX_EVENT_NESTING + 1));
  assert.equal(eventData(nested(200_000)), nested(200_000));
  const args = (n: number) => JSON.stringify({ function: 'f', args: { a: JSON.parse(nested(n)) as unknown } });
  assert.doesNotThrow(() => callInput(args(MAX_DATA_NESTING - 2), 0));
  refused(() => callInput(`{"function":"f","args":{"a":${nested(200_000)}}}`, 0), /more than 64 deep/);
  refused(() => callInput(`{"function":"f","args":{"a":${nested(MAX_DATA_NESTING)}}}`, 0), /data nests arrays and objects more than 64 deep/);
  refused(() => deployFromData(`{"bytecode_hex":"00","init_args":{"a":${nested(MAX_DATA_NESTING)}}}`, 1000), /deploy data nests/);
});
