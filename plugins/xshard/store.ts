import { Type, type Static } from '@sinclair/typebox';
import { defineStore, keyPart } from '../../kernel/sdk.js';

/*
 * The xshard plugin's state (namespace `xshard`). `lock` and `receipt` are decisions.md §74–§76's
 * provable keys: their bytes are the canonical JSON of the fields present (§84), which the other
 * shard proves against this shard's certified headers, so their layout never changes. The record
 * codec writes sorted keys and no whitespace, and every field is a string or a safe integer, so
 * the stored bytes are exactly that canonical JSON.
 */

const Height = () => Type.Integer({ minimum: 0 });
/** A transaction hash, as the record's key spells it: a malformed id is the body shape's 400 (§76), not a key error. */
const TxHash = (description?: string) => Type.String({ pattern: '^0x[0-9a-f]{64}$', ...(description !== undefined ? { description } : {}) });
const Shard = () => Type.Integer({ minimum: 0, maximum: 1023 });
/** Safe integers only: the stored bytes are canonical JSON whose integers any client parses exactly. */
const Value = () => Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });

export const LockRecord = Type.Object({
  id: TxHash('the transaction hash'),
  from: Type.String(),
  to: Type.String(),
  value: Value(),
  source_shard: Shard(),
  dest_shard: Shard(),
  lock_height: Height(),
  deadline_height: Height(),
  status: Type.Union([Type.Literal('locked'), Type.Literal('committed'), Type.Literal('refunded')]),
  commit_height: Type.Optional(Height()),
  refund_height: Type.Optional(Height()),
});
export type Lock = Static<typeof LockRecord>;

export const ReceiptRecord = Type.Object({
  source_shard: Shard(),
  id: TxHash(),
  from: Type.String(),
  to: Type.String(),
  value: Value(),
  outcome: Type.Union([Type.Literal('committed'), Type.Literal('aborted')]),
  height: Height(),
  proof_height: Height(),
  tx_hash: TxHash(),
});
export type Receipt = Static<typeof ReceiptRecord>;

export const ClientValidator = Type.Object({ address: Type.String(), public_key: Type.String(), power: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) });

export const ClientRecord = Type.Object({
  shard: Shard(),
  chain_id: Type.String(),
  validators: Type.Array(ClientValidator),
  validators_hash: Type.String(),
  trusted_height: Height(),
});
export type Client = Static<typeof ClientRecord>;

export const TotalsRecord = Type.Object({
  locked: Type.BigInt({ minimum: 0n }),
  sent: Type.BigInt({ minimum: 0n }),
  refunded: Type.BigInt({ minimum: 0n }),
  received: Type.BigInt({ minimum: 0n }),
});
export type Totals = Static<typeof TotalsRecord>;

/** §74 `xshard/lock/<id>`: a transfer this shard locked, as it now stands. */
export const locks = defineStore('xshard', {
  name: 'locks',
  description: 'a cross-shard transfer this shard locked (decisions.md §74): its value held until a proven receipt settles it; canonical JSON, proven by the destination',
  key: ['lock', keyPart.hash('id')],
  value: LockRecord,
});

/** §76 `xshard/receipt/<source_shard>/<id>`: the one outcome this shard wrote for a lock of another. */
export const receipts = defineStore('xshard', {
  name: 'receipts',
  description: 'the single receipt this shard wrote for another shard\'s lock (decisions.md §76), committed or aborted, never changed; canonical JSON, proven by the source',
  key: ['receipt', keyPart.decimal('source_shard'), keyPart.hash('id')],
  value: ReceiptRecord,
});

/** §72: what this shard trusts of each other shard. */
export const clients = defineStore('xshard', {
  name: 'clients',
  description: "this shard's client of another shard (decisions.md §72): the validator set it trusts and the height from which it does",
  key: ['client', keyPart.integer('shard', { width: 4 })],
  value: ClientRecord,
});

/** §76: the per-shard totals `GET /api/v1/shards` shows under `cross_shard`. */
export const totals = defineStore('xshard', {
  name: 'totals',
  description: "the value of this shard's locks by status and of its committed receipts (decisions.md §76)",
  key: ['totals'],
  value: TotalsRecord,
});

export const XSHARD_STORES = [locks, receipts, clients, totals] as const;

export const lockKey = (id: string): string => `xshard/lock/${id}`;
export const receiptKey = (sourceShard: number, id: string): string => `xshard/receipt/${sourceShard}/${id}`;
