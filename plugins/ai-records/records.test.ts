import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { BlockEvent } from '../../kernel/sdk.js';
import { decisionsOf } from './log.js';
import { fractionText as confidenceText } from '../../kernel/sdk.js';
import { accuracyBp, activate, modelId, overTwoThirds, type ModelEntry } from './registry.js';
import { models } from './store.js';

const ev = (type: string, data: Record<string, unknown>, tx_hash: string | null = '0xt'): BlockEvent => ({ type, data, height: 7, index: 0, tx_hash, phase: tx_hash ? 'tx' : 'end_block' });

test("events become decisions: the sentinel's verdicts and holds, and a slash that jails gives both", () => {
  assert.deepEqual(decisionsOf(ev('tx_anomaly', { tx_hash: '0xt', score: '0.8717', category: 'drain' })), [{ model: 'sentinel', kind: 'anomaly', subject: '0xt', decision: 'anomalous:drain', confidence_bp: 8717n, tx_hash: '0xt', source_event: 'tx_anomaly' }]);
  assert.equal(decisionsOf(ev('tx_held', { tx_hash: '0xt', score: '0.7', needs_owner: true }))[0]!.decision, 'held_until_owner_confirms');
  assert.equal(decisionsOf(ev('tx_held', { tx_hash: '0xt', score: '0.6' }))[0]!.confidence_bp, 6000n);
  assert.deepEqual(decisionsOf(ev('tx_refunded', { tx_hash: '0xh', score: '0.75' }, null)).map((d) => [d.kind, d.subject, d.tx_hash]), [['refund', '0xh', '0xh']]);
  const slash = decisionsOf(ev('validator_slashed', { validator: 'chain:v1.node', amount: 500n, jailed_until: 10_007 }, null));
  assert.deepEqual(slash.map((d) => [d.model, d.kind, d.subject, d.decision, d.confidence_bp]), [
    ['double-sign-evidence', 'slash', 'chain:v1.node', 'slashed:500', 10_000n],
    ['double-sign-evidence', 'jail', 'chain:v1.node', 'jailed_until:10007', 10_000n],
  ]);
  assert.deepEqual(decisionsOf(ev('staked', { address: 'x' })), []);
  assert.equal(confidenceText(8717n), '0.8717');
  assert.equal(confidenceText(10_000n), '1.0000');
});

test('the 2/3 line is strict and weighs power, not heads', () => {
  const equal = new Map([['a', 10n], ['b', 10n], ['c', 10n]]);
  assert.equal(overTwoThirds(['a', 'b'], equal), false, 'exactly 2/3 is not more');
  assert.equal(overTwoThirds(['a', 'b', 'c'], equal), true);
  const skewed = new Map([['a', 70n], ['b', 10n], ['c', 10n], ['d', 10n]]);
  assert.equal(overTwoThirds(['a'], skewed), true, '70% of the power alone');
  assert.equal(overTwoThirds(['b', 'c', 'd'], skewed), false, 'three of four validators, 30% of the power');
  assert.equal(overTwoThirds(['a', 'x'], new Map()), false, 'no power, nothing activates');
  assert.equal(overTwoThirds(['x', 'y', 'z'], equal), false, 'votes of validators no longer in the set do not count');
  assert.notEqual(modelId('m', '1', '0x' + '0'.repeat(64)), modelId('m', '1', '0x' + '1'.repeat(64)));
});

test('accuracy: every fraction with at most 4 decimals is accepted exactly (0.0029 too), more decimals are refused', () => {
  for (let i = 0; i <= 10_000; i++) {
    const text = (i / 10_000).toFixed(4);
    assert.equal(accuracyBp(JSON.parse(text) as number), BigInt(i), text);
  }
  assert.equal(accuracyBp(0.12345), undefined);
  assert.equal(accuracyBp(0.00001), undefined);
});

test('a newer active version leaves the older one active (status is only pending or active) and names it in superseded_by', async () => {
  // The plugin's namespace as a raw store (what ctx.store is under the declarations).
  const records = new Map<string, Uint8Array>();
  const store = {
    namespace: 'ai-records',
    async get(k: string) {
      return records.get(k);
    },
    async scan(prefix = '') {
      return [...records.keys()].filter((k) => k.startsWith(prefix)).sort().map((k) => [k, records.get(k)!] as [string, Uint8Array]);
    },
    set(k: string, v: Uint8Array) {
      records.set(k, v);
    },
  };
  const entry = (version: string, status: ModelEntry['status']): ModelEntry => ({ id: modelId('sentinel', version, '0xaa'), name: 'sentinel', version, weights_hash: '0xaa', architecture: 'x', params_count: 8, accuracy_bp: 9000n, status, votes: [], registered_height: 1, activated_height: status === 'active' ? 1 : null });
  const v1 = entry('1.0.0', 'active');
  models.set(store as unknown as Parameters<typeof activate>[0], v1.id, v1);
  const v2 = await activate(store as unknown as Parameters<typeof activate>[0], entry('2.0.0', 'pending'), 9);
  assert.equal(v2.status, 'active');
  assert.equal(v2.activated_height, 9);
  const old = (await models.get(store as unknown as Parameters<typeof activate>[0], v1.id))!;
  assert.equal(old.status, 'active');
  assert.equal(old.superseded_by, v2.id);
});
