import { sha3_256 } from '@noble/hashes/sha3.js';
import type { KeyPair, SignatureProvider } from '../../kernel/crypto/provider.js';

/**
 * TEST ONLY. INSECURE BY DESIGN. A stand-in SignatureProvider that makes signing and
 * verification cost a SHA3 instead of ML-DSA's milliseconds, so simulations can run thousands
 * of heights. The "public key" equals the secret (verification must recompute the MAC), so
 * anyone holding a public key can forge: it must never be reachable from kernel code, and it is
 * not exported from anything under kernel/.
 *
 *   keygen(seed): secret = public = SHA3-256("sha3-mac-test-key" || seed)
 *   sign(msg, sk): SHA3-256(sk || msg)
 *   verify(sig, msg, pk): sig == SHA3-256(pk || msg)
 */
const KEY_TAG = new TextEncoder().encode('sha3-mac-test-key');

export const Sha3MacTestProvider: SignatureProvider = {
  name: 'sha3-mac-test-INSECURE',
  keygen(seed: Uint8Array): KeyPair {
    if (seed.length !== 32) throw new Error(`seed must be 32 bytes, got ${seed.length}`);
    const key = sha3_256.create().update(KEY_TAG).update(seed).digest();
    return { publicKey: key, secretKey: key.slice() };
  },
  sign(message: Uint8Array, secretKey: Uint8Array): Uint8Array {
    return sha3_256.create().update(secretKey).update(message).digest();
  },
  verify(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean {
    if (signature.length !== 32) return false;
    const expected = sha3_256.create().update(publicKey).update(message).digest();
    let diff = 0;
    for (let i = 0; i < 32; i++) diff |= (expected[i] as number) ^ (signature[i] as number);
    return diff === 0;
  },
};
