import { ml_dsa65 } from '@noble/post-quantum/ml-dsa.js';
import type { KeyPair, SignatureProvider } from './provider.js';
import { ML_DSA65_PUBLIC_KEY_BYTES, ML_DSA65_SIGNATURE_BYTES } from './provider.js';

/** Pure-JavaScript ML-DSA-65 from @noble/post-quantum: always available, the reference provider. */
export const nobleProvider: SignatureProvider = {
  name: 'noble',
  keygen(seed: Uint8Array): KeyPair {
    if (seed.length !== 32) throw new Error(`ML-DSA-65 seed must be 32 bytes, got ${seed.length}`);
    const { publicKey, secretKey } = ml_dsa65.keygen(seed);
    return { publicKey, secretKey };
  },
  sign(message: Uint8Array, secretKey: Uint8Array): Uint8Array {
    return ml_dsa65.sign(message, secretKey, { extraEntropy: false });
  },
  verify(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean {
    // Length checks first: noble throws on malformed input, and a bad length is simply invalid.
    if (signature.length !== ML_DSA65_SIGNATURE_BYTES || publicKey.length !== ML_DSA65_PUBLIC_KEY_BYTES) return false;
    try {
      return ml_dsa65.verify(signature, message, publicKey);
    } catch {
      return false;
    }
  },
};
