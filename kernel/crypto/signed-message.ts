import { utf8Bytes } from '../codec/utf8.js';
import { canonicalJson } from '../codec/json.js';
import { sha3Hex0x } from './hash.js';

/**
 * The byte layouts that signatures cover (decisions.md §5–7, §94). Integers are base 10 without
 * sign, separators or leading zeros; the text is joined with `|` and signed as UTF-8. Nothing
 * else in the build writes these texts: the verifier, the `chain op` command and the test
 * helpers all build them here (through kernel/tx/signing.ts).
 */
export const TX_V2_TAG = 'ch-tx-v2';
export const TX_V3_TAG = 'ch-tx-v3';
export const TX_V4_TAG = 'ch-tx-v4';
/** `<kind>` of a plain transaction in `ch-tx-v4` (an operation signs its type there, decisions.md §94). */
export const PLAIN_TX_KIND = 'tx';

function uint(n: bigint | number): string {
  if (n < 0) throw new RangeError('signed-message integers are unsigned');
  return n.toString(10);
}

/** A field of a signed text: the `|` that joins them may not appear inside one. */
function field(s: string, name: string): string {
  if (s.includes('|')) throw new RangeError(`signed-message ${name} may not contain "|"`);
  return s;
}

export function txMessageV2(from: string, to: string, value: bigint, nonce: bigint): Uint8Array {
  return utf8Bytes([TX_V2_TAG, from, to, uint(value), uint(nonce)].join('|'));
}

export function txMessageV3(from: string, to: string, value: bigint, nonce: bigint, gasPrice: bigint, payloadHash0x: string): Uint8Array {
  return utf8Bytes([TX_V3_TAG, from, to, uint(value), uint(nonce), uint(gasPrice), payloadHash0x].join('|'));
}

/** What `ch-tx-v4` names besides v3's fields: the network and the kind of act, so a signature is good for one act on one chain. */
export interface TxV4Fields {
  readonly chainId: string;
  /** `tx` for a plain transaction, else the operation's type (`grant_session`, `vote`, …). */
  readonly kind: string;
  readonly actor: string;
  readonly target: string;
  readonly value: bigint;
  readonly nonce: bigint;
  /** The price the transaction pays: the body's `gas_price`, or `base_fee` when the body has none. */
  readonly gasPrice: bigint;
  /** The body's `gas_limit`, 0 when absent. */
  readonly gasLimit: number;
  readonly payloadHash0x: string;
}

/** `ch-tx-v4|<chain_id>|<kind>|<actor>|<target>|<value>|<nonce>|<gas_price>|<gas_limit>|<payload hash>` (decisions.md §94). */
export function txMessageV4(f: TxV4Fields): Uint8Array {
  return utf8Bytes(
    [TX_V4_TAG, field(f.chainId, 'chain_id'), field(f.kind, 'kind'), f.actor, f.target, uint(f.value), uint(f.nonce), uint(f.gasPrice), uint(f.gasLimit), f.payloadHash0x].join('|'),
  );
}

/** The payload hash of a plain transaction without data: most transfers, hashed once. */
const EMPTY_PAYLOAD_HASH = sha3Hex0x('');

/** v3/v4 payload hash of a plain transaction: SHA3-256 of its `data` text (empty when absent). */
export function plainTxPayloadHash(data: string | undefined): string {
  return data === undefined || data === '' ? EMPTY_PAYLOAD_HASH : sha3Hex0x(data);
}

/**
 * v3/v4 payload hash of an operation: the body without `signature`, `public_key` and `_psig`,
 * keys sorted, compact JSON (so it covers `nonce`, `gas_price`, `gas_limit` and every field of
 * the operation).
 */
export function operationPayloadHash(body: Readonly<Record<string, unknown>>): string {
  const rest: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) {
    if (k === 'signature' || k === 'public_key' || k === '_psig') continue;
    rest[k] = v;
  }
  return sha3Hex0x(canonicalJson(rest));
}
