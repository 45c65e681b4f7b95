import { unauthorized } from '../errors.js';
import type { SignatureLayout } from '../chain/types.js';
import { parseHex } from '../codec/hex.js';
import { deriveAddress } from '../crypto/address.js';
import { ML_DSA65_PUBLIC_KEY_BYTES, ML_DSA65_SIGNATURE_BYTES } from '../crypto/provider.js';
import { plainTxV3PayloadHash, txMessageV2, txMessageV3 } from '../crypto/signed-message.js';
import type { SignatureVerifier } from '../crypto/verifier.js';

export interface SignedTxFields {
  readonly hash: string;
  readonly from: string;
  readonly to: string;
  readonly value: bigint;
  readonly nonce: bigint;
  readonly signature: string;
  readonly public_key: string;
  /** As the sender set it; v3 covers the effective price (base_fee when omitted). */
  readonly gas_price: bigint | undefined;
  readonly data: string | undefined;
  readonly gas_limit: number | undefined;
  /** The body as sent: what v3 covers once it declares gas_limit. */
  readonly body: Readonly<Record<string, unknown>>;
}

export interface SignaturePolicy {
  /** CHAIN_REQUIRE_TX_V3: refuse v2 when the transaction carries gas_price, data or gas_limit (which v2 does not cover). */
  readonly requireV3: boolean;
  readonly baseFee: bigint;
}

/** The verify-once id of a transaction's signature: its hash, the layout, and the price v3 covers. */
export function signatureCacheId(hash: string, version: SignatureLayout, effectiveGasPrice: bigint): string {
  // An operation's own layout covers no price: its id is the same whatever the block's base fee.
  return version === 'own' ? `${hash}:own` : `${hash}:${version}:${effectiveGasPrice}`;
}

/**
 * Checks a plain transaction's signature and key binding; returns the layout that verified.
 * Every failure is 401 (part 2, Authentication §4–5) with a message saying which check failed.
 */
/**
 * Checks a plain transaction's signature over `ch-tx-v2` or `ch-tx-v3`; returns the layout that
 * verified. Which keys may sign for `from` is authorization's question (kernel/auth), asked
 * before this one so an outsider never buys a verification. Every failure is 401 (part 2,
 * Authentication §4–5) with a message saying which check failed.
 */
export async function verifyTransferSignature(tx: SignedTxFields, policy: SignaturePolicy, publicKey: Uint8Array, verifier: SignatureVerifier): Promise<'v2' | 'v3'> {
  const pk = publicKey;
  const sig = parseHex(tx.signature, ML_DSA65_SIGNATURE_BYTES);
  if (!sig) throw unauthorized(`signature must be ${ML_DSA65_SIGNATURE_BYTES * 2} hex characters (ML-DSA-65)`);
  const carriesExtra = tx.gas_price !== undefined || tx.data !== undefined || tx.gas_limit !== undefined;
  const v3 = (): Uint8Array => txMessageV3(tx.from, tx.to, tx.value, tx.nonce, tx.gas_price ?? policy.baseFee, plainTxV3PayloadHash(tx.body));
  const v2 = (): Uint8Array => txMessageV2(tx.from, tx.to, tx.value, tx.nonce);
  // Try the layout the sender most likely used first, so a valid transaction costs one verify.
  const order: Array<['v2' | 'v3', () => Uint8Array]> = carriesExtra ? [['v3', v3], ['v2', v2]] : [['v2', v2], ['v3', v3]];
  for (const [version, message] of order) {
    if (await verifier.verify(signatureCacheId(tx.hash, version, tx.gas_price ?? policy.baseFee), sig, message(), pk)) {
      if (version === 'v2' && carriesExtra && policy.requireV3) {
        throw unauthorized('this network requires ch-tx-v3 signatures for transactions that carry gas_price, data or gas_limit', 'sign ch-tx-v3|from|to|value|nonce|gas_price|0x<sha3 of data, or with gas_limit of the body without signature and public_key>');
      }
      return version;
    }
  }
  throw unauthorized('invalid signature: it verifies under neither ch-tx-v2 nor ch-tx-v3 for this transaction');
}
