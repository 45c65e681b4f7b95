import { badRequest, defineOperation, isAddress, isChainError, lightClient, type ChainError, type ReadContext } from '../../../kernel/sdk.js';
import { RecvBody } from '../schemas.js';
import { channels, receipts } from '../store.js';
import { PAUSED, channelOf, clientOf, operatorProblem, readSettings, textProblem, verifiedRoot, type ChannelRecord } from '../rules.js';
import { attestText, commitmentValue, parsePacketId, tracePrefix, transferText, voucherDenom, voucherHash } from '../packets.js';
import { mintVoucher } from '../vouchers.js';
import { appendPacket } from '../packet-log.js';
import { requestHeaderAt } from '../header-request.js';
import { ibcRecv } from '../events.js';
import { IBC_SIGNING, IBC_TARGET } from './common.js';
import type { Static } from '@sinclair/typebox';

type Recv = Static<typeof RecvBody>;

/** What a proven inbound packet credits: the native coin coming back, a voucher, or nothing (an attestation). */
type Credit = { kind: 'native'; denom: string; amount: bigint } | { kind: 'voucher'; hash: string; trace: string; baseDenom: string; amount: bigint } | { kind: 'none' };

interface Judged {
  readonly channel: ChannelRecord;
  readonly sequence: number;
  readonly text: string;
  readonly credit: Credit;
}

/**
 * decisions.md §69's recv rules in the spec's order, on the state `ctx` reads: 404 unknown
 * channel or client, then 400 (source chain, paused, proof height, replay, timeout, proof,
 * crediting). The proof check is skipped only by `execute`, which runs right after `check` in
 * the same block on the same state.
 */
async function judgeRecv(ctx: ReadContext, body: Recv, verifyProof = true): Promise<Judged | ChainError> {
  const id = parsePacketId(body.packet_id);
  if (id === undefined) return badRequest(`packet_id ${JSON.stringify(body.packet_id)} must be <source chain id>/<channel>/<sequence>`);
  const ch = await channelOf(ctx.store, id.channel);
  if (isChainError(ch)) return ch;
  const client = await clientOf(ctx.store, ch.counterparty_chain);
  if (isChainError(client)) return client;
  if (id.sourceChain !== ch.counterparty_chain) return badRequest(`packet_id names source chain ${id.sourceChain}, not channel ${ch.channel}'s counterparty ${ch.counterparty_chain}`);
  if (ch.state === 'paused') return PAUSED(ch.channel);
  const root = await verifiedRoot(ctx.store, ch.counterparty_chain, body.proof_height);
  if (isChainError(root)) return root;
  if (await receipts.has(ctx.store, ch.channel, id.sequence)) return badRequest(`packet ${body.packet_id} was already received`);
  if (client.latest_height >= body.timeout_height) return badRequest(`packet ${body.packet_id} timed out: the client of ${ch.counterparty_chain} is at ${client.latest_height}, not below timeout_height ${body.timeout_height}`);
  const rebuilt = packetText(body, ch);
  if (isChainError(rebuilt)) return rebuilt;
  const value = commitmentValue(body.timeout_height, rebuilt.text);
  if (verifyProof && !lightClient.verifyIbcProof(root, lightClient.ibcCommitmentKey(ch.channel, id.sequence), value, body.proof)) {
    return badRequest(`proof does not prove ${lightClient.ibcCommitmentKey(ch.channel, id.sequence)} = the packet's commitment under the state root of ${ch.counterparty_chain} at ${body.proof_height}`);
  }
  const credit = rebuilt.kind === 'attest' ? ({ kind: 'none' } as const) : await creditOf(ctx, ch, body);
  if (isChainError(credit)) return credit;
  return { channel: ch, sequence: id.sequence, text: rebuilt.text, credit };
}

/** The packet text rebuilt from the body (§68), so a forged field fails the proof. */
function packetText(body: Recv, ch: ChannelRecord): { kind: 'transfer' | 'attest'; text: string } | ChainError {
  const kind = body.kind ?? 'transfer';
  if (kind !== 'transfer' && kind !== 'attest') return badRequest(`kind must be transfer or attest, not ${JSON.stringify(kind)}`);
  if (kind !== ch.port) return badRequest(`a ${kind} packet cannot arrive on ${ch.port} channel ${ch.channel}`);
  if (kind === 'attest') {
    const { bytecode_hash, score, model, timestamp, subject } = body;
    if (bytecode_hash === undefined || score === undefined || model === undefined || timestamp === undefined || subject === undefined) return badRequest('an attest packet needs bytecode_hash, score, model, timestamp and subject');
    const bad = textProblem('bytecode_hash', bytecode_hash, 1, 66) ?? textProblem('model', model, 1, 64) ?? textProblem('subject', subject, 1, 256);
    if (bad) return bad;
    return { kind, text: attestText({ bytecode_hash, score, model, timestamp, subject }) };
  }
  const { sender, receiver, denom, amount } = body;
  if (sender === undefined || receiver === undefined || denom === undefined || amount === undefined) return badRequest('a transfer packet needs sender, receiver, denom and amount');
  const memo = body.memo ?? '';
  const bad = textProblem('sender', sender, 1, 128) ?? textProblem('receiver', receiver, 1, 128) ?? textProblem('denom', denom, 1, 256) ?? textProblem('memo', memo, 0, 256);
  if (bad) return bad;
  if (amount < 1) return badRequest('amount must be at least 1');
  return { kind, text: transferText({ denom, amount: BigInt(amount), sender, receiver, channel: ch.channel, memo }) };
}

/** §68 crediting: this chain's coin coming back (its outstanding must cover it), else a voucher of an allowed denom. */
async function creditOf(ctx: ReadContext, ch: ChannelRecord, body: Recv): Promise<Credit | ChainError> {
  const denom = body.denom!;
  const amount = BigInt(body.amount!);
  const receiver = body.receiver!;
  if (!isAddress(receiver)) return badRequest(`receiver ${receiver} is not an address of this chain`);
  const prefix = tracePrefix(ch.channel);
  if (denom.startsWith(prefix)) {
    const native = (await readSettings(ctx.store)).native_denom;
    const rest = denom.slice(prefix.length);
    if (rest !== native) return badRequest(`denom ${denom} comes back through ${ch.channel} but ${rest} is not the native denom ${native}`);
    if (ch.outstanding < amount) return badRequest(`channel ${ch.channel} has ${ch.outstanding} ucoin outstanding, less than the ${amount} coming back`);
    const payee = await ctx.recipients.problem(receiver);
    if (payee) return payee;
    return { kind: 'native', denom: native, amount };
  }
  const base = denom.split('/').pop()!;
  if (!ch.allowed_denoms.includes(base)) return badRequest(`denom ${denom}: ${base} is not in channel ${ch.channel}'s allowed_denoms`);
  const trace = `${prefix}${denom}`;
  return { kind: 'voucher', hash: voucherHash(trace), trace, baseDenom: base, amount };
}

/** decisions.md §69: an operator relays an inbound packet with a proof of its commitment under a verified counterparty root. */
export const recv = defineOperation({
  name: 'ibc_recv',
  description: 'receives an inbound packet (operator) on a proof of its commitment under a verified counterparty header: credits the receiver and writes the receipt, once',
  routes: [{ method: 'POST', path: '/api/v1/ibc/recv' }],
  schema: RecvBody,
  signsFor: IBC_TARGET,
  gas: 120,
  signing: IBC_SIGNING,
  // The signed amount is credited, not taken: nothing is held against the operator's coins for it.
  valueUnit: () => 'packet',
  async check(ctx, op) {
    const role = await operatorProblem(ctx, op);
    if (role) return role;
    const judged = await judgeRecv(ctx, op.body);
    return isChainError(judged) ? judged : undefined;
  },
  async execute(ctx, op) {
    const judged = await judgeRecv(ctx, op.body, false);
    if (isChainError(judged)) throw judged;
    const { channel: ch, sequence, text, credit } = judged;
    const body = op.body;
    receipts.set(ctx.store, ch.channel, sequence, new TextEncoder().encode(commitmentValue(body.timeout_height, text)));
    let creditedDenom: string | undefined;
    if (credit.kind === 'native') {
      // The coin the counterparty's vouchers stood for comes back into existence here: outstanding shrinks by as much.
      const payee = await ctx.payee(body.receiver!);
      if (isChainError(payee)) throw payee;
      await ctx.accounts.credit(payee, credit.amount);
      channels.set(ctx.store, ch.channel, { ...ch, outstanding: ch.outstanding - credit.amount, updated_height: ctx.block.height });
      creditedDenom = credit.denom;
    } else if (credit.kind === 'voucher') {
      await mintVoucher(ctx.store, body.receiver!, credit.hash, { trace: credit.trace, base_denom: credit.baseDenom, channel: ch.channel }, credit.amount);
      creditedDenom = voucherDenom(credit.trace);
    }
    const attest = credit.kind === 'none';
    await appendPacket(ctx.store, {
      id: body.packet_id,
      kind: attest ? 'attest' : 'transfer',
      direction: 'in',
      channel: ch.channel,
      port: ch.port,
      sequence,
      source_chain: ch.counterparty_chain,
      dest_chain: (await readSettings(ctx.store)).chain_id,
      sender: attest ? ch.counterparty_chain : body.sender!,
      receiver: attest ? (await readSettings(ctx.store)).chain_id : body.receiver!,
      ...(attest
        ? { bytecode_hash: body.bytecode_hash!, score: body.score!, model: body.model!, timestamp: body.timestamp!, subject: body.subject! }
        : { denom: body.denom!, amount: BigInt(body.amount!), memo: body.memo ?? '', credited_denom: creditedDenom! }),
      timeout_height: body.timeout_height,
      status: 'received',
      height: ctx.block.height,
      updated_height: ctx.block.height,
      tx_hash: op.txHash,
      proof_height: body.proof_height,
    });
    ibcRecv.emit(ctx, { id: body.packet_id, kind: attest ? 'attest' : 'transfer', channel: ch.channel, sequence, receiver: attest ? '' : body.receiver!, ...(creditedDenom !== undefined ? { credited_denom: creditedDenom, amount: BigInt(body.amount!) } : {}), proof_height: body.proof_height, tx_hash: op.txHash });
    requestHeaderAt(ctx);
  },
});
