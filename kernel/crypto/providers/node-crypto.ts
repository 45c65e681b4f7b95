import { createPrivateKey, createPublicKey, sign as cryptoSign, verify as cryptoVerify, type KeyObject } from 'node:crypto';
import { nobleProvider } from '../noble-provider.js';
import type { KeyPair } from '../provider.js';
import { ML_DSA65_PUBLIC_KEY_BYTES, ML_DSA65_SECRET_KEY_BYTES } from '../provider.js';
import { checkSecretKey, errorText, plain, wellFormed, type LoadedProvider, type ProviderLoad } from './common.js';

/*
 * DER framing for ML-DSA-65 keys (OID 2.16.840.1.101.3.4.3.18), RFC 9881 / OpenSSL 3.5. Node
 * has no "raw key" import for ML-DSA in every version that has ML-DSA, but it takes PKCS#8 and
 * SPKI DER everywhere, so the raw FIPS 204 bytes are wrapped in fixed headers.
 */
const hex = (s: string): Buffer => Buffer.from(s.replace(/\s+/g, ''), 'hex');
/** PKCS#8, privateKey = seed [0] IMPLICIT OCTET STRING (32): OpenSSL runs KeyGen_internal(xi). */
const PKCS8_SEED_PREFIX = hex('3034 020100 300b 0609608648016503040312 0422 8020');
/** PKCS#8, privateKey = expandedKey OCTET STRING (4032): the FIPS 204 sk encoding the interface carries. */
const PKCS8_EXPANDED_PREFIX = hex('30820fd8 020100 300b 0609608648016503040312 04820fc4 04820fc0');
/** SubjectPublicKeyInfo with a BIT STRING of the 1952-byte FIPS 204 public key. */
const SPKI_PREFIX = hex('308207b2 300b 0609608648016503040312 038207a100');
/** OpenSSL's default PKCS#8 output is "seed-priv": SEQUENCE { seed, expandedKey }; the key is its tail. */
const EXPANDED_TAG = hex('04820fc0');

/** Public keys come from a small validator set and accounts that sign repeatedly: importing SPKI costs about as much as a verify. */
const KEY_CACHE_MAX = 1024;

/**
 * ML-DSA-65 through node:crypto (OpenSSL 3.5+), present from Node 24.7; on Node 20 and 22 the
 * bundled OpenSSL has no ML-DSA and load returns the reason.
 *
 * keygen imports the 32-byte seed as a seed-only PKCS#8 key, so OpenSSL derives the same key pair
 * as noble (FIPS 204 KeyGen_internal). OpenSSL through Node signs hedged only (Node exposes no
 * "deterministic" option), so `sign` uses noble's deterministic signer and the hedged native
 * signer is `signNative`, whose signatures differ per call but verify under every provider.
 */
export function loadNodeCryptoProvider(): ProviderLoad {
  const runtime = `Node ${process.version} (OpenSSL ${process.versions.openssl ?? 'unknown'})`;
  try {
    createPrivateKey({ key: Buffer.concat([PKCS8_SEED_PREFIX, Buffer.alloc(32)]), format: 'der', type: 'pkcs8' });
  } catch (e) {
    return { ok: false, reason: `node:crypto in ${runtime} has no ML-DSA-65 (needs Node >= 24.7 with OpenSSL >= 3.5): ${errorText(e)}` };
  }

  const keys = new Map<string, KeyObject>();
  const publicKeyObject = (publicKey: Uint8Array): KeyObject => {
    // latin1 maps each byte to one UTF-16 unit: a cheap exact map key, no hashing needed.
    const id = Buffer.from(publicKey.buffer, publicKey.byteOffset, publicKey.byteLength).toString('latin1');
    let k = keys.get(id);
    if (k) {
      // Re-insert so the Map's insertion order doubles as least-recently-used order.
      keys.delete(id);
    } else {
      k = createPublicKey({ key: Buffer.concat([SPKI_PREFIX, publicKey]), format: 'der', type: 'spki' });
      if (keys.size >= KEY_CACHE_MAX) keys.delete(keys.keys().next().value as string);
    }
    keys.set(id, k);
    return k;
  };

  const provider: LoadedProvider = {
    name: 'node',
    description: `node:crypto ML-DSA-65 (${runtime}) keygen and verify; deterministic sign via @noble/post-quantum`,
    keygen(seed: Uint8Array): KeyPair {
      if (seed.length !== 32) throw new Error(`ML-DSA-65 seed must be 32 bytes, got ${seed.length}`);
      const priv = createPrivateKey({ key: Buffer.concat([PKCS8_SEED_PREFIX, seed]), format: 'der', type: 'pkcs8' });
      const spki = createPublicKey(priv).export({ format: 'der', type: 'spki' });
      const pkcs8 = priv.export({ format: 'der', type: 'pkcs8' });
      const tagAt = pkcs8.length - ML_DSA65_SECRET_KEY_BYTES - EXPANDED_TAG.length;
      if (spki.length !== SPKI_PREFIX.length + ML_DSA65_PUBLIC_KEY_BYTES || !spki.subarray(0, SPKI_PREFIX.length).equals(SPKI_PREFIX)) {
        throw new Error('node:crypto exported an unexpected ML-DSA-65 SubjectPublicKeyInfo');
      }
      if (tagAt < 0 || !pkcs8.subarray(tagAt, tagAt + EXPANDED_TAG.length).equals(EXPANDED_TAG)) {
        // OpenSSL configured for seed-only output (ml-dsa.output_formats): no expanded key to read.
        throw new Error('node:crypto exported an ML-DSA-65 PKCS#8 key without the expanded secret key');
      }
      return { publicKey: plain(spki.subarray(SPKI_PREFIX.length)), secretKey: plain(pkcs8.subarray(pkcs8.length - ML_DSA65_SECRET_KEY_BYTES)) };
    },
    sign(message: Uint8Array, secretKey: Uint8Array): Uint8Array {
      return nobleProvider.sign(message, secretKey);
    },
    verify(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean {
      if (!wellFormed(signature, publicKey)) return false;
      try {
        return cryptoVerify(null, message, publicKeyObject(publicKey), signature);
      } catch {
        // A public key OpenSSL refuses to decode is simply not a key this signature verifies under.
        return false;
      }
    },
    signNative(message: Uint8Array, secretKey: Uint8Array): Uint8Array {
      checkSecretKey(secretKey);
      const key = createPrivateKey({ key: Buffer.concat([PKCS8_EXPANDED_PREFIX, secretKey]), format: 'der', type: 'pkcs8' });
      return plain(cryptoSign(null, message, key));
    },
  };
  return { ok: true, provider };
}
