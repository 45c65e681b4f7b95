import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_VALIDATORS, resultingSetProblem, validatorUpdateProblem } from './validator-update-rules.js';

const KEY = 'ab'.repeat(1952);
const set = [{ address: 'chain:v0.node', public_key: KEY, power: 10n }, { address: 'chain:v1.node', public_key: KEY, power: 10n }];

test('a validator update must name a .node with an ML-DSA-65 key and a non-negative power, once', () => {
  assert.equal(validatorUpdateProblem([{ address: 'chain:v2.node', public_key: KEY, power: 5n }]), null);
  assert.equal(validatorUpdateProblem([{ address: 'chain:v0.node', public_key: '', power: 0n }]), null, 'a removal needs no key');
  assert.match(validatorUpdateProblem([{ address: 'chain:v2.human', public_key: KEY, power: 5n }])!, /a validator is a \.node address/);
  assert.match(validatorUpdateProblem([{ address: 'chain:v2.node', public_key: 'not-a-key', power: 5n }])!, /3904 lowercase hex/);
  assert.match(validatorUpdateProblem([{ address: 'chain:v2.node', public_key: KEY.toUpperCase(), power: 5n }])!, /lowercase hex/);
  assert.match(validatorUpdateProblem([{ address: 'chain:v2.node', public_key: KEY, power: -1n }])!, /non-negative/);
  assert.match(validatorUpdateProblem([{ address: 'chain:v2.node', public_key: KEY, power: 1n }, { address: 'chain:v2.node', public_key: KEY, power: 2n }])!, /twice/);
});

test('the set an update leaves must be neither empty nor larger than the bound', () => {
  assert.equal(resultingSetProblem(set, [{ address: 'chain:v0.node', public_key: '', power: 0n }]), null);
  assert.match(resultingSetProblem(set, set.map((v) => ({ ...v, power: 0n })))!, /empty/);
  const many = Array.from({ length: MAX_VALIDATORS - 1 }, (_, i) => ({ address: `chain:n${i}.node`, public_key: KEY, power: 1n }));
  assert.equal(resultingSetProblem(set, many.slice(0, MAX_VALIDATORS - 2)), null);
  assert.match(resultingSetProblem(set, many)!, new RegExp(`more than ${MAX_VALIDATORS}`));
});
