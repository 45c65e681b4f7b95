import { PLAIN_TX_KIND, plainTxPayloadHash, txMessageV2, txMessageV3, txMessageV4 } from '../crypto/signed-message.js';

/**
 * What a `ch-tx` signature covers, and the one place its bytes are built from a transaction or an
 * operation: the node's verifier (tx/signature.ts, ops/signature.ts), the `chain op` command and
 * the test helpers all call `txSigningMessage`, so no second copy of a layout exists.
 *
 * - `v2` (part 2): `<actor>|<target>|<value>|<nonce>`; covers no price, no limit, no other field.
 * - `v3` (decisions.md §7): adds the price and a payload hash (`data`, or an operation's body).
 * - `v4` (decisions.md §94): adds the chain id, the kind of act and the gas limit, so a signature
 *   is good for one act on one chain; shipped clients sign it, and a network that requires strong
 *   signatures takes nothing else (but a plain transfer without data, price or limit).
 */
export type TxLayout = 'v2' | 'v3' | 'v4';

/** The fields a `ch-tx` layout may cover, read from a plain transaction or an operation. */
export interface SigningFields {
  /** `tx` for a plain transaction, else the operation's type. */
  readonly kind: string;
  /** `from` of a plain transaction; an operation's actor field. */
  readonly actor: string;
  /** `to` of a plain transaction; an operation's Signs-for address. */
  readonly target: string;
  readonly value: bigint;
  readonly nonce: bigint;
  /** The body's `gas_price`, undefined when omitted (v3/v4 then cover `base_fee`). */
  readonly gasPrice: bigint | undefined;
  /** The body's `gas_limit`, undefined when omitted. */
  readonly gasLimit: number | undefined;
  /** SHA3-256 of the payload: a plain transaction's `data`, an operation's body (crypto/signed-message.ts). */
  readonly payloadHash: string;
}

/** What a layout needs from the network: its chain id (v4) and the base fee that stands for an omitted price (v3, v4). */
export interface SigningNetwork {
  readonly chainId: string;
  readonly baseFee: bigint;
}

/** The fields of a plain transaction body (`POST /api/v1/transactions`). */
export function plainSigningFields(t: { from: string; to: string; value: bigint; nonce: bigint; gas_price: bigint | undefined; gas_limit: number | undefined; data: string | undefined }): SigningFields {
  return { kind: PLAIN_TX_KIND, actor: t.from, target: t.to, value: t.value, nonce: t.nonce, gasPrice: t.gas_price, gasLimit: t.gas_limit, payloadHash: plainTxPayloadHash(t.data) };
}

/** The bytes a `ch-tx` signature of `layout` covers. */
export function txSigningMessage(layout: TxLayout, f: SigningFields, net: SigningNetwork): Uint8Array {
  if (layout === 'v2') return txMessageV2(f.actor, f.target, f.value, f.nonce);
  const price = f.gasPrice ?? net.baseFee;
  if (layout === 'v3') return txMessageV3(f.actor, f.target, f.value, f.nonce, price, f.payloadHash);
  return txMessageV4({ chainId: net.chainId, kind: f.kind, actor: f.actor, target: f.target, value: f.value, nonce: f.nonce, gasPrice: price, gasLimit: f.gasLimit ?? 0, payloadHash0x: f.payloadHash });
}

/** Whether a verified layout covers the price: `v3` and `v4` do; `v2` and an operation's own layout do not. */
export function coversPrice(layout: string): boolean {
  return layout === 'v3' || layout === 'v4';
}

/**
 * The price a transaction pays once its signature's layout is known (decisions.md §95): the
 * body's `gas_price` when the signature covers it, else exactly `base_fee`, whatever the body
 * says (a relayer could have raised an uncovered price to hand the sender's coins to a proposer).
 */
export function effectiveGasPrice(bodyGasPrice: bigint | undefined, layout: string, baseFee: bigint): bigint {
  return bodyGasPrice !== undefined && coversPrice(layout) ? bodyGasPrice : baseFee;
}
