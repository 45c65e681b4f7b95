import { badRequest, unauthorized, type ChainError } from '../errors.js';
import type { SignatureLayout } from '../model/types.js';
import { parseHex } from '../codec/hex.js';
import { ML_DSA65_SIGNATURE_BYTES } from '../crypto/provider.js';
import type { SignatureVerifier } from '../crypto/verifier.js';
import { plainSigningFields, txSigningMessage, type SigningNetwork, type TxLayout } from './signing.js';

export interface SignedTxFields {
  readonly hash: string;
  readonly from: string;
  readonly to: string;
  readonly value: bigint;
  readonly nonce: bigint;
  readonly signature: string;
  readonly public_key: string;
  /** As the sender set it; v3 and v4 cover the effective price (base_fee when omitted). */
  readonly gas_price: bigint | undefined;
  readonly data: string | undefined;
  readonly gas_limit: number | undefined;
}

/** What a network asks of signatures (decisions.md §94–95). */
export interface SignaturePolicy extends SigningNetwork {
  /**
   * `CHAIN_REQUIRE_TX_V3` (on in configs/mainnet): every transaction but a plain one without
   * `data`, `gas_price` and `gas_limit` must be signed `ch-tx-v4`.
   */
  readonly requireStrong: boolean;
}

/**
 * The verify-once id of a transaction's signature: its hash, the layout, and for the layouts that
 * cover it the price (a v3/v4 signature over an older base fee is not taken for one over the
 * block's). v2 and an operation's own layout cover no price: one id whatever the base fee.
 */
export function signatureCacheId(hash: string, version: SignatureLayout, effectiveGasPrice: bigint): string {
  return version === 'own' || version === 'v2' ? `${hash}:${version}` : `${hash}:${version}:${effectiveGasPrice}`;
}

export function signatureBytes(hex: string, field: string): Uint8Array {
  const sig = parseHex(hex, ML_DSA65_SIGNATURE_BYTES);
  if (!sig) throw unauthorized(`${field} must be ${ML_DSA65_SIGNATURE_BYTES * 2} hex characters (ML-DSA-65)`);
  return sig;
}

/**
 * Tries `candidates` in order through the one verifier and returns the first layout that
 * verifies, or undefined. The likeliest layout goes first, so a valid signature costs one
 * verification; the others are tried only for a signature that failed it.
 */
export async function firstVerifying<L extends SignatureLayout>(verifier: SignatureVerifier, hash: string, price: bigint, sig: Uint8Array, publicKey: Uint8Array, candidates: ReadonlyArray<readonly [L, () => Uint8Array]>): Promise<L | undefined> {
  for (const [layout, message] of candidates) {
    if (await verifier.verify(signatureCacheId(hash, layout, price), sig, message(), publicKey)) return layout;
  }
  return undefined;
}

/**
 * Why a body may not stand on a signature of `layout` (decisions.md §94–95), when it verified
 * under it: a `gas_limit` needs `ch-tx-v4` (400, on every network: no other layout covers it), and
 * a network that requires strong signatures takes nothing but v4 for what v2 cannot cover (401).
 */
export function layoutProblem(layout: SignatureLayout, o: { gasLimit: number | undefined; requireStrong: boolean; weakAllowed: boolean; what: string; operation?: string }): ChainError | undefined {
  if (layout === 'v4') return undefined;
  const name = layout === 'own' ? `${o.operation ?? 'the operation'}'s own layout` : `ch-tx-${layout}`;
  if (o.gasLimit !== undefined) return badRequest(`gas_limit needs a ch-tx-v4 signature: ${name} does not cover it`, 'sign ch-tx-v4|chain_id|kind|actor|target|value|nonce|gas_price|gas_limit|payload hash (decisions.md §94)');
  if (o.requireStrong && !o.weakAllowed) return unauthorized(`this network requires ch-tx-v4 signatures for ${o.what}: ${name} is not accepted`, 'sign ch-tx-v4|chain_id|kind|actor|target|value|nonce|gas_price|gas_limit|payload hash (GET /api/v1/status gives chain_id)');
  return undefined;
}

/**
 * Checks a plain transaction's signature; returns the layout that verified. Which keys may sign
 * for `from` is authorization's question (kernel/auth), asked before this one so an outsider never
 * buys a verification. Every failure is 401 (part 2, Authentication §4–5) but a `gas_limit`
 * under a layout that does not cover it (400, decisions.md §95).
 */
export async function verifyTransferSignature(tx: SignedTxFields, policy: SignaturePolicy, publicKey: Uint8Array, verifier: SignatureVerifier): Promise<TxLayout> {
  const sig = signatureBytes(tx.signature, 'signature');
  const fields = plainSigningFields(tx);
  const message = (layout: TxLayout) => (): Uint8Array => txSigningMessage(layout, fields, policy);
  const carriesExtra = tx.gas_price !== undefined || tx.data !== undefined || tx.gas_limit !== undefined;
  // Shipped clients sign v4; part 2's clients sign v2 (v3 when they set a price or data).
  const candidates: Array<readonly [TxLayout, () => Uint8Array]> = carriesExtra
    ? [['v4', message('v4')], ['v3', message('v3')], ['v2', message('v2')]]
    : [['v4', message('v4')], ['v2', message('v2')], ['v3', message('v3')]];
  const layout = await firstVerifying(verifier, tx.hash, tx.gas_price ?? policy.baseFee, sig, publicKey, candidates);
  if (layout === undefined) throw unauthorized('invalid signature: it verifies under none of ch-tx-v4, ch-tx-v3 and ch-tx-v2 for this transaction', 'ch-tx-v4 names GET /api/v1/status chain_id and the kind "tx"');
  const problem = layoutProblem(layout, { gasLimit: tx.gas_limit, requireStrong: policy.requireStrong, weakAllowed: !carriesExtra, what: 'transactions that carry data, gas_price or gas_limit' });
  if (problem) throw problem;
  return layout;
}
