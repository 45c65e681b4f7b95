import { Type } from '@sinclair/typebox';
import { formatCoin } from '../../kernel/sdk.js';
import type { Client, Lock, Receipt, Totals } from './store.js';

/** decisions.md §74: a lock as served: `value_human`, and the heights not set yet as null. */
export function lockView(l: Lock): Record<string, unknown> {
  return { ...l, value_human: formatCoin(BigInt(l.value)), commit_height: l.commit_height ?? null, refund_height: l.refund_height ?? null };
}

export function receiptView(r: Receipt): Record<string, unknown> {
  return { ...r, value_human: formatCoin(BigInt(r.value)) };
}

/** §74: `cross_shard` on `GET /api/v1/transactions/:hash`, as the lock now stands. */
export function crossShardOfTx(l: Lock): Record<string, unknown> {
  return { id: l.id, dest_shard: l.dest_shard, status: l.status, deadline_height: l.deadline_height, commit_height: l.commit_height ?? null, refund_height: l.refund_height ?? null };
}

export function totalsView(t: Totals): Record<string, unknown> {
  return { locked: t.locked, locked_human: formatCoin(t.locked), sent: t.sent, sent_human: formatCoin(t.sent), refunded: t.refunded, refunded_human: formatCoin(t.refunded), received: t.received, received_human: formatCoin(t.received) };
}

export function clientView(c: Client): Record<string, unknown> {
  return { shard: c.shard, validators: c.validators, validators_hash: c.validators_hash, trusted_height: c.trusted_height };
}

const Height = () => Type.Integer({ minimum: 0 });
const NullableHeight = () => Type.Union([Height(), Type.Null()]);

export const LockView = Type.Object({
  id: Type.String(),
  from: Type.String(),
  to: Type.String(),
  value: Type.Integer({ minimum: 1 }),
  value_human: Type.String(),
  source_shard: Height(),
  dest_shard: Height(),
  lock_height: Height(),
  deadline_height: Height(),
  status: Type.String({ description: 'locked, committed or refunded' }),
  commit_height: NullableHeight(),
  refund_height: NullableHeight(),
});

export const ReceiptView = Type.Object({
  source_shard: Height(),
  id: Type.String(),
  from: Type.String(),
  to: Type.String(),
  value: Type.Integer({ minimum: 1 }),
  value_human: Type.String(),
  outcome: Type.String({ description: 'committed or aborted' }),
  height: Height(),
  proof_height: Height(),
  tx_hash: Type.String(),
});

export const ClientView = Type.Object({
  shard: Height(),
  validators: Type.Array(Type.Object({ address: Type.String(), public_key: Type.String(), power: Type.Integer({ minimum: 1 }) })),
  validators_hash: Type.String(),
  trusted_height: Height(),
});

export const SubmittedView = Type.Object({ success: Type.Boolean(), status: Type.String(), tx_hash: Type.String(), estimated_block: Height() }, { description: "decisions.md §17's answer" });
