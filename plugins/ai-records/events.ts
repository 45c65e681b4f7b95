import { Type } from '@sinclair/typebox';
import { defineEvent, FractionText } from '../../kernel/sdk.js';

/** Part 2's AI events, emitted in the block; confidence as decimal fraction text (no floating point in event data), pushed on the socket as a number. */
export const oracleDecision = defineEvent({
  type: 'oracle_decision',
  description: 'an AI decision was logged (confidence as a decimal fraction text)',
  data: Type.Object({
    id: Type.Integer({ minimum: 1 }),
    model: Type.String(),
    kind: Type.String(),
    subject: Type.String(),
    decision: Type.String(),
    // Text in the block (no floating point in consensus); a JSON number on the gateway's socket.
    confidence: FractionText(),
    timestamp: Type.Integer({ minimum: 0 }),
    height: Type.Integer({ minimum: 0 }),
    tx_hash: Type.Union([Type.String(), Type.Null()]),
  }),
  socket: true,
});

export const PendingModel = Type.Object({
  id: Type.String(),
  name: Type.String(),
  version: Type.String(),
  weights_hash: Type.String(),
  votes: Type.Integer({ minimum: 0 }),
  voted_power: Type.BigInt({ minimum: 0n }),
  total_power: Type.BigInt({ minimum: 0n }),
});

export const modelVotingUpdate = defineEvent({
  type: 'model_voting_update',
  description: 'models await validator confirmations',
  data: Type.Object({ models: Type.Array(PendingModel), height: Type.Integer({ minimum: 0 }) }),
  socket: true,
});

export const modelRegistered = defineEvent({
  type: 'model_registered',
  description: 'a validator registered a model version',
  data: Type.Object({ id: Type.String(), name: Type.String(), version: Type.String(), weights_hash: Type.String(), validator: Type.String(), status: Type.Union([Type.Literal('pending'), Type.Literal('active')]) }),
});

export const AI_RECORDS_EVENTS = [oracleDecision, modelVotingUpdate, modelRegistered];
