import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PreverifiedSignatures } from './preverified.js';
import type { SignatureProvider } from '../crypto/provider.js';

const enc = new TextEncoder();

test('pre-verified signatures: the machine\'s check is answered from the memo only for the exact bytes that verified', async () => {
  let inThread = 0;
  const base: SignatureProvider = {
    name: 'stub',
    keygen: () => ({ publicKey: new Uint8Array(1), secretKey: new Uint8Array(1) }),
    sign: () => new Uint8Array(1),
    verify: (sig, msg) => {
      inThread++;
      return sig[0] === msg[0];
    },
  };
  // The worker's answer: valid when the first bytes agree (a stand-in for ML-DSA).
  const pre = new PreverifiedSignatures(async (sig, msg) => sig[0] === msg[0]);
  const provider = pre.provider(base);
  const pk = new Uint8Array([9]);
  const sig = new Uint8Array([1]);
  const msg = enc.encode('\x01vote');
  await pre.check(sig, msg, pk);
  assert.equal(provider.verify(sig, enc.encode('\x01vote'), new Uint8Array([9])), true, 'equal bytes in other objects still hit');
  assert.equal(inThread, 0);
  assert.deepEqual(pre.stats, { preverified: 1, hits: 1 });
  // Same signature object, another message or key: verified in-thread, as without the memo.
  assert.equal(provider.verify(sig, enc.encode('\x02vote'), pk), false);
  assert.equal(provider.verify(sig, msg, new Uint8Array([8])), true);
  assert.equal(inThread, 2);
  // A signature that failed on the worker is not remembered.
  const bad = new Uint8Array([7]);
  await pre.check(bad, msg, pk);
  assert.equal(provider.verify(bad, msg, pk), false);
  assert.equal(inThread, 3);
  // A worker failure is swallowed: the machine decides in-thread.
  const broken = new PreverifiedSignatures(async () => {
    throw new Error('worker died');
  });
  await broken.check(sig, msg, pk);
  assert.equal(broken.stats.preverified, 0);
});
