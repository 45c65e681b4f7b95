import { badRequest, unauthorized } from '../errors.js';
import { wireAmount } from '../codec/amount.js';
import { sortedKeys } from '../codec/sorted-keys.js';
import { parseGasLimit } from './gas-limit.js';
import { Type } from '@sinclair/typebox';
import { AddressString, UcoinInteger } from './wire-schemas.js';
import { firstRefusal } from '../codec/schema-check.js';

/** Largest `data` payload a transaction may carry (bytes of its JSON string). */
export const MAX_TX_DATA_BYTES = 128 * 1024;
const ALLOWED_FIELDS = new Set(['from', 'to', 'value', 'nonce', 'signature', 'public_key', 'gas_price', 'data', 'gas_limit']);

/**
 * The body of `POST /api/v1/transactions` (part 1) as a schema: what a client that builds one reads
 * its field bounds from (the assistant tool server's `to` and `value`). `parseSubmission` checks
 * the addresses and amounts with these property schemas, in the order it answers a client.
 */
export const TransactionBody = Type.Object(
  {
    from: AddressString,
    to: { ...AddressString, description: 'the recipient: an account, a contract (chain:<10 hex>.app), or chain:system.deploy' },
    value: UcoinInteger,
    nonce: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: "the account's next nonce (last confirmed + pending + 1)" }),
    signature: Type.String({ description: 'hex ML-DSA-65 signature over the ch-tx message' }),
    public_key: Type.String({ description: 'hex ML-DSA-65 public key' }),
    gas_price: Type.Optional({ ...UcoinInteger, description: 'ucoin per gas, at least base_fee' }),
    data: Type.Optional(Type.String({ description: `a contract call or deploy as JSON text (hex also accepted), at most ${MAX_TX_DATA_BYTES} bytes` })),
    gas_limit: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: 'most gas the transaction may use (needs ch-tx-v4)' })),
  },
  { additionalProperties: false },
);

export interface SubmittedFields {
  from: string;
  to: string;
  value: bigint;
  nonce: bigint;
  signature: string;
  public_key: string;
  gas_price: bigint | undefined;
  data: string | undefined;
  /** Not in part 1's table: optional, and absent for every client that does not know it (kernel/tx/gas-limit.ts). */
  gas_limit: number | undefined;
  /** The body exactly as sent (only the allowed fields), for hashing and storage. */
  body: Record<string, unknown>;
}

/**
 * Shape checks of `POST /api/v1/transactions` (part 1, "Body of POST /api/v1/transactions").
 * The order is deliberate: a transfer whose from/to/value are missing or not of their type is
 * answered with the one message the spec names, before anything else is looked at. Every
 * failure is 400 but an absent signature or public key, which is 401.
 */
export function parseSubmission(raw: unknown): SubmittedFields {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw badRequest('transaction body must be a JSON object');
  const b = raw as Record<string, unknown>;
  if (typeof b.from !== 'string' || typeof b.to !== 'string' || typeof b.value !== 'number') {
    throw badRequest('missing or invalid from/to/value: from and to must be address strings and value a JSON number in ucoin', 'send value as an integer number, e.g. "value": 1000000');
  }
  const unknown = Object.keys(b).filter((k) => !ALLOWED_FIELDS.has(k));
  if (unknown.length > 0) throw badRequest(`unknown field(s): ${unknown.sort().join(', ')}`);
  for (const field of ['from', 'to'] as const) {
    const refused = firstRefusal(TransactionBody.properties[field], b[field]);
    if (refused) throw badRequest(`${field}: ${refused.message}`);
  }
  const value = wireAmount(b.value);
  if (value === null) throw badRequest('value must be a non-negative integer number of ucoin (at most 2^53-1)');
  if (typeof b.nonce !== 'number') throw badRequest('nonce is required and must be a JSON number');
  const nonce = wireAmount(b.nonce);
  if (nonce === null || nonce < 1n) throw badRequest('nonce must be a positive integer');
  // A missing or empty signature or key is a missing signature (part 2, Authentication §4: 401),
  // not a malformed body; it costs nothing to see, unlike the verification it would need.
  if (typeof b.signature !== 'string' || b.signature.length === 0) throw unauthorized('signature is required (hex ML-DSA-65 signature)');
  if (typeof b.public_key !== 'string' || b.public_key.length === 0) throw unauthorized('public_key is required (hex ML-DSA-65 public key)');
  let gasPrice: bigint | undefined;
  if (b.gas_price !== undefined) {
    const g = wireAmount(b.gas_price);
    if (g === null) throw badRequest('gas_price must be a non-negative integer number of ucoin per gas');
    gasPrice = g;
  }
  if (b.data !== undefined) {
    if (typeof b.data !== 'string') throw badRequest('data must be a string (JSON text or hex)');
    if (Buffer.byteLength(b.data, 'utf8') > MAX_TX_DATA_BYTES) throw badRequest(`data is larger than ${MAX_TX_DATA_BYTES} bytes`);
  }
  const gasLimit = parseGasLimit(b.gas_limit);
  const body: Record<string, unknown> = {};
  for (const k of sortedKeys(b)) body[k] = b[k];
  return {
    from: b.from,
    to: b.to,
    value,
    nonce,
    signature: b.signature,
    public_key: b.public_key,
    gas_price: gasPrice,
    data: b.data as string | undefined,
    gas_limit: gasLimit,
    body,
  };
}
