import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ml_dsa65 } from '@noble/post-quantum/ml-dsa.js';
import { ibcTestVector } from './ibc-header-routes.js';

// decisions.md §70, computed here from the spec's words alone with @noble/post-quantum.
test('the IBC test vector is the FIPS 204 deterministic signature of the fixed header under §4\'s vector key', () => {
  const v = ibcTestVector();
  const message = `ch-pq-lc-v1|test-vector|1000|0x${'ab'.repeat(32)}|0x${'cd'.repeat(32)}`;
  const { publicKey, secretKey } = ml_dsa65.keygen(new Uint8Array(32).fill(1));
  const signature = ml_dsa65.sign(new TextEncoder().encode(message), secretKey, { extraEntropy: false });
  assert.deepEqual(v, {
    chain_id: 'test-vector',
    height: 1000,
    block_hash: `0x${'ab'.repeat(32)}`,
    state_root: `0x${'cd'.repeat(32)}`,
    message,
    seed_hex: '01'.repeat(32),
    public_key: Buffer.from(publicKey).toString('hex'),
    signature: Buffer.from(signature).toString('hex'),
  });
  assert.equal(v.signature.length, 2 * 3309);
  assert.ok(ml_dsa65.verify(Buffer.from(String(v.signature), 'hex'), new TextEncoder().encode(message), publicKey));
  assert.deepEqual(ibcTestVector(), v, 'the same on every call');
});
