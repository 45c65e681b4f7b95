import { badRequest, defineOperation, isChainError, type ChainError, type ReadContext, type Store, type WriteContext } from '../../../kernel/sdk.js';
import { AttestBody, SendBody } from '../schemas.js';
import { channels, commitments, denoms } from '../store.js';
import { PAUSED, channelOf, limitProblem, operatorProblem, readSettings, textProblem, type ChannelRecord, type PacketRecord } from '../rules.js';
import { attestText, commitmentValue, escrowAddress, packetId, tracePrefix, transferText, voucherHashOf } from '../packets.js';
import { moveVoucher, voucherBalance } from '../vouchers.js';
import { appendPacket } from '../packet-log.js';
import { requestHeaderAt } from '../header-request.js';
import { TIMEOUT_BLOCKS_PARAM } from '../params.js';
import { ibcSend } from '../events.js';
import { IBC_SIGNING, IBC_TARGET } from './common.js';
import type { Static } from '@sinclair/typebox';

type Send = Static<typeof SendBody>;

/** The rules transfer and redeem share (decisions.md §68): channel, port, state, counterparty, receiver, memo, amount. */
async function sendProblem(ctx: ReadContext, body: Send): Promise<ChannelRecord | ChainError> {
  const ch = await channelOf(ctx.store, body.channel);
  if (isChainError(ch)) return ch;
  if (ch.port !== 'transfer') return badRequest(`channel ${ch.channel} is an ${ch.port} channel: coins travel on a transfer channel`);
  if (ch.state === 'paused') return PAUSED(ch.channel);
  if (body.dest_chain !== ch.counterparty_chain) return badRequest(`dest_chain ${body.dest_chain} is not channel ${ch.channel}'s counterparty ${ch.counterparty_chain}`);
  const bad = textProblem('receiver', body.receiver, 1, 128) ?? textProblem('memo', body.memo ?? '', 0, 256);
  if (bad) return bad;
  if (body.amount < 1) return badRequest('amount must be at least 1');
  return ch;
}

/** Commits an outbound packet: sequence, commitment (§66), record, event. */
async function commitPacket(ctx: WriteContext & { store: Store }, ch: ChannelRecord, record: Omit<PacketRecord, 'id' | 'sequence' | 'timeout_height' | 'status' | 'height' | 'updated_height' | 'direction' | 'port' | 'source_chain' | 'dest_chain' | 'channel'>, text: (sequence: number) => string): Promise<void> {
  const settings = await readSettings(ctx.store);
  const sequence = ch.next_sequence;
  const timeout = ctx.block.height + Number(await ctx.params.get(TIMEOUT_BLOCKS_PARAM));
  const id = packetId(settings.chain_id, ch.channel, sequence);
  commitments.set(ctx.store, ch.channel, sequence, new TextEncoder().encode(commitmentValue(timeout, text(sequence))));
  channels.set(ctx.store, ch.channel, { ...(await channels.get(ctx.store, ch.channel))!, next_sequence: sequence + 1, updated_height: ctx.block.height });
  await appendPacket(ctx.store, { ...record, id, direction: 'out', channel: ch.channel, port: ch.port, sequence, source_chain: settings.chain_id, dest_chain: ch.counterparty_chain, timeout_height: timeout, status: 'locked', height: ctx.block.height, updated_height: ctx.block.height });
  ibcSend.emit(ctx, { id, kind: record.kind, channel: ch.channel, sequence, sender: record.sender, receiver: record.receiver, ...(record.denom !== undefined ? { denom: record.denom } : {}), ...(record.amount !== undefined ? { amount: record.amount } : {}), timeout_height: timeout, tx_hash: record.tx_hash });
  requestHeaderAt(ctx);
}

/** decisions.md §68: any account sends its own native coin; the amount moves to the channel's escrow, the packet is `locked`. */
export const transfer = defineOperation({
  name: 'ibc_transfer',
  description: "sends the signer's native coin over a channel: the amount is locked in the channel's escrow until an ack burns it or a proven timeout refunds it",
  routes: [{ method: 'POST', path: '/api/v1/ibc/transfer' }],
  schema: SendBody,
  signsFor: IBC_TARGET,
  gas: 60,
  signing: IBC_SIGNING,
  async check(ctx, op) {
    const ch = await sendProblem(ctx, op.body);
    if (isChainError(ch)) return ch;
    const native = (await readSettings(ctx.store)).native_denom;
    if (op.body.denom !== native) return badRequest(`denom ${op.body.denom} is not the native denom ${native}: vouchers leave through POST /api/v1/ibc/redeem`);
    if (!ch.allowed_denoms.includes(native)) return badRequest(`channel ${ch.channel} does not allow ${native}`);
    return limitProblem(ctx, ch, BigInt(op.body.amount), true);
  },
  // Into the channel's escrow: the sentinel judges the move at admission as in the block (decisions.md §99).
  pays: (_ctx, op) => [{ to: escrowAddress(op.body.channel), value: BigInt(op.body.amount) }],
  async execute(ctx, op) {
    const ch = await sendProblem(ctx, op.body);
    if (isChainError(ch)) throw ch;
    const amount = BigInt(op.body.amount);
    const memo = op.body.memo ?? '';
    const escrow = escrowAddress(ch.channel);
    await ctx.accounts.transfer(op.actor, escrow, amount);
    channels.set(ctx.store, ch.channel, { ...ch, escrow_balance: ch.escrow_balance + amount });
    const fields = { denom: op.body.denom, amount, sender: op.actor, receiver: op.body.receiver, channel: ch.channel, memo };
    await commitPacket(ctx, { ...ch, escrow_balance: ch.escrow_balance + amount }, { kind: 'transfer', sender: op.actor, receiver: op.body.receiver, denom: op.body.denom, amount, memo, escrowed_denom: op.body.denom, tx_hash: op.txHash }, () => transferText(fields));
  },
});

/** decisions.md §68: a voucher goes back through the channel it came by; the vouchers move to the escrow, the packet names their trace. */
export const redeem = defineOperation({
  name: 'ibc_redeem',
  description: "sends vouchers back through the channel they came by: they are locked in the channel's escrow until an ack burns them or a proven timeout refunds them",
  routes: [{ method: 'POST', path: '/api/v1/ibc/redeem' }],
  schema: SendBody,
  signsFor: IBC_TARGET,
  gas: 60,
  signing: IBC_SIGNING,
  // The signed amount counts vouchers, not ucoin: admission holds nothing of the coin balance for it.
  valueUnit: () => 'voucher',
  async check(ctx, op) {
    const ch = await sendProblem(ctx, op.body);
    if (isChainError(ch)) return ch;
    const trace = await redeemTrace(ctx, op.body.denom, ch.channel);
    if (isChainError(trace)) return trace;
    const have = await voucherBalance(ctx.store, op.actor, trace.hash);
    if (have < BigInt(op.body.amount)) return badRequest(`insufficient vouchers: ${op.actor} holds ${have} of ${op.body.denom}, not ${op.body.amount}`);
    return limitProblem(ctx, ch, BigInt(op.body.amount), false);
  },
  async execute(ctx, op) {
    const ch = await sendProblem(ctx, op.body);
    if (isChainError(ch)) throw ch;
    const trace = await redeemTrace(ctx, op.body.denom, ch.channel);
    if (isChainError(trace)) throw trace;
    const amount = BigInt(op.body.amount);
    const memo = op.body.memo ?? '';
    await moveVoucher(ctx.store, op.actor, escrowAddress(ch.channel), trace.hash, amount);
    const fields = { denom: trace.trace, amount, sender: op.actor, receiver: op.body.receiver, channel: ch.channel, memo };
    await commitPacket(ctx, ch, { kind: 'transfer', sender: op.actor, receiver: op.body.receiver, denom: trace.trace, amount, memo, escrowed_denom: op.body.denom, tx_hash: op.txHash }, () => transferText(fields));
  },
});

/** A redeemable voucher of `channel`: its hash and trace, or 400. */
async function redeemTrace(ctx: ReadContext, denom: string, channel: string): Promise<{ hash: string; trace: string } | ChainError> {
  const hash = voucherHashOf(denom);
  const record = hash === undefined ? undefined : await denoms.get(ctx.store, hash);
  if (hash === undefined || record === undefined) return badRequest(`denom ${denom} is not a voucher of this chain (ibc/<hex>): the native coin leaves through POST /api/v1/ibc/transfer`);
  if (!record.trace.startsWith(tracePrefix(channel))) return badRequest(`voucher ${denom} (trace ${record.trace}) did not come through channel ${channel}: redeem it through ${record.channel}`);
  return { hash, trace: record.trace };
}

const BYTECODE_HASH_RE = /^0x[0-9a-f]{64}$/;

/** decisions.md §68: an operator sends a security attestation over an `attest` channel; `timestamp` is the block's. */
export const attest = defineOperation({
  name: 'ibc_attest',
  description: 'sends a security attestation of a contract\'s bytecode over an attest channel (operator)',
  routes: [{ method: 'POST', path: '/api/v1/ibc/attest' }],
  schema: AttestBody,
  signsFor: IBC_TARGET,
  value: null,
  gas: 60,
  signing: IBC_SIGNING,
  async check(ctx, op) {
    const role = await operatorProblem(ctx, op);
    if (role) return role;
    return attestProblem(ctx, op.body);
  },
  async execute(ctx, op) {
    const problem = await attestProblem(ctx, op.body);
    if (problem) throw problem;
    const ch = (await channels.get(ctx.store, op.body.channel))!;
    const fields = { bytecode_hash: op.body.bytecode_hash, score: op.body.score, model: op.body.model, timestamp: ctx.block.timestamp, subject: op.body.subject };
    await commitPacket(ctx, ch, { kind: 'attest', sender: op.actor, receiver: ch.counterparty_chain, ...fields, tx_hash: op.txHash }, () => attestText(fields));
  },
});

async function attestProblem(ctx: ReadContext, body: Static<typeof AttestBody>): Promise<ChainError | undefined> {
  const ch = await channelOf(ctx.store, body.channel);
  if (isChainError(ch)) return ch;
  if (ch.port !== 'attest') return badRequest(`channel ${ch.channel} is a ${ch.port} channel: attestations travel on an attest channel`);
  if (ch.state === 'paused') return PAUSED(ch.channel);
  if (!BYTECODE_HASH_RE.test(body.bytecode_hash)) return badRequest('bytecode_hash must be 0x + 64 lowercase hex');
  if (body.score < 0 || body.score > 100) return badRequest('score must be 0 to 100');
  return textProblem('model', body.model, 1, 64) ?? textProblem('subject', body.subject, 1, 256);
}
