import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadGatewayConfig } from './config.js';

test('the AI and contract-alert variables carry part 2\'s defaults (Gateway configuration, Request rates)', () => {
  const c = loadGatewayConfig({});
  assert.deepEqual(c.contractAlerts, { checkIntervalMs: 30000, spikeLowThreshold: 10, spikeHighThreshold: 50, lowScoreThreshold: 60, cooldownMs: 60000 });
  assert.equal(c.assistantEnabled, false, 'ASSISTANT_ENABLED defaults to 0');
  assert.equal(c.aiRlMaxRpm, 10);
  assert.equal(c.aiProvider, undefined, 'no AI_PROVIDER_API_KEY: the built-in generator alone');
  const set = loadGatewayConfig({ SENTINEL_CHECK_INTERVAL_MS: '500', SENTINEL_SPIKE_LOW_THRESHOLD: '3', SENTINEL_SPIKE_HIGH_THRESHOLD: '3', SENTINEL_LOW_SCORE_THRESHOLD: '0', ALERT_COOLDOWN_MS: '0', ASSISTANT_ENABLED: '1' });
  assert.deepEqual(set.contractAlerts, { checkIntervalMs: 500, spikeLowThreshold: 3, spikeHighThreshold: 3, lowScoreThreshold: 0, cooldownMs: 0 });
  assert.equal(set.assistantEnabled, true);
});

test('bad values name their variable', () => {
  assert.throws(() => loadGatewayConfig({ SENTINEL_SPIKE_LOW_THRESHOLD: '20', SENTINEL_SPIKE_HIGH_THRESHOLD: '10' }), /SENTINEL_SPIKE_HIGH_THRESHOLD=10 is below SENTINEL_SPIKE_LOW_THRESHOLD=20/);
  assert.throws(() => loadGatewayConfig({ ASSISTANT_ENABLED: 'yes' }), /ASSISTANT_ENABLED/);
  assert.throws(() => loadGatewayConfig({ SENTINEL_CHECK_INTERVAL_MS: '10' }), /SENTINEL_CHECK_INTERVAL_MS/);
  assert.throws(() => loadGatewayConfig({ ALERT_COOLDOWN_MS: '-1' }), /ALERT_COOLDOWN_MS/);
  assert.throws(() => loadGatewayConfig({ SENTINEL_LOW_SCORE_THRESHOLD: '102' }), /SENTINEL_LOW_SCORE_THRESHOLD/);
});
