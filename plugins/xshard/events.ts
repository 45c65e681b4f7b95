import { Type } from '@sinclair/typebox';
import { defineEvent } from '../../kernel/sdk.js';

const Amount = Type.BigInt({ minimum: 0n });

export const xshardLocked = defineEvent({
  type: 'xshard_locked',
  description: 'a transfer to another shard was locked at its source (decisions.md §74): the value is held until a proven receipt settles it',
  data: Type.Object({ id: Type.String(), from: Type.String(), to: Type.String(), value: Amount, dest_shard: Type.Integer(), deadline_height: Type.Integer() }),
  socket: true,
});

export const xshardReceipt = defineEvent({
  type: 'xshard_receipt',
  description: "the destination wrote its one receipt for another shard's lock (decisions.md §76): committed credits `to`, aborted credits nothing",
  data: Type.Object({ id: Type.String(), source_shard: Type.Integer(), to: Type.String(), value: Amount, outcome: Type.String(), proof_height: Type.Integer(), tx_hash: Type.String() }),
  socket: true,
});

export const xshardSettled = defineEvent({
  type: 'xshard_settled',
  description: 'the source settled a lock on a proven receipt (decisions.md §76): committed (the value left this shard) or refunded to its sender',
  data: Type.Object({ id: Type.String(), from: Type.String(), value: Amount, status: Type.String(), dest_shard: Type.Integer(), tx_hash: Type.String() }),
  socket: true,
});

export const xshardClientUpdated = defineEvent({
  type: 'xshard_client_updated',
  description: "this shard's client of another shard adopted the next validator set of a certified header (decisions.md §72)",
  data: Type.Object({ shard: Type.Integer(), validators_hash: Type.String(), trusted_height: Type.Integer(), tx_hash: Type.String() }),
  socket: true,
});

export const XSHARD_EVENTS = [xshardLocked, xshardReceipt, xshardSettled, xshardClientUpdated] as const;
