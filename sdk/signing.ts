import { operationPayloadHash } from '../kernel/crypto/signed-message.js';
import { ACTOR_FIELDS, VALUE_FIELDS } from '../kernel/ops/fields.js';
import { plainSigningFields, txSigningMessage } from '../kernel/tx/signing.js';
import { hexOf } from '../kernel/light-client/bytes.js';
import { SdkError } from './errors.js';
import type { ChainKey } from './keys.js';

/**
 * Bodies signed `ch-tx-v4` (decisions.md §94) through the kernel's one builder
 * (kernel/tx/signing.ts), so the SDK and the browser module sign exactly the bytes the node
 * verifies. v4 names the chain and the act and covers the price, the limit and the whole body.
 */

/** A whole number of ucoin: a safe JSON integer or a bigint (sent as a JSON number, part 1 Amounts 3). */
export type Ucoin = number | bigint;

export interface TransferInput {
  readonly chainId: string;
  readonly to: string;
  readonly value: Ucoin;
  /** The account nonce: last confirmed + pending + 1 (the account's `next_nonce`). */
  readonly nonce: Ucoin;
  /** ucoin per gas, at least `base_fee`; v4 covers it. */
  readonly gasPrice: Ucoin;
  readonly data?: string;
  readonly gasLimit?: number;
}

function whole(x: Ucoin, name: string): bigint {
  if (typeof x === 'bigint') {
    if (x < 0n) throw new SdkError('input', `${name} must not be negative`);
    return x;
  }
  if (!Number.isSafeInteger(x) || x < 0) throw new SdkError('input', `${name} must be a non-negative safe integer of ucoin`);
  return BigInt(x);
}

/** JSON has no bigint: an amount travels as a number, so it must be a safe integer there. */
function wire(x: bigint, name: string): number {
  if (x > BigInt(Number.MAX_SAFE_INTEGER)) throw new SdkError('input', `${name} ${x} is above 2^53 - 1 and cannot travel as a JSON number`);
  return Number(x);
}

/** A `POST /api/v1/transactions` body signed `ch-tx-v4|<chain_id>|tx|<from>|<to>|…` (payload: `data`, empty when absent). */
export function signTransfer(key: ChainKey, t: TransferInput): Record<string, unknown> {
  const value = whole(t.value, 'value');
  const nonce = whole(t.nonce, 'nonce');
  const gasPrice = whole(t.gasPrice, 'gas_price');
  const body: Record<string, unknown> = {
    from: key.address,
    to: t.to,
    value: wire(value, 'value'),
    nonce: wire(nonce, 'nonce'),
    gas_price: wire(gasPrice, 'gas_price'),
    ...(t.data !== undefined ? { data: t.data } : {}),
    ...(t.gasLimit !== undefined ? { gas_limit: t.gasLimit } : {}),
  };
  const fields = plainSigningFields({ from: key.address, to: t.to, value, nonce, gas_price: gasPrice, gas_limit: t.gasLimit, data: t.data });
  const message = txSigningMessage('v4', fields, { chainId: t.chainId, baseFee: gasPrice });
  return { ...body, public_key: key.publicKeyHex, signature: hexOf(key.sign(message)) };
}

export interface OperationInput {
  readonly chainId: string;
  /** The operation's type (decisions.md §17), `<kind>` of v4. */
  readonly type: string;
  /** Its Signs-for address (resolved: a body field's value when the operation names one). */
  readonly target: string;
  /** The operation's body without `nonce`, `gas_price`, `public_key` and `signature`; the actor field filled. */
  readonly body: Readonly<Record<string, unknown>>;
  readonly gasPrice: Ucoin;
  /** A millisecond timestamp above the actor's last accepted one (decisions.md §6); see `OperationNonces`. */
  readonly nonce: Ucoin;
  readonly gasLimit?: number;
  /** The body field signed as `<actor>`; by default the first of §6's list the body has. */
  readonly actorField?: string;
  /** The body field signed as `<value>`; by default the first of §6's amount fields the body has; null signs 0. */
  readonly valueField?: string | null;
}

/**
 * An operation's body signed `ch-tx-v4|<chain_id>|<type>|<actor>|<target>|<value>|<nonce>|<gas_price>|<gas_limit>|<payload>`,
 * the payload being the body as sent without `signature` and `public_key` (keys sorted, compact JSON).
 */
export function signOperation(key: ChainKey, o: OperationInput): Record<string, unknown> {
  const actorField = o.actorField ?? ACTOR_FIELDS.find((f) => o.body[f] !== undefined);
  const actor = actorField === undefined ? undefined : o.body[actorField];
  if (typeof actor !== 'string') throw new SdkError('input', `${o.type}: the body names no actor (${o.actorField ?? ACTOR_FIELDS.join(', ')})`);
  const valueField = o.valueField === undefined ? VALUE_FIELDS.find((f) => o.body[f] !== undefined) : o.valueField;
  const value = valueField === null || valueField === undefined || o.body[valueField] === undefined ? 0n : whole(o.body[valueField] as Ucoin, valueField);
  const nonce = whole(o.nonce, 'nonce');
  const gasPrice = whole(o.gasPrice, 'gas_price');
  const unsigned: Record<string, unknown> = {
    ...o.body,
    nonce: wire(nonce, 'nonce'),
    gas_price: wire(gasPrice, 'gas_price'),
    ...(o.gasLimit !== undefined ? { gas_limit: o.gasLimit } : {}),
  };
  const message = txSigningMessage(
    'v4',
    { kind: o.type, actor, target: o.target, value, nonce, gasPrice, gasLimit: o.gasLimit, payloadHash: operationPayloadHash(unsigned) },
    { chainId: o.chainId, baseFee: gasPrice },
  );
  return { ...unsigned, public_key: key.publicKeyHex, signature: hexOf(key.sign(message)) };
}

/**
 * Millisecond nonces of decisions.md §6, strictly increasing for this process whatever the clock
 * does: two operations signed in one millisecond get consecutive nonces.
 */
export class OperationNonces {
  private last = 0;

  next(now = Date.now()): number {
    this.last = Math.max(now, this.last + 1);
    return this.last;
  }
}
