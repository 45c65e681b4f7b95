import { Type, type Static } from '@sinclair/typebox';
import { badRequest, conflict, firstRefusal, isKeyDerivedAddress, notFound, type ChainError, type ReadContext, type ShardView, type Tx, type TxContext, type lightClient } from '../../kernel/sdk.js';
import { servedHeaderShard, verifyBundle, verifySetUpdate } from './bundle.js';
import { clients, lockKey, locks, LockRecord, receiptKey, ReceiptRecord, receipts, totals, type Lock, type Receipt, type Totals } from './store.js';
import { RELAY_TIMEOUT_PARAM } from './params.js';
import { xshardClientUpdated, xshardLocked, xshardReceipt, xshardSettled } from './events.js';

/*
 * decisions.md §74–§76 as rules every validator judges alike from its shard's state: the lock at
 * the source, the one receipt at the destination, the settlement at the source, the set updates
 * of the clients. Each judge runs in §76's order at admission (the route, checkTx) and again in
 * the block, where a transaction that lost a race fails with its error and no effect.
 */

/** The unsigned relay writes (§72, §76): system transactions, free, counted against max_block_gas. */
export const COMMIT_TX = 'cross_shard_commit';
export const ACK_TX = 'cross_shard_ack';
export const HEADERS_TX = 'cross_shard_headers';
/** Who a relay write is from: nobody signs it (the certifying shard's precommits authorise it). */
export const RELAY_SENDER = 'chain:system.xshard';
export const RELAY_GAS: Readonly<Record<string, number>> = { [COMMIT_TX]: 120, [ACK_TX]: 100, [HEADERS_TX]: 200 };

/** §84's proven-read object as a bundle carries it; the light client checks what is inside. */
export const ProofObject = Type.Object(
  {
    height: Type.Integer({ minimum: 0 }),
    state_root: Type.String(),
    entries: Type.Array(Type.Object({}, { additionalProperties: true })),
    header: Type.Object({}, { additionalProperties: true }),
    certificate: Type.Object({}, { additionalProperties: true }),
    validators: Type.Array(Type.Object({}, { additionalProperties: true })),
  },
  { additionalProperties: true },
);

export const LockBundle = Type.Object({ lock: LockRecord, proof: ProofObject }, { description: 'a lock and its proof (decisions.md §75), as GET /api/v1/cross-shard/transfers/:id/proof answers it' });
export const ReceiptBundle = Type.Object({ receipt: ReceiptRecord, proof: ProofObject }, { description: 'a receipt and its proof (decisions.md §75), as GET /api/v1/cross-shard/receipts/:source_shard/:id/proof answers it' });
export const HeaderUpdate = Type.Object(
  {
    height: Type.Optional(Type.Integer({ minimum: 1 })),
    header: Type.Object({}, { additionalProperties: true }),
    certificate: Type.Object({}, { additionalProperties: true }),
    validators: Type.Array(Type.Object({}, { additionalProperties: true })),
    next_validators: Type.Array(Type.Object({}, { additionalProperties: true })),
  },
  { description: "a GET /api/v1/blocks/:height/commit answer of another shard plus the next set its header names (decisions.md §72)" },
);
export type LockBundleBody = Static<typeof LockBundle>;
export type ReceiptBundleBody = Static<typeof ReceiptBundle>;
export type HeaderUpdateBody = Static<typeof HeaderUpdate>;

const MAX_VALUE = BigInt(Number.MAX_SAFE_INTEGER);

/** §74's rules beyond a transfer's, each refusal naming its rule. */
export function crossShardTransferProblem(tx: Pick<Tx, 'to' | 'value' | 'data'>, shards: ShardView): ChainError | undefined {
  if (shards.owns(tx.to)) return badRequest(`to ${tx.to} belongs to this shard: not a cross-shard transfer`);
  if (!isKeyDerivedAddress(tx.to)) return badRequest(`to ${tx.to}: a transfer to another shard goes only to a key-derived .human (chain: + 15 hex + .human)`, 'send to the recipient\'s own key-derived address');
  if (tx.data !== undefined) return badRequest('data: a transfer to another shard carries no data', 'leave data out');
  if (tx.value < 1n) return badRequest(`value: a transfer to another shard moves at least 1 ucoin, got ${tx.value}`);
  if (tx.value > MAX_VALUE) return badRequest(`value: a transfer to another shard moves at most ${MAX_VALUE} ucoin (its lock record holds an exact JSON integer), got ${tx.value}`);
  return undefined;
}

const ZERO: Totals = { locked: 0n, sent: 0n, refunded: 0n, received: 0n };

export async function readTotals(ctx: Pick<ReadContext, 'store'>): Promise<Totals> {
  return (await totals.get(ctx.store)) ?? ZERO;
}

async function addTotals(ctx: TxContext, change: Partial<Totals>): Promise<void> {
  const t = await readTotals(ctx);
  totals.set(ctx.store, { locked: t.locked + (change.locked ?? 0n), sent: t.sent + (change.sent ?? 0n), refunded: t.refunded + (change.refunded ?? 0n), received: t.received + (change.received ?? 0n) });
}

/** §74 in the block: the sender pays the value into the lock (the kernel took the fee), with the deadline of today's parameter. */
export async function lockTransfer(ctx: TxContext): Promise<void> {
  const tx = ctx.tx;
  const problem = crossShardTransferProblem(tx, ctx.shard);
  if (problem) throw problem;
  await ctx.accounts.debit(tx.from, tx.value);
  const timeout = Number(await ctx.params.get(RELAY_TIMEOUT_PARAM));
  const lock: Lock = { id: tx.hash, from: tx.from, to: tx.to, value: Number(tx.value), source_shard: ctx.shard.id, dest_shard: ctx.shard.shardOf(tx.to), lock_height: ctx.height, deadline_height: ctx.height + timeout, status: 'locked' };
  locks.set(ctx.store, tx.hash, lock);
  await addTotals(ctx, { locked: tx.value });
  xshardLocked.emit(ctx, { id: lock.id, from: lock.from, to: lock.to, value: tx.value, dest_shard: lock.dest_shard, deadline_height: lock.deadline_height });
}

function shape<T>(schema: Parameters<typeof firstRefusal>[0], body: unknown, what: string): T {
  const bad = firstRefusal(schema, body);
  if (bad) throw badRequest(`${what}: ${bad.name}: ${bad.message}`);
  return body as T;
}

/**
 * The outcome a relay write waiting in this node's pool will give this key (`committed` or
 * `aborted` for a receipt, `committed` or `refunded` for a lock), or undefined when none waits
 * (node-local; admission only).
 */
export type PendingCheck = (key: string) => string | undefined;

/** What a verified commit writes. */
export interface JudgedCommit {
  readonly lock: Lock;
  readonly proofHeight: number;
}

/**
 * §76 admission of a commit, in its order: shape; `lock.dest_shard` is this shard; the header's
 * shard is the lock's source; no receipt written or pending; the bundle verifies (with the
 * proven lock `locked` and its `to` this shard's).
 */
export async function judgeCommit(ctx: ReadContext, body: unknown, pending?: PendingCheck, verify?: lightClient.SignatureCheck): Promise<JudgedCommit> {
  const { lock, proof } = shape<LockBundleBody>(LockBundle, body, 'body');
  if (lock.dest_shard !== ctx.shard.id) throw badRequest(`lock.dest_shard ${lock.dest_shard} is not this shard (${ctx.shard.id})`, 'send the commit to a node of the lock\'s dest_shard, or through the gateway');
  const headerShard = servedHeaderShard(proof);
  if (headerShard !== lock.source_shard) throw badRequest(`the header's shard ${String(headerShard)} is not the lock's source_shard ${lock.source_shard}`);
  const written = await receipts.get(ctx.store, lock.source_shard, lock.id);
  if (written) throw conflict(`a receipt for lock ${lock.id} of shard ${lock.source_shard} is already written: ${written.outcome}`);
  const coming = pending?.(receiptKey(lock.source_shard, lock.id));
  if (coming !== undefined) throw conflict(`a receipt for lock ${lock.id} of shard ${lock.source_shard} is pending: ${coming} (a commit for it waits in the pool)`);
  const client = await clients.get(ctx.store, lock.source_shard);
  if (!client) throw badRequest(`the bundle does not verify: validator_set: this shard keeps no client of shard ${lock.source_shard}`);
  const proofHeight = verifyBundle(lock, proof, lockKey(lock.id), client, verify);
  if (lock.status !== 'locked') throw badRequest(`the bundle does not verify: record: the proven lock is ${lock.status}, not locked`);
  if (lock.source_shard === lock.dest_shard || !ctx.shard.owns(lock.to)) throw badRequest(`the bundle does not verify: record: the proven lock's to ${lock.to} is not this shard's`);
  return { lock, proofHeight };
}

/** §76 at the destination, in the block: the one receipt, `committed` before the deadline (and `to` credited), else `aborted`. */
export async function applyCommit(ctx: TxContext, body: unknown, verify?: lightClient.SignatureCheck): Promise<Receipt> {
  const { lock, proofHeight } = await judgeCommit(ctx, body, undefined, verify);
  const outcome = proofHeight < lock.deadline_height ? 'committed' : 'aborted';
  const receipt: Receipt = { source_shard: lock.source_shard, id: lock.id, from: lock.from, to: lock.to, value: lock.value, outcome, height: ctx.height, proof_height: proofHeight, tx_hash: ctx.tx.hash };
  receipts.set(ctx.store, lock.source_shard, lock.id, receipt);
  const value = BigInt(lock.value);
  if (outcome === 'committed') {
    await ctx.accounts.credit(lock.to, value);
    await addTotals(ctx, { received: value });
  }
  xshardReceipt.emit(ctx, { id: lock.id, source_shard: lock.source_shard, to: lock.to, value: outcome === 'committed' ? value : 0n, outcome, proof_height: proofHeight, tx_hash: ctx.tx.hash });
  return receipt;
}

export interface JudgedAck {
  readonly lock: Lock;
  readonly receipt: Receipt;
}

/**
 * §76 admission of an ack, in its order: shape; `receipt.source_shard` is this shard; the lock
 * exists (404); the header's shard is the lock's destination; the lock is still `locked`; the
 * bundle verifies, and the receipt's `from`, `to` and `value` are the lock's.
 */
export async function judgeAck(ctx: ReadContext, body: unknown, pending?: PendingCheck, verify?: lightClient.SignatureCheck): Promise<JudgedAck> {
  const { receipt, proof } = shape<ReceiptBundleBody>(ReceiptBundle, body, 'body');
  if (receipt.source_shard !== ctx.shard.id) throw badRequest(`receipt.source_shard ${receipt.source_shard} is not this shard (${ctx.shard.id})`, 'send the ack to a node of the receipt\'s source_shard, or through the gateway');
  const lock = await locks.get(ctx.store, receipt.id);
  if (!lock) throw notFound(`no lock ${receipt.id} on shard ${ctx.shard.id}`);
  const headerShard = servedHeaderShard(proof);
  if (headerShard !== lock.dest_shard) throw badRequest(`the header's shard ${String(headerShard)} is not the lock's dest_shard ${lock.dest_shard}`);
  if (lock.status !== 'locked') throw conflict(`lock ${lock.id} is already ${lock.status}`);
  const coming = pending?.(lockKey(lock.id));
  if (coming !== undefined) throw conflict(`lock ${lock.id} is being settled: ${coming} (an ack for it waits in the pool)`);
  const client = await clients.get(ctx.store, lock.dest_shard);
  if (!client) throw badRequest(`the bundle does not verify: validator_set: this shard keeps no client of shard ${lock.dest_shard}`);
  verifyBundle(receipt, proof, receiptKey(receipt.source_shard, receipt.id), client, verify);
  if (receipt.from !== lock.from || receipt.to !== lock.to || receipt.value !== lock.value) throw badRequest(`the bundle does not verify: record: the receipt's from, to and value are not lock ${lock.id}'s`);
  return { lock, receipt };
}

/** §76 at the source, in the block: committed (the value left with the receipt) or refunded to `from`; the fee stays paid. */
export async function applyAck(ctx: TxContext, body: unknown, verify?: lightClient.SignatureCheck): Promise<Lock> {
  const { lock, receipt } = await judgeAck(ctx, body, undefined, verify);
  const value = BigInt(lock.value);
  let settled: Lock;
  if (receipt.outcome === 'committed') {
    settled = { ...lock, status: 'committed', commit_height: receipt.height };
    await addTotals(ctx, { locked: -value, sent: value });
  } else {
    settled = { ...lock, status: 'refunded', refund_height: ctx.height };
    await ctx.accounts.credit(lock.from, value);
    await addTotals(ctx, { locked: -value, refunded: value });
  }
  locks.set(ctx.store, lock.id, settled);
  xshardSettled.emit(ctx, { id: lock.id, from: lock.from, value, status: settled.status, dest_shard: lock.dest_shard, tx_hash: ctx.tx.hash });
  return settled;
}

/** §72: a set update of another shard's client; any failure is 400 and changes nothing. */
export async function judgeHeaders(ctx: ReadContext, body: unknown, verify?: lightClient.SignatureCheck): Promise<{ shard: number; update: ReturnType<typeof verifySetUpdate> }> {
  const answer = shape<HeaderUpdateBody>(HeaderUpdate, body, 'body');
  const shard = servedHeaderShard(answer);
  if (typeof shard !== 'number' || !Number.isSafeInteger(shard) || shard < 0) throw badRequest('header.shard is not a shard number');
  if (shard === ctx.shard.id) throw badRequest(`the header is of this shard (${shard}): a shard keeps clients of the others only`);
  const client = await clients.get(ctx.store, shard);
  if (!client) throw badRequest(`this shard keeps no client of shard ${shard}`);
  return { shard, update: verifySetUpdate(answer, client, verify) };
}

export async function applyHeaders(ctx: TxContext, body: unknown, verify?: lightClient.SignatureCheck): Promise<void> {
  const { shard, update } = await judgeHeaders(ctx, body, verify);
  const client = (await clients.get(ctx.store, shard))!;
  clients.set(ctx.store, shard, { ...client, validators: update.validators, validators_hash: update.validatorsHash, trusted_height: update.trustedHeight });
  xshardClientUpdated.emit(ctx, { shard, validators_hash: update.validatorsHash, trusted_height: update.trustedHeight, tx_hash: ctx.tx.hash });
}
