import { utf8Bytes } from '../codec/utf8.js';
import { canonicalJson } from '../codec/json.js';
import { sha3Hex0x } from './hash.js';

/**
 * The byte layouts that signatures cover (decisions.md §5–7). Integers are base 10 without sign,
 * separators or leading zeros; the text is joined with `|` and signed as UTF-8.
 */
export const TX_V2_TAG = 'ch-tx-v2';
export const TX_V3_TAG = 'ch-tx-v3';

function uint(n: bigint): string {
  if (n < 0n) throw new RangeError('signed-message integers are unsigned');
  return n.toString(10);
}

export function txMessageV2(from: string, to: string, value: bigint, nonce: bigint): Uint8Array {
  return utf8Bytes([TX_V2_TAG, from, to, uint(value), uint(nonce)].join('|'));
}

export function txMessageV3(from: string, to: string, value: bigint, nonce: bigint, gasPrice: bigint, payloadHash0x: string): Uint8Array {
  return utf8Bytes([TX_V3_TAG, from, to, uint(value), uint(nonce), uint(gasPrice), payloadHash0x].join('|'));
}

/** v3 payload hash of a plain transaction: SHA3-256 of its `data` text (empty when absent). */
export function plainTxPayloadHash(data: string | undefined): string {
  return sha3Hex0x(data ?? '');
}

/**
 * v3 payload hash of an operation: the body without `signature`, `public_key` and `_psig`, keys
 * sorted, compact JSON.
 */
export function operationPayloadHash(body: Readonly<Record<string, unknown>>): string {
  const rest: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) {
    if (k === 'signature' || k === 'public_key' || k === '_psig') continue;
    rest[k] = v;
  }
  return sha3Hex0x(canonicalJson(rest));
}

/**
 * v3 payload hash of a plain transaction body: its `data` as §7 says, or, when the body declares
 * `gas_limit` (a field part 1 does not list), the body as an operation's is taken, so the limit
 * is signed too. A relay that could change an unsigned limit could make the transaction fail out
 * of gas at its sender's expense; a client that sends no limit signs exactly what §7 says.
 */
export function plainTxV3PayloadHash(body: Readonly<Record<string, unknown>>): string {
  return body.gas_limit === undefined ? plainTxPayloadHash(typeof body.data === 'string' ? body.data : undefined) : operationPayloadHash(body);
}
