import { Type } from '@sinclair/typebox';
import { pagingFields, withRefusal } from '../../kernel/sdk.js';

/** decisions.md §25: a proposal's states. */
export const PROPOSAL_STATUSES = ['active', 'passed', 'rejected'] as const;

/**
 * GET `/api/v1/governance/proposals`: `status`, `limit` (default 20, at most 100: part 2,
 * Pagination caps), `offset`, `page`. The route reads its query with it; the assistant tool
 * server's `ch_list_proposals` takes its `status`, `limit` and `offset` from it.
 */
export const ProposalListQuery = Type.Object({
  status: Type.Optional(
    withRefusal(Type.Union(PROPOSAL_STATUSES.map((s) => Type.Literal(s)), { description: 'only proposals in this state: active (voting open), passed or rejected' }), () => `status must be one of ${PROPOSAL_STATUSES.join(', ')}`),
  ),
  ...pagingFields(20, 100),
});
