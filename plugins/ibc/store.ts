import { Type } from '@sinclair/typebox';
import { defineStore, keyPart } from '../../kernel/sdk.js';

/*
 * The ibc plugin's state (namespace `ibc`). Four layouts are decisions.md §66's provable keys,
 * whose bytes the counterparty proves against this chain's headers: `commitments`, `receipts`
 * and `client_height` hold UTF-8 text exactly as §66 spells it. `ibc/valset` is the fifth, written
 * by the kernel's header signer, not by this plugin. The rest is this chain's own bookkeeping.
 */

const CHANNEL = /^[a-z0-9-]{1,32}$/;
const CHAIN_ID = /^[a-z0-9-]{1,64}$/;
const channelPart = () => keyPart.string('channel', { maxLength: 32, pattern: CHANNEL });
const chainPart = () => keyPart.string('chain_id', { maxLength: 64, pattern: CHAIN_ID });

/** Read in consensus: who may relay (seeded from CHAIN_IBC_OPERATOR_PUBKEYS at genesis), whose keys a client may trust, this chain's id and native denom. */
export const settings = defineStore('ibc', {
  name: 'settings',
  description: "the chain's IBC settings as genesis wrote them: its chain id, operator keys, trusted header keys (empty: any) and native denom",
  key: ['settings'],
  value: Type.Object({
    chain_id: Type.String(),
    operators: Type.Array(Type.String()),
    trusted_keys: Type.Array(Type.String()),
    native_denom: Type.String(),
  }),
});

export const IbcValidatorRecord = Type.Object({ public_key: Type.String(), power: Type.BigInt({ minimum: 1n }) });

/** This chain's light client of a counterparty (§65). */
export const clients = defineStore('ibc', {
  name: 'clients',
  description: "a light client of a counterparty chain: its latest verified header and the validator set it trusts",
  key: ['clients', chainPart(), 'state'],
  value: Type.Object({
    chain_id: Type.String(),
    latest_height: Type.Integer({ minimum: 1 }),
    block_hash: Type.String(),
    state_root: Type.String(),
    validators: Type.Array(IbcValidatorRecord),
    created_height: Type.Integer({ minimum: 0 }),
    updated_height: Type.Integer({ minimum: 0 }),
  }),
});

/** §66 `ibc/clients/<chain_id>/height`: the client's latest height as decimal text, which the counterparty proves in a timeout. */
export const clientHeight = defineStore('ibc', {
  name: 'client_height',
  description: "the decimal latest_height of this chain's client of a counterparty (decisions.md §66, proven by the counterparty's timeout)",
  key: ['clients', chainPart(), 'height'],
  value: Type.BigInt({ minimum: 1n }),
  encoding: 'decimal',
});

/** The verified roots a proof may name as `proof_height` (the last 100 per client). */
export const clientRoots = defineStore('ibc', {
  name: 'client_roots',
  description: "a counterparty height this chain's client verified, with its block hash and state root (the last 100 are kept)",
  key: ['clients', chainPart(), 'roots', keyPart.integer('height', { width: 16 })],
  value: Type.Object({ block_hash: Type.String(), state_root: Type.String() }),
});

export const channels = defineStore('ibc', {
  name: 'channels',
  description: 'a channel (decisions.md §67): its port, counterparty, allowed denoms, state, escrowed and outstanding ucoin and next sequence',
  key: ['channels', channelPart()],
  value: Type.Object({
    channel: Type.String(),
    port: Type.Union([Type.Literal('transfer'), Type.Literal('attest')]),
    counterparty_chain: Type.String(),
    allowed_denoms: Type.Array(Type.String()),
    state: Type.Union([Type.Literal('open'), Type.Literal('paused')]),
    escrow_balance: Type.BigInt({ minimum: 0n }),
    outstanding: Type.BigInt({ minimum: 0n }),
    next_sequence: Type.Integer({ minimum: 1 }),
    opened_height: Type.Integer({ minimum: 0 }),
    updated_height: Type.Integer({ minimum: 0 }),
  }),
});

/** §66 `ibc/commitments/<channel>/<sequence>` = `<timeout_height>|<packet text>`: written by an outbound packet, deleted at its ack or timeout. */
export const commitments = defineStore('ibc', {
  name: 'commitments',
  description: 'an outbound packet\'s commitment, UTF-8 "<timeout_height>|<packet text>" (decisions.md §66)',
  key: ['commitments', channelPart(), keyPart.decimal('sequence')],
  value: Type.Uint8Array(),
  encoding: 'bytes',
});

/** §66 `ibc/receipts/<channel>/<sequence>`: the same bytes, written by `recv`, never deleted. */
export const receipts = defineStore('ibc', {
  name: 'receipts',
  description: 'an inbound packet\'s receipt, the bytes of its commitment on the source chain (decisions.md §66); never deleted',
  key: ['receipts', channelPart(), keyPart.decimal('sequence')],
  value: Type.Uint8Array(),
  encoding: 'bytes',
});

export const PacketRecord = Type.Object({
  id: Type.String(),
  kind: Type.Union([Type.Literal('transfer'), Type.Literal('attest')]),
  direction: Type.Union([Type.Literal('out'), Type.Literal('in')]),
  channel: Type.String(),
  port: Type.String(),
  sequence: Type.Integer({ minimum: 1 }),
  source_chain: Type.String(),
  dest_chain: Type.String(),
  sender: Type.String(),
  receiver: Type.String(),
  denom: Type.Optional(Type.String()),
  amount: Type.Optional(Type.BigInt({ minimum: 0n })),
  memo: Type.Optional(Type.String()),
  /** What this chain escrowed for an outbound transfer: the native denom or a voucher `ibc/<hex>`. */
  escrowed_denom: Type.Optional(Type.String()),
  bytecode_hash: Type.Optional(Type.String()),
  score: Type.Optional(Type.Integer()),
  model: Type.Optional(Type.String()),
  timestamp: Type.Optional(Type.Integer()),
  subject: Type.Optional(Type.String()),
  timeout_height: Type.Integer({ minimum: 1 }),
  status: Type.Union([Type.Literal('locked'), Type.Literal('committed'), Type.Literal('timed_out'), Type.Literal('received')]),
  height: Type.Integer({ minimum: 0 }),
  updated_height: Type.Integer({ minimum: 0 }),
  tx_hash: Type.String(),
  proof_height: Type.Optional(Type.Integer({ minimum: 1 })),
  credited_denom: Type.Optional(Type.String()),
});

/** Every packet this chain sent or received, in the order it did (the list reads it newest first). */
export const packets = defineStore('ibc', {
  name: 'packets',
  description: 'a packet this chain sent or received, numbered in the order it did',
  key: ['packets', keyPart.integer('n')],
  value: PacketRecord,
});

/** A packet's number by direction, channel and sequence (the ack, timeout and replay checks). */
export const packetIndex = defineStore('ibc', {
  name: 'packet_index',
  description: "a packet's number in packets, by direction, channel and sequence",
  key: ['packet_index', keyPart.string('direction', { pattern: /^(in|out)$/ }), channelPart(), keyPart.integer('sequence')],
  value: Type.Integer({ minimum: 1 }),
});

/**
 * The packets still `locked` (sent, neither acknowledged nor timed out), by number, with their
 * channel: what a relayer polls every second (`GET /api/v1/ibc/packets?status=locked`), read
 * without walking every packet the chain ever sent.
 */
export const openPackets = defineStore('ibc', {
  name: 'open_packets',
  description: 'an outbound packet still locked (neither acknowledged nor timed out): its number in packets and its channel',
  key: ['open_packets', keyPart.integer('n')],
  value: Type.String({ maxLength: 32, pattern: CHANNEL.source }),
});

export const packetCount = defineStore('ibc', {
  name: 'packet_count',
  description: 'how many packets this chain sent and received',
  key: ['packet_count'],
  value: Type.Integer({ minimum: 0 }),
});

/** A voucher denom `ibc/<hex>` (§68), by its hex. */
export const denoms = defineStore('ibc', {
  name: 'denoms',
  description: 'a voucher denom: its trace, base denom, channel and supply (minted less burned, escrowed included)',
  key: ['denoms', keyPart.hex('hash', { length: 64 })],
  value: Type.Object({ trace: Type.String(), base_denom: Type.String(), channel: Type.String(), supply: Type.BigInt({ minimum: 0n }) }),
});

/** Voucher balances by holder (an account, or a channel's escrow while a redeem is locked). */
export const vouchers = defineStore('ibc', {
  name: 'vouchers',
  description: 'the vouchers of one denom an address holds',
  key: ['vouchers', keyPart.address('holder'), keyPart.hex('hash', { length: 64 })],
  value: Type.BigInt({ minimum: 1n }),
  encoding: 'decimal',
});

export const IBC_STORES = [settings, clients, clientHeight, clientRoots, channels, commitments, receipts, packets, packetIndex, openPackets, packetCount, denoms, vouchers] as const;
