import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_TX_NESTING, jsonTextDepth, nestingProblem, valueDepth } from './depth.js';

const nested = (n: number): string => '['.repeat(n) + ']'.repeat(n);

test('text depth counts brackets outside strings only, escapes included', () => {
  assert.equal(jsonTextDepth('1'), 0);
  assert.equal(jsonTextDepth('{"a":[1,{"b":2}]}'), 3);
  assert.equal(jsonTextDepth('{"a":"[[[{{{"}'), 1);
  assert.equal(jsonTextDepth('{"a":"\\"[[[","b":[]}'), 2);
  assert.equal(jsonTextDepth(nested(100_000)), 100_000, 'no recursion, no stack overflow');
});

test('value depth agrees with the text depth and stops past the limit', () => {
  for (const t of ['{"a":[1,{"b":2}]}', '[]', '"x"', '{"a":{"b":{"c":[[]]}}}']) assert.equal(valueDepth(JSON.parse(t)), jsonTextDepth(t), t);
  const deep = JSON.parse(nested(100_000)) as unknown;
  assert.equal(valueDepth(deep, MAX_TX_NESTING), MAX_TX_NESTING + 1);
});

test('the limit is inclusive: 64 levels pass, 65 are refused naming the limit', () => {
  assert.equal(nestingProblem(nested(MAX_TX_NESTING), undefined), undefined);
  assert.equal(nestingProblem(undefined, JSON.parse(nested(MAX_TX_NESTING))), undefined);
  assert.match(nestingProblem(nested(MAX_TX_NESTING + 1), undefined) ?? '', /exceeds the limit of 64 levels/);
  assert.match(nestingProblem(undefined, JSON.parse(nested(MAX_TX_NESTING + 1))) ?? '', /exceeds the limit of 64 levels/);
});
