import { Type } from '@sinclair/typebox';
import { defineEvent } from '../../kernel/sdk.js';

const Amount = Type.Optional(Type.BigInt({ minimum: 0n }));

export const ibcSend = defineEvent({
  type: 'ibc_send',
  description: 'an outbound packet was committed (transfer, redeem or attestation): its commitment is provable under this block\'s state root',
  data: Type.Object({ id: Type.String(), kind: Type.String(), channel: Type.String(), sequence: Type.Integer(), sender: Type.String(), receiver: Type.String(), denom: Type.Optional(Type.String()), amount: Amount, timeout_height: Type.Integer(), tx_hash: Type.String() }),
  socket: true,
});

export const ibcRecv = defineEvent({
  type: 'ibc_recv',
  description: 'an inbound packet was received on a proof of its commitment: the receiver was credited and the receipt written',
  data: Type.Object({ id: Type.String(), kind: Type.String(), channel: Type.String(), sequence: Type.Integer(), receiver: Type.String(), credited_denom: Type.Optional(Type.String()), amount: Amount, proof_height: Type.Integer(), tx_hash: Type.String() }),
  socket: true,
});

export const ibcAck = defineEvent({
  type: 'ibc_ack',
  description: 'an outbound packet was acknowledged on a proof of the counterparty\'s receipt: committed, its escrow burned',
  data: Type.Object({ id: Type.String(), channel: Type.String(), sequence: Type.Integer(), burned_denom: Type.Optional(Type.String()), amount: Amount, proof_height: Type.Integer(), tx_hash: Type.String() }),
  socket: true,
});

export const ibcTimeout = defineEvent({
  type: 'ibc_timeout',
  description: 'an outbound packet timed out on a proof that the counterparty never received it: its escrow was refunded to the sender',
  data: Type.Object({ id: Type.String(), channel: Type.String(), sequence: Type.Integer(), refunded_to: Type.String(), refunded_denom: Type.Optional(Type.String()), amount: Amount, proof_height: Type.Integer(), tx_hash: Type.String() }),
  socket: true,
});

export const ibcClientUpdate = defineEvent({
  type: 'ibc_client_update',
  description: 'this chain\'s light client of a counterparty was created or moved to a verified header',
  data: Type.Object({ chain_id: Type.String(), height: Type.Integer(), block_hash: Type.String(), state_root: Type.String(), created: Type.Boolean(), set_changed: Type.Boolean(), tx_hash: Type.String() }),
  socket: true,
});

export const ibcChannel = defineEvent({
  type: 'ibc_channel',
  description: 'a channel was opened, paused or resumed',
  data: Type.Object({ channel: Type.String(), port: Type.String(), counterparty_chain: Type.String(), state: Type.String(), tx_hash: Type.String() }),
  socket: true,
});

export const IBC_EVENTS = [ibcSend, ibcRecv, ibcAck, ibcTimeout, ibcClientUpdate, ibcChannel] as const;
