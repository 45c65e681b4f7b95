import { Type } from '@sinclair/typebox';

/*
 * Wire forms of the ibc plugin: operation bodies (decisions.md §65, §67–69; the kernel adds the
 * signed fields), read answers, and the node options. Amounts are ucoin integers with `*_human`.
 */

/** The native coin's base denom on the wire when no variable names another. */
export const DEFAULT_NATIVE_DENOM = 'ucoin';

export const IbcOptionsSchema = Type.Object(
  {
    operator_pubkeys: Type.String({ default: '', description: 'CHAIN_IBC_OPERATOR_PUBKEYS: comma-separated hex keys seeded into genesis state as IBC operators' }),
    trusted_pubkeys: Type.String({ default: '', description: 'CHAIN_IBC_TRUSTED_PUBKEYS: when non-empty, every key of a client\'s set must be listed (seeded into genesis state)' }),
    native_denom: Type.String({ default: DEFAULT_NATIVE_DENOM, pattern: '^[a-zA-Z][a-zA-Z0-9]{0,63}$', description: 'CHAIN_IBC_NATIVE_DENOM: the base denom on the wire (seeded into genesis state)' }),
    require_header: Type.Boolean({ default: true, description: 'CHAIN_IBC_REQUIRE_HEADER: must stay on (decisions.md §63)' }),
    require_packet_commitment: Type.Boolean({ default: true, description: 'CHAIN_IBC_REQUIRE_PACKET_COMMITMENT: must stay on (decisions.md §63)' }),
  },
  { additionalProperties: false },
);

const From = Type.String({ description: 'the acting account; pays the fee (an operator operation: signed by a key listed as IBC operator)' });
const Channel = Type.String({ description: 'the channel id, 1-32 of a-z, 0-9, -' });
const Proof = Type.Unknown({ description: 'a state proof as GET /api/v1/state/proof serves it: {"leaf": null | {"keyHash", "valueHash"}, "siblings": [...]}' });
const ProofHeight = Type.Integer({ minimum: 1, description: "a counterparty height this chain's client verified (GET /api/v1/ibc/client/:chainId heights)" });
const WireAmount = Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'an integer amount in the base denom' });

export const ChannelOpenBody = Type.Object(
  {
    from: From,
    channel: Channel,
    port: Type.String({ description: 'transfer or attest' }),
    counterparty_chain: Type.String({ description: 'the counterparty chain id (not this chain\'s)' }),
    allowed_denoms: Type.Array(Type.String(), { description: '1-16 base denoms for a transfer channel, [] for attest' }),
  },
  { additionalProperties: false },
);

export const ChannelPauseBody = Type.Object({ from: From, channel: Channel, paused: Type.Boolean() }, { additionalProperties: false });

export const ClientUpdateBody = Type.Object(
  { from: From, header: Type.Unknown({ description: 'a commit header record as GET /api/v1/ibc/header/:height serves it (decisions.md §64)' }) },
  { additionalProperties: false },
);

export const SendBody = Type.Object(
  {
    from: From,
    channel: Channel,
    dest_chain: Type.String({ description: "the channel's counterparty chain id" }),
    receiver: Type.String({ description: 'the receiver on the counterparty, 1-128 characters without |' }),
    denom: Type.String({ description: 'transfer: the native denom; redeem: a voucher ibc/<hex> of this channel' }),
    amount: WireAmount,
    memo: Type.Optional(Type.String({ description: 'at most 256 characters without |; default empty' })),
  },
  { additionalProperties: false },
);

export const AttestBody = Type.Object(
  {
    from: From,
    channel: Channel,
    bytecode_hash: Type.String({ description: '0x + 64 hex' }),
    score: Type.Integer({ description: '0 to 100' }),
    model: Type.String({ description: 'the analyzer that scored it, without |' }),
    subject: Type.String({ description: 'what was scored, without |' }),
  },
  { additionalProperties: false },
);

export const RecvBody = Type.Object(
  {
    from: From,
    packet_id: Type.String({ description: '<source chain id>/<channel>/<sequence>' }),
    kind: Type.Optional(Type.String({ description: 'transfer (default) or attest' })),
    sender: Type.Optional(Type.String()),
    receiver: Type.Optional(Type.String()),
    denom: Type.Optional(Type.String({ description: 'the denom as on the wire' })),
    amount: Type.Optional(WireAmount),
    memo: Type.Optional(Type.String()),
    bytecode_hash: Type.Optional(Type.String()),
    score: Type.Optional(Type.Integer()),
    model: Type.Optional(Type.String()),
    timestamp: Type.Optional(Type.Integer({ minimum: 0 })),
    subject: Type.Optional(Type.String()),
    timeout_height: Type.Integer({ minimum: 1, description: "a height of the source chain" }),
    proof_height: ProofHeight,
    proof: Proof,
  },
  { additionalProperties: false },
);

export const AckBody = Type.Object({ from: From, id: Type.String({ description: 'the outbound packet id' }), proof_height: ProofHeight, proof: Proof }, { additionalProperties: false });

export const TimeoutBody = Type.Object(
  {
    from: From,
    id: Type.String({ description: 'the outbound packet id' }),
    proof_height: ProofHeight,
    proof: Type.Unknown({ description: "proof of absence of the counterparty's ibc/receipts/<channel>/<sequence>" }),
    client_height: Type.Integer({ minimum: 1, description: "the counterparty's client height of this chain, at least the packet's timeout_height" }),
    client_proof: Type.Unknown({ description: "proof of the counterparty's ibc/clients/<this chain id>/height = client_height" }),
  },
  { additionalProperties: false },
);

const Ucoin = (what: string) => Type.Integer({ minimum: 0, description: what });
const Human = Type.String({ description: 'the amount before it in COIN' });

export const ChannelView = Type.Object({
  channel: Type.String(),
  port: Type.String(),
  counterparty_chain: Type.String(),
  allowed_denoms: Type.Array(Type.String()),
  state: Type.String({ description: 'open or paused' }),
  escrow_address: Type.String(),
  escrow_balance: Ucoin('ucoin of its locked transfers, held by escrow_address'),
  escrow_balance_human: Human,
  outstanding: Ucoin('native ucoin burned by acks less native ucoin returned'),
  outstanding_human: Human,
  next_sequence: Type.Integer({ minimum: 1 }),
  opened_height: Type.Integer(),
  updated_height: Type.Integer(),
});

export const PacketView = Type.Object({
  id: Type.String(),
  kind: Type.String(),
  direction: Type.String(),
  channel: Type.String(),
  port: Type.String(),
  sequence: Type.Integer(),
  source_chain: Type.String(),
  dest_chain: Type.String(),
  sender: Type.String(),
  receiver: Type.String(),
  denom: Type.Optional(Type.String()),
  amount: Type.Optional(Type.Integer({ minimum: 0 })),
  amount_human: Type.Optional(Human),
  memo: Type.Optional(Type.String()),
  bytecode_hash: Type.Optional(Type.String()),
  score: Type.Optional(Type.Integer()),
  model: Type.Optional(Type.String()),
  timestamp: Type.Optional(Type.Integer()),
  subject: Type.Optional(Type.String()),
  timeout_height: Type.Integer(),
  status: Type.String({ description: 'locked, committed, timed_out (outbound) or received (inbound)' }),
  height: Type.Integer(),
  updated_height: Type.Integer(),
  tx_hash: Type.String(),
  proof_height: Type.Optional(Type.Integer()),
  credited_denom: Type.Optional(Type.String()),
});

export const DenomView = Type.Object({
  denom: Type.String(),
  trace: Type.String(),
  base_denom: Type.String(),
  channel: Type.String(),
  supply: Type.Integer({ minimum: 0 }),
  supply_human: Human,
});

export const VoucherView = Type.Object({ denom: Type.String(), trace: Type.String(), amount: Type.Integer({ minimum: 0 }), amount_human: Human });

export const ClientView = Type.Object({
  chain_id: Type.String(),
  latest_height: Type.Integer(),
  block_hash: Type.String(),
  state_root: Type.String(),
  validators: Type.Array(Type.Object({ public_key: Type.String(), power: Type.Integer({ minimum: 1 }) })),
  total_power: Type.Integer({ minimum: 1 }),
  heights: Type.Array(Type.Integer(), { description: 'verified heights usable as proof_height, ascending, the last 100' }),
  created_height: Type.Integer(),
  updated_height: Type.Integer(),
});
