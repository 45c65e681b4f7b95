import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bytesToHex } from '@noble/hashes/utils.js';
import { sha3_256 } from '@noble/hashes/sha3.js';
import { deriveAddress } from '../address.js';
import { nobleProvider } from '../noble-provider.js';
import { ML_DSA65_PUBLIC_KEY_BYTES, ML_DSA65_SECRET_KEY_BYTES, ML_DSA65_SIGNATURE_BYTES } from '../provider.js';
import { selectProvider } from '../select-provider.js';
import { txMessageV2 } from '../signed-message.js';
import { KAT_PUBLIC_KEY_SHA3, KAT_SEED } from './known-answer.js';
import { knownAnswerFailure, loadProvider, PROVIDER_NAMES, type LoadedProvider, type ProviderName } from './index.js';

/*
 * The shared vector suite: every provider that loads on this runtime must be byte-for-byte
 * interchangeable with every other. An unavailable one is skipped with its reason printed (on
 * Node 20, node:crypto has no ML-DSA-65).
 */
const available: LoadedProvider[] = [];
const unavailable = new Map<ProviderName, string>();
for (const name of PROVIDER_NAMES) {
  const r = loadProvider(name);
  if (r.ok) available.push(r.provider);
  else unavailable.set(name, r.reason);
}
for (const [name, reason] of unavailable) console.log(`# provider ${name} skipped: ${reason}`);

const seeds: Uint8Array[] = [
  KAT_SEED,
  new Uint8Array(32),
  new Uint8Array(32).fill(0xff),
  Uint8Array.from({ length: 32 }, (_, i) => i),
  sha3_256(new TextEncoder().encode('pq-chain shared vectors')),
];
const messages: Uint8Array[] = [
  new Uint8Array(0),
  txMessageV2('chain:307f4559431e680.human', 'chain:edcba9876543210.human', 1_000_000n, 1n),
  new Uint8Array(5000).fill(0xab),
];
const nobleKeys = seeds.map((s) => nobleProvider.keygen(s));

test('external known answer: seed 0x01*32 is chain:307f4559431e680.human with the pinned SHA3-256 public-key hash', () => {
  const pk = nobleKeys[0]!.publicKey;
  // @noble/hashes here, OpenSSL in hash.ts: two SHA3 implementations agree on the pinned value.
  assert.equal(bytesToHex(sha3_256(pk)), KAT_PUBLIC_KEY_SHA3);
  assert.equal(deriveAddress(pk), 'chain:307f4559431e680.human');
});

for (const name of PROVIDER_NAMES) {
  const reason = unavailable.get(name);
  const p = available.find((a) => a.name === name);

  test(`${name}: passes the built-in known-answer check`, { skip: reason }, () => {
    assert.equal(knownAnswerFailure(p!), null);
  });

  test(`${name}: keygen from each seed equals noble byte for byte`, { skip: reason }, () => {
    seeds.forEach((seed, i) => {
      const kp = p!.keygen(seed);
      assert.equal(kp.publicKey.length, ML_DSA65_PUBLIC_KEY_BYTES);
      assert.equal(kp.secretKey.length, ML_DSA65_SECRET_KEY_BYTES);
      assert.deepEqual(kp.publicKey, nobleKeys[i]!.publicKey, `public key, seed #${i}`);
      assert.deepEqual(kp.secretKey, nobleKeys[i]!.secretKey, `secret key, seed #${i}`);
    });
    assert.throws(() => p!.keygen(new Uint8Array(31)));
  });

  test(`${name}: deterministic signatures equal noble's and verify under every available provider`, { skip: reason }, () => {
    for (const [i, kp] of nobleKeys.entries()) {
      for (const msg of messages) {
        const sig = p!.sign(msg, kp.secretKey);
        assert.equal(sig.length, ML_DSA65_SIGNATURE_BYTES);
        assert.deepEqual(sig, nobleProvider.sign(msg, kp.secretKey), `deterministic signature, key #${i}`);
        for (const v of available) assert.equal(v.verify(sig, msg, kp.publicKey), true, `${v.name} verifies ${name}'s signature, key #${i}`);
      }
    }
  });

  test(`${name}: its native (hedged) signer's signatures, from the same secret key bytes, verify everywhere`, { skip: reason ?? (p?.signNative ? undefined : 'no native signer: signs with noble only') }, () => {
    const kp = nobleKeys[0]!;
    const msg = messages[1]!;
    const a = p!.signNative!(msg, kp.secretKey);
    const b = p!.signNative!(msg, kp.secretKey);
    assert.equal(a.length, ML_DSA65_SIGNATURE_BYTES);
    // Hedged signing draws fresh randomness: why `sign` does not use it (a re-signed vote must be identical).
    assert.notDeepEqual(a, b);
    for (const v of available) {
      assert.equal(v.verify(a, msg, kp.publicKey), true, `${v.name} verifies ${name}'s native signature`);
      assert.equal(v.verify(b, msg, kp.publicKey), true);
    }
  });

  test(`${name}: rejects tampered signatures, messages and keys; malformed lengths are false, never a throw`, { skip: reason }, () => {
    const kp = nobleKeys[1]!;
    const other = nobleKeys[2]!;
    const msg = messages[1]!;
    const sig = nobleProvider.sign(msg, kp.secretKey);
    for (const at of [0, 100, 1000, ML_DSA65_SIGNATURE_BYTES - 1]) {
      const bad = Uint8Array.from(sig);
      bad[at] = bad[at]! ^ 0x01;
      assert.equal(p!.verify(bad, msg, kp.publicKey), false, `bit flip at ${at}`);
    }
    const badMsg = Uint8Array.from(msg);
    badMsg[0] = badMsg[0]! ^ 0x01;
    assert.equal(p!.verify(sig, badMsg, kp.publicKey), false, 'tampered message');
    assert.equal(p!.verify(sig, msg, other.publicKey), false, 'another key');
    const cases: [string, Uint8Array, Uint8Array][] = [
      ['empty signature', new Uint8Array(0), kp.publicKey],
      ['short signature', sig.subarray(1), kp.publicKey],
      ['long signature', Uint8Array.from([...sig, 0]), kp.publicKey],
      ['empty public key', sig, new Uint8Array(0)],
      ['short public key', sig, kp.publicKey.subarray(1)],
      ['long public key', sig, Uint8Array.from([...kp.publicKey, 0])],
      ['zero public key', sig, new Uint8Array(ML_DSA65_PUBLIC_KEY_BYTES)],
      ['zero signature', new Uint8Array(ML_DSA65_SIGNATURE_BYTES), kp.publicKey],
    ];
    for (const [what, s, pk] of cases) assert.equal(p!.verify(s, msg, pk), false, what);
  });
}

test('selectProvider: auto picks the fastest available provider; forcing an unavailable one is a clear error', () => {
  const auto = selectProvider('auto');
  const expected = PROVIDER_NAMES.find((n) => !unavailable.has(n));
  assert.equal(auto.provider.name, expected);
  assert.match(auto.reason, /^auto: /);
  for (const [name, why] of unavailable) {
    assert.match(auto.reason, new RegExp(`skipped.*${name}`));
    assert.throws(() => selectProvider(name), (e: unknown) => e instanceof Error && e.message.includes(`CHAIN_CRYPTO_PROVIDER=${name}`) && e.message.includes(why));
  }
  for (const p of available) assert.equal(selectProvider(p.name).provider.name, p.name);
});
