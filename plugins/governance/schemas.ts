import { Type } from '@sinclair/typebox';
import { pageAnswer, pageQuery, withRefusal } from '../../kernel/sdk.js';

/** decisions.md §25: a proposal's states. */
export const PROPOSAL_STATUSES = ['active', 'passed', 'rejected'] as const;

/**
 * GET `/api/v1/governance/proposals`: `status`, `limit` (default 20, at most 100: part 2,
 * Pagination caps), `offset`, `page`. The route declares its query with it; the assistant tool
 * server's `ch_list_proposals` takes its `status`, `limit` and `offset` from it.
 */
export const ProposalListQuery = pageQuery(
  { default: 20, cap: 100 },
  {
    status: Type.Optional(
      withRefusal(Type.Union(PROPOSAL_STATUSES.map((s) => Type.Literal(s)), { description: 'only proposals in this state: active (voting open), passed or rejected' }), () => `status must be one of ${PROPOSAL_STATUSES.join(', ')}`),
    ),
  },
);

/** GET `/api/v1/governance/:id`: a proposal's id, a positive integer without leading zeros. */
export const ProposalParams = Type.Object({
  id: withRefusal(Type.String({ pattern: '^[1-9][0-9]{0,14}$', description: 'the proposal id (from 1)' }), (v) => `proposal id must be a positive integer, got ${JSON.stringify(v)}`),
});

const Weight = Type.Integer({ minimum: 0, description: 'ucoin' });

/** What a proposal says of itself, the same in its record and on the wire. */
export const ProposalFields = {
  id: Type.Integer({ minimum: 1 }),
  proposer: Type.String(),
  title: Type.String(),
  description: Type.String(),
  kind: Type.Union([Type.Literal('text'), Type.Literal('PARAM_CHANGE')]),
  /** `param_key` and `param_value` for a PARAM_CHANGE; what the proposer sent for a text proposal. */
  payload: Type.Record(Type.String(), Type.String()),
  voting_duration: Type.Integer({ minimum: 1 }),
  created_height: Type.Integer({ minimum: 0 }),
  /** created_height + voting_duration: the tally runs at the end of this block. */
  end_height: Type.Integer({ minimum: 0 }),
  status: Type.Union(PROPOSAL_STATUSES.map((s) => Type.Literal(s))),
};

/** A proposal on the wire (part 1, "Governance proposal"; decisions.md §25): weights in ucoin with `*_human`. */
export const ProposalView = Type.Object({
  ...ProposalFields,
  quorum_bps: Type.Integer(),
  threshold_bps: Type.Integer(),
  yes_weight: Weight,
  yes_weight_human: Type.String(),
  no_weight: Weight,
  no_weight_human: Type.String(),
  votes_count: Type.Integer({ minimum: 0 }),
  total_stake: Type.Union([Weight, Type.Null()]),
  total_stake_human: Type.Union([Type.String(), Type.Null()]),
  applied: Type.Optional(Type.Union([Type.Boolean(), Type.Null()], { description: 'a passed PARAM_CHANGE only: whether it took effect' })),
  apply_error: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  tx_hash: Type.String(),
});

export const VoteView = Type.Object({ voter: Type.String(), accept: Type.Boolean(), weight: Weight, weight_human: Type.String(), height: Type.Integer({ minimum: 0 }), tx_hash: Type.String() });

export const ProposalListAnswer = Type.Composite([pageAnswer('proposals', ProposalView), Type.Object({ height: Type.Integer({ minimum: 0 }) })]);
export const ProposalAnswer = Type.Composite([ProposalView, Type.Object({ votes: Type.Array(VoteView), height: Type.Integer({ minimum: 0 }) })]);
