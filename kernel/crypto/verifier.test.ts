import { test } from 'node:test';
import assert from 'node:assert/strict';
import { VerifyOnce } from './verifier.js';

const bytes = new Uint8Array(1);

test('verify-once: concurrent checks of one id share a single verification; failures are not remembered', async () => {
  let calls = 0;
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const v = new VerifyOnce(async (sig) => {
    calls++;
    await gate;
    return sig[0] === 0;
  });
  const both = Promise.all([v.verify('tx-a', bytes, bytes, bytes), v.verify('tx-a', bytes, bytes, bytes)]);
  release();
  assert.deepEqual(await both, [true, true]);
  assert.equal(calls, 1, 'the second check waited for the first');
  assert.deepEqual(v.stats, { verifications: 1, cacheHits: 1 });
  assert.equal(v.recall('tx-a'), true);
  assert.equal(v.recall('tx-b'), false);
  assert.deepEqual(v.stats, { verifications: 1, cacheHits: 2 }, 'a recall that finds the id counts as a hit');
  const bad = new Uint8Array([1]);
  assert.equal(await v.verify('tx-c', bad, bytes, bytes), false);
  assert.equal(await v.verify('tx-c', bad, bytes, bytes), false);
  assert.equal(calls, 3, 'an invalid signature is checked again, never answered from memory');
});
