import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { isChainError, sha3Hex0x } from '../../kernel/sdk.js';
import { SHIPPED_MODEL_FILE, loadModel, parseModel, score, sigmoid, type ScoreRequest } from './model.js';
import { fractionText } from '../../kernel/sdk.js';
import { trainModel } from './train.js';

const model = loadModel();
const base: ScoreRequest = { value: 0n, gas_price: 1n, nonce: 5n, last_nonce: 4n, balance: 1_000_000n, tx_count_last_10: 0n, recipient_tx_count: 0n, is_self_transfer: false };

test('the training script reproduces the shipped weights file byte for byte, so its hash', () => {
  const text = trainModel();
  assert.equal(text, readFileSync(SHIPPED_MODEL_FILE, 'utf8'));
  assert.equal(sha3Hex0x(new TextEncoder().encode(text)), model.weightsHash);
  assert.equal(model.weightsHash, '0xb07c52b0b43d7ee3498bbf02a814e2c67ee0de8ad582dd8f29cbfbb38e534a76');
  assert.ok(model.accuracyBp >= 9000, `held-out accuracy ${model.accuracyBp} bp`);
});

test('the integer sigmoid: exact at 0, symmetric, saturating', () => {
  assert.equal(sigmoid(0n), 5000n);
  assert.equal(sigmoid(20_000n), 8807n);
  assert.equal(sigmoid(-20_000n), 1192n);
  assert.equal(sigmoid(200_000n), 9_999n, 'rounded down, never 1.0');
  assert.equal(sigmoid(-200_000n), 0n);
  for (let z = -60_000n; z <= 60_000n; z += 7_001n) assert.ok(sigmoid(z) + sigmoid(-z) >= 9_999n && sigmoid(z) + sigmoid(-z) <= 10_000n);
});

test('pinned vectors: the same score, flag and category on every run', () => {
  const vectors: Array<[Partial<ScoreRequest>, bigint, boolean, string]> = [
    [{ value: 0n }, 231n, false, 'normal'],
    [{ value: 100_000n, recipient_tx_count: 40n }, 76n, false, 'normal'],
    [{ value: 560_000n }, 4966n, false, 'normal'],
    [{ value: 600_000n }, 5628n, true, 'drain'],
    [{ value: 850_000n }, 8717n, true, 'drain'],
    [{ value: 1_000_000n }, 9485n, true, 'drain'],
    [{ value: 450_000n, last_nonce: 0n, nonce: 1n }, 6093n, true, 'drain'],
    [{ value: 10_000n, tx_count_last_10: 10n }, 8491n, true, 'burst'],
    [{ value: 10_000n, nonce: 15n }, 8300n, true, 'nonce_gap'],
    [{ value: 300_000n, gas_price: 101n }, 9256n, true, 'fee_spike'],
    [{ value: 500_000n, is_self_transfer: true }, 1852n, false, 'normal'],
    [{ value: 0n, balance: 0n }, 231n, false, 'normal'],
  ];
  for (const [over, bp, anomalous, category] of vectors) {
    const v = score(model, { ...base, ...over });
    assert.deepEqual({ ...v }, { scoreBp: bp, anomalous, category }, JSON.stringify(over, (_, x) => (typeof x === 'bigint' ? String(x) : x)));
    assert.deepEqual(score(model, { ...base, ...over }), v, 'deterministic');
  }
  // Burst, nonce gaps and fee spikes each dominate the verdict they raise.
  assert.equal(score(model, { ...base, value: 200_000n, tx_count_last_10: 10n }).category, 'burst');
  assert.equal(score(model, { ...base, value: 200_000n, nonce: 15n }).category, 'nonce_gap');
  assert.equal(score(model, { ...base, value: 300_000n, gas_price: 101n }).category, 'fee_spike');
  assert.equal(fractionText(8717n), '0.8717');
  assert.equal(fractionText(5n), '0.0005');
});

test('a weights file that is not the model this build reads is refused with the reason', () => {
  const text = readFileSync(SHIPPED_MODEL_FILE, 'utf8');
  assert.throws(() => parseModel('{'), /not JSON/);
  assert.throws(() => parseModel(text.replace('"scale": 10000', '"scale": 100')), /scale 100/);
  assert.throws(() => parseModel(text.replace('"drain"', '"drainage"')), /features/);
  assert.throws(() => parseModel(text.replace('-55821', '-55821.5')), /integers/);
  const edited = parseModel(text.replace('-55821', '-55820'));
  assert.notEqual(edited.weightsHash, model.weightsHash);
  assert.ok(!isChainError(edited));
});

test('every shipped network pins the shipped file\'s hash for the sentinel and registers the same model at genesis', () => {
  for (const net of ['devnet', 'testnet', 'mainnet']) {
    const cfg = JSON.parse(readFileSync(new URL(`../../../configs/${net}.json`, import.meta.url), 'utf8')) as { plugins: Array<{ name: string; options: Record<string, unknown> }> };
    const names = cfg.plugins.map((p) => p.name);
    const sentinel = cfg.plugins.find((p) => p.name === 'sentinel');
    assert.equal(sentinel?.options.weights_hash, model.weightsHash, `${net}: sentinel weights_hash`);
    const records = cfg.plugins.find((p) => p.name === 'ai-records');
    const genesis = (records?.options.genesis_models as Array<Record<string, unknown>>).find((m) => m.name === 'sentinel');
    assert.deepEqual([genesis?.version, genesis?.weights_hash, genesis?.params_count, genesis?.accuracy_bp], [model.version, model.weightsHash, model.paramsCount, model.accuracyBp], `${net}: genesis registration`);
    assert.ok(names.indexOf('ai-records') > names.indexOf('sentinel') && names.indexOf('ai-records') > names.indexOf('staking'), `${net}: ai-records reads their events, so comes after them`);
  }
});
