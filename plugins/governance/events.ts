import { Type } from '@sinclair/typebox';
import { defineEvent } from '../../kernel/sdk.js';
import { PROPOSAL_STATUSES } from './schemas.js';

/** Part 2's governance events, emitted in the block that files, votes or tallies; weights are bigints (JSON integers on the wire). */
export const proposalCreated = defineEvent({
  type: 'proposal_created',
  description: 'a proposal was filed',
  data: Type.Object({ id: Type.Integer({ minimum: 1 }), proposer: Type.String(), kind: Type.String(), title: Type.String(), end_height: Type.Integer({ minimum: 0 }), tx_hash: Type.String() }),
  socket: true,
});

export const voteCast = defineEvent({
  type: 'vote_cast',
  description: 'an address voted on a proposal',
  data: Type.Object({ id: Type.Integer({ minimum: 1 }), voter: Type.String(), accept: Type.Boolean(), weight: Type.BigInt({ minimum: 0n }), tx_hash: Type.String() }),
  socket: true,
});

export const proposalClosed = defineEvent({
  type: 'proposal_closed',
  description: "a proposal's window ended: passed or rejected, and for a passed PARAM_CHANGE whether it applied",
  data: Type.Object({
    id: Type.Integer({ minimum: 1 }),
    status: Type.Union(PROPOSAL_STATUSES.filter((s) => s !== 'active').map((s) => Type.Literal(s))),
    yes_weight: Type.BigInt({ minimum: 0n }),
    no_weight: Type.BigInt({ minimum: 0n }),
    total_stake: Type.BigInt({ minimum: 0n }),
    /** Only for a passed PARAM_CHANGE. */
    applied: Type.Optional(Type.Boolean()),
    apply_error: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  }),
  socket: true,
});

export const GOVERNANCE_EVENTS = [proposalCreated, voteCast, proposalClosed];
