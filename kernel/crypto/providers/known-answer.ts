import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import { sha3 } from '../hash.js';
import type { SignatureProvider } from '../provider.js';
import { errorText } from './common.js';

/*
 * Known answers every provider must reproduce before the node trusts it. The public-key hash is
 * the external anchor: decisions.md §4 fixes seed 0x01*32 to chain:307f4559431e680.human (the
 * first 15 hex of this SHA3-256), and OpenSSL 3.5 (node:crypto on Node 24) derives the same key
 * independently of noble. The secret-key and signature hashes pin noble's FIPS 204 encodings
 * and deterministic signer, so a provider that drifts from them is caught at start.
 */
export const KAT_SEED = new Uint8Array(32).fill(1);
export const KAT_PUBLIC_KEY_SHA3 = '307f4559431e680933fc1c62503f050140e5740068248d7374461e0311a2728e';
export const KAT_SECRET_KEY_SHA3 = '07ec4db9cae15d98e63946cb2e522641396f887f9ca17067ccf80801b6a7b6be';
export const KAT_MESSAGE = utf8ToBytes('pq-chain provider known-answer test');
/** SHA3-256 of the deterministic (empty-context, pure) ML-DSA-65 signature of KAT_MESSAGE. */
export const KAT_SIGNATURE_SHA3 = 'ecc117e06cbb3fc46a0fcd0a106dabee73cfd986bab6a0ab5c5c4cf5ad7e297f';

const hashHex = (b: Uint8Array): string => bytesToHex(sha3(b));

/** null when the provider reproduces every known answer; otherwise why it must not be used. */
export function knownAnswerFailure(provider: SignatureProvider): string | null {
  try {
    const kp = provider.keygen(KAT_SEED);
    if (hashHex(kp.publicKey) !== KAT_PUBLIC_KEY_SHA3) return 'keygen(0x01*32) gives the wrong public key';
    if (hashHex(kp.secretKey) !== KAT_SECRET_KEY_SHA3) return 'keygen(0x01*32) gives the wrong secret key';
    const sig = provider.sign(KAT_MESSAGE, kp.secretKey);
    if (hashHex(sig) !== KAT_SIGNATURE_SHA3) return 'deterministic signature differs from the known answer';
    if (!provider.verify(sig, KAT_MESSAGE, kp.publicKey)) return 'rejects the known-answer signature';
    const bad = Uint8Array.from(sig);
    bad[100] = bad[100]! ^ 1;
    if (provider.verify(bad, KAT_MESSAGE, kp.publicKey)) return 'accepts a tampered signature';
    if (provider.verify(sig.subarray(1), KAT_MESSAGE, kp.publicKey)) return 'accepts a truncated signature';
    return null;
  } catch (e) {
    return `known-answer check threw: ${errorText(e)}`;
  }
}
