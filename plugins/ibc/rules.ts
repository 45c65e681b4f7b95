import { badRequest, forbidden, notFound, type ChainError, type OperationInput, type ReadContext, type ReadonlyStore } from '../../kernel/sdk.js';
import { MAX_CHANNEL_ESCROW_PARAM, MAX_PACKET_PARAM } from './params.js';
import { channels, clientRoots, clients, packetIndex, packets, settings } from './store.js';
import { parsePacketId } from './packets.js';
import type { Static } from '@sinclair/typebox';

/*
 * The rules several IBC operations share, each returning the ChainError decisions.md §31 names
 * (403 roles, 404 unknown records, 400 the rest) so that `check` reads as the spec's list.
 */

export type IbcSettings = Static<typeof settings.value>;
export type ChannelRecord = Static<typeof channels.value>;
export type ClientRecord = Static<typeof clients.value>;
export type PacketRecord = Static<typeof packets.value>;

export async function readSettings(store: ReadonlyStore): Promise<IbcSettings> {
  const s = await settings.get(store);
  // Written by initGenesis, or by the first block after a later activation.
  if (s === undefined) throw new Error('ibc: settings are not written yet');
  return s;
}

/** §63: operator rights are read from state, by the signing key, not by a claimed address. */
export async function operatorProblem(ctx: ReadContext, op: OperationInput<unknown>): Promise<ChainError | undefined> {
  const s = await readSettings(ctx.store);
  if (s.operators.includes(op.signer.publicKey)) return undefined;
  return forbidden(`${op.name}: the signing key is not an IBC operator of this chain (the operator list seeded from CHAIN_IBC_OPERATOR_PUBKEYS)`);
}

export async function channelOf(store: ReadonlyStore, channel: string): Promise<ChannelRecord | ChainError> {
  return (await channels.get(store, channel)) ?? notFound(`no channel ${channel}`);
}

export async function clientOf(store: ReadonlyStore, chainId: string): Promise<ClientRecord | ChainError> {
  return (await clients.get(store, chainId)) ?? notFound(`no client of ${chainId}: create it with POST /api/v1/ibc/client/update`);
}

/** The state root of a verified counterparty height, or 400 when the client never verified it (or dropped it). */
export async function verifiedRoot(store: ReadonlyStore, chainId: string, height: number): Promise<string | ChainError> {
  const root = await clientRoots.get(store, chainId, height);
  return root?.state_root ?? badRequest(`proof_height ${height} is not a verified height of the client of ${chainId} (GET /api/v1/ibc/client/${chainId} heights)`);
}

/** §67 limits, 400 naming the limit: `ibc_max_packet` for any amount, `ibc_max_channel_escrow` for what a native transfer would expose. */
export async function limitProblem(ctx: ReadContext, channel: ChannelRecord, amount: bigint, native: boolean): Promise<ChainError | undefined> {
  const maxPacket = await ctx.params.get(MAX_PACKET_PARAM);
  if (maxPacket > 0n && amount > maxPacket) return badRequest(`amount ${amount} is above ibc_max_packet ${maxPacket}`);
  const maxEscrow = await ctx.params.get(MAX_CHANNEL_ESCROW_PARAM);
  if (native && maxEscrow > 0n && channel.escrow_balance + channel.outstanding + amount > maxEscrow) {
    return badRequest(`channel ${channel.channel} would expose ${channel.escrow_balance + channel.outstanding + amount} ucoin (escrow_balance ${channel.escrow_balance} + outstanding ${channel.outstanding} + ${amount}), above ibc_max_channel_escrow ${maxEscrow}`);
  }
  return undefined;
}

export const PAUSED = (channel: string): ChainError => badRequest(`channel ${channel} is paused`);

/** An outbound packet by its id (this chain's), with its number. */
export async function outboundPacket(store: ReadonlyStore, id: string, chainId: string): Promise<{ n: number; packet: PacketRecord } | ChainError> {
  const parsed = parsePacketId(id);
  if (parsed === undefined || parsed.sourceChain !== chainId) return notFound(`no outbound packet ${id}`);
  const n = await packetIndex.get(store, 'out', parsed.channel, parsed.sequence);
  const packet = n === undefined ? undefined : await packets.get(store, n);
  if (n === undefined || packet === undefined) return notFound(`no outbound packet ${id}`);
  return { n, packet };
}

const TEXT_FIELD = /^[^|]*$/;

/** A field that travels inside a `|`-joined packet text. */
export function textProblem(field: string, value: string, min: number, max: number): ChainError | undefined {
  if (value.length < min || value.length > max || !TEXT_FIELD.test(value)) return badRequest(`${field} must be ${min}-${max} characters without |`);
  return undefined;
}
