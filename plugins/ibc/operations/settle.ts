import { badRequest, defineOperation, isChainError, lightClient, type ChainError, type ReadContext, type Store, type WriteContext } from '../../../kernel/sdk.js';
import { AckBody, TimeoutBody } from '../schemas.js';
import { channels, commitments } from '../store.js';
import { settlePacket } from '../packet-log.js';
import { channelOf, clientOf, operatorProblem, outboundPacket, readSettings, verifiedRoot, type ChannelRecord, type PacketRecord } from '../rules.js';
import { attestText, commitmentValue, escrowAddress, transferText, voucherHashOf } from '../packets.js';
import { burnVoucher, moveVoucher } from '../vouchers.js';
import { ibcAck, ibcTimeout } from '../events.js';
import { IBC_SIGNING, IBC_TARGET } from './common.js';

/*
 * The two ends of an outbound packet (decisions.md §69): `ack` on a proof of the counterparty's
 * receipt (committed, escrow burned) and `timeout` on a proof that the counterparty has no receipt
 * while its client of this chain is already at or past the packet's timeout height (timed out,
 * escrow refunded). Since the counterparty refuses a recv once its client reaches that height, a
 * packet is received or refunded, never both. Both are accepted on a paused channel.
 */

interface Settling {
  readonly n: number;
  readonly packet: PacketRecord;
  readonly channel: ChannelRecord;
  readonly value: string;
  readonly root: string;
}

/** 404 unknown packet, channel or client; 400 not locked, unverified proof height. */
async function locked(ctx: ReadContext, id: string, proofHeight: number): Promise<Settling | ChainError> {
  const settings = await readSettings(ctx.store);
  const found = await outboundPacket(ctx.store, id, settings.chain_id);
  if (isChainError(found)) return found;
  const { n, packet } = found;
  const ch = await channelOf(ctx.store, packet.channel);
  if (isChainError(ch)) return ch;
  const client = await clientOf(ctx.store, ch.counterparty_chain);
  if (isChainError(client)) return client;
  if (packet.status !== 'locked') return badRequest(`packet ${id} is ${packet.status}, not locked`);
  const root = await verifiedRoot(ctx.store, ch.counterparty_chain, proofHeight);
  if (isChainError(root)) return root;
  return { n, packet, channel: ch, value: commitmentValue(packet.timeout_height, sentText(packet)), root };
}

/** The text this chain committed for `p` (§68), rebuilt from its record. */
function sentText(p: PacketRecord): string {
  if (p.kind === 'attest') return attestText({ bytecode_hash: p.bytecode_hash!, score: p.score!, model: p.model!, timestamp: p.timestamp!, subject: p.subject! });
  return transferText({ denom: p.denom!, amount: p.amount!, sender: p.sender, receiver: p.receiver, channel: p.channel, memo: p.memo ?? '' });
}

async function judgeAck(ctx: ReadContext, body: { id: string; proof_height: number; proof: unknown }, verifyProof: boolean): Promise<Settling | ChainError> {
  const s = await locked(ctx, body.id, body.proof_height);
  if (isChainError(s)) return s;
  const key = lightClient.ibcReceiptKey(s.channel.channel, s.packet.sequence);
  if (verifyProof && !lightClient.verifyIbcProof(s.root, key, s.value, body.proof)) return badRequest(`proof does not prove the counterparty's ${key} = this packet's commitment under its state root at ${body.proof_height}`);
  return s;
}

async function judgeTimeout(ctx: ReadContext, body: { id: string; proof_height: number; proof: unknown; client_height: number; client_proof: unknown }, verifyProof: boolean): Promise<Settling | ChainError> {
  const s = await locked(ctx, body.id, body.proof_height);
  if (isChainError(s)) return s;
  if (body.client_height < s.packet.timeout_height) return badRequest(`client_height ${body.client_height} is below the packet's timeout_height ${s.packet.timeout_height}: it has not timed out`);
  if (!verifyProof) return s;
  const key = lightClient.ibcReceiptKey(s.channel.channel, s.packet.sequence);
  if (!lightClient.verifyIbcProof(s.root, key, null, body.proof)) return badRequest(`proof does not prove the counterparty's ${key} absent under its state root at ${body.proof_height}`);
  const clientKey = lightClient.ibcClientHeightKey((await readSettings(ctx.store)).chain_id);
  if (!lightClient.verifyIbcProof(s.root, clientKey, String(body.client_height), body.client_proof)) return badRequest(`client_proof does not prove the counterparty's ${clientKey} = ${body.client_height} under its state root at ${body.proof_height}`);
  return s;
}

/** Marks the packet settled and deletes its commitment (§66: deleted at its ack or timeout). */
function settle(ctx: WriteContext & { store: Store }, s: Settling, status: 'committed' | 'timed_out'): void {
  commitments.delete(ctx.store, s.channel.channel, s.packet.sequence);
  settlePacket(ctx.store, s.n, s.packet, status, ctx.block.height);
}

export const ack = defineOperation({
  name: 'ibc_ack',
  description: "acknowledges an outbound packet (operator) on a proof of the counterparty's receipt: committed, its escrow burned",
  routes: [{ method: 'POST', path: '/api/v1/ibc/ack' }],
  schema: AckBody,
  signsFor: IBC_TARGET,
  value: null,
  gas: 100,
  signing: IBC_SIGNING,
  async check(ctx, op) {
    const role = await operatorProblem(ctx, op);
    if (role) return role;
    const s = await judgeAck(ctx, op.body, true);
    return isChainError(s) ? s : undefined;
  },
  async execute(ctx, op) {
    const s = await judgeAck(ctx, op.body, false);
    if (isChainError(s)) throw s;
    settle(ctx, s, 'committed');
    const { packet, channel: ch } = s;
    const escrow = escrowAddress(ch.channel);
    const hash = packet.escrowed_denom === undefined ? undefined : voucherHashOf(packet.escrowed_denom);
    if (packet.kind === 'transfer' && hash === undefined) {
      // Part 1: the escrow is burned at the ack; what the counterparty's vouchers stand for is now `outstanding`.
      await ctx.burn(escrow, packet.amount!);
      channels.set(ctx.store, ch.channel, { ...ch, escrow_balance: ch.escrow_balance - packet.amount!, outstanding: ch.outstanding + packet.amount!, updated_height: ctx.block.height });
    } else if (packet.kind === 'transfer' && hash !== undefined) {
      await burnVoucher(ctx.store, escrow, hash, packet.amount!);
    }
    ibcAck.emit(ctx, { id: packet.id, channel: ch.channel, sequence: packet.sequence, ...(packet.kind === 'transfer' ? { burned_denom: packet.escrowed_denom!, amount: packet.amount! } : {}), proof_height: op.body.proof_height, tx_hash: op.txHash });
  },
});

export const timeout = defineOperation({
  name: 'ibc_timeout',
  description: 'times out an outbound packet (operator) on a proof that the counterparty never received it and its client passed the timeout height: refunded to the sender',
  routes: [{ method: 'POST', path: '/api/v1/ibc/timeout' }],
  schema: TimeoutBody,
  signsFor: IBC_TARGET,
  value: null,
  gas: 120,
  signing: IBC_SIGNING,
  async check(ctx, op) {
    const role = await operatorProblem(ctx, op);
    if (role) return role;
    const s = await judgeTimeout(ctx, op.body, true);
    return isChainError(s) ? s : undefined;
  },
  async execute(ctx, op) {
    const s = await judgeTimeout(ctx, op.body, false);
    if (isChainError(s)) throw s;
    settle(ctx, s, 'timed_out');
    const { packet, channel: ch } = s;
    const escrow = escrowAddress(ch.channel);
    const hash = packet.escrowed_denom === undefined ? undefined : voucherHashOf(packet.escrowed_denom);
    if (packet.kind === 'transfer' && hash === undefined) {
      await ctx.accounts.transfer(escrow, packet.sender, packet.amount!);
      channels.set(ctx.store, ch.channel, { ...ch, escrow_balance: ch.escrow_balance - packet.amount!, updated_height: ctx.block.height });
    } else if (packet.kind === 'transfer' && hash !== undefined) {
      await moveVoucher(ctx.store, escrow, packet.sender, hash, packet.amount!);
    }
    ibcTimeout.emit(ctx, { id: packet.id, channel: ch.channel, sequence: packet.sequence, refunded_to: packet.sender, ...(packet.kind === 'transfer' ? { refunded_denom: packet.escrowed_denom!, amount: packet.amount! } : {}), proof_height: op.body.proof_height, tx_hash: op.txHash });
  },
});
