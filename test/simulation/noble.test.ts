import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nobleProvider } from '../../kernel/crypto/noble-provider.js';
import { ML_DSA65_SIGNATURE_BYTES } from '../../kernel/crypto/provider.js';
import { runScenario, seeds, summary } from './harness.js';

/**
 * End to end with real ML-DSA-65 (noble): key generation, signing every proposal and vote,
 * verifying every received one, and verifying every commit certificate in the safety check.
 * Small (4 validators, 20 heights) because each signature costs milliseconds.
 */
test('4 validators, 20 heights, real ML-DSA-65 signatures, 5% loss', async (t) => {
  for (const seed of seeds([2101])) {
    const { result, failure } = await runScenario(
      {
        file: 'noble.test.js',
        name: '4 validators, 20 heights, real ML-DSA-65 signatures',
        seeds: [seed],
        livenessBoundMs: 60_000,
        config: {
          validators: 4,
          targetHeight: 20,
          links: { minDelayMs: 5, maxDelayMs: 60, dropPerMille: 50, duplicatePerMille: 20 },
          provider: nobleProvider,
          chainId: 'sim-noble-1',
        },
      },
      seed,
    );
    t.diagnostic(summary(result));
    if (failure !== undefined) assert.fail(failure);
    const cert = result.correct[0]!.decisions.get(20)!.certificate;
    assert.equal(cert.precommits[0]!.signature.length, ML_DSA65_SIGNATURE_BYTES);
  }
});
