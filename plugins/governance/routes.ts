import { defineRoute, notFound, toPage, type NodeServices, type QueryContext, type RouteTable } from '../../kernel/sdk.js';
import { ProposalAnswer, ProposalListAnswer, ProposalListQuery, ProposalParams } from './schemas.js';
import { proposalPage, proposals, votesOn } from './store.js';
import { proposalView, voteView } from './views.js';

// Part 2, Pagination caps: at most 100. decisions.md §20: `proposals` with the paging fields.
export const proposalListRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/governance/proposals',
  summary: 'proposals by id, optionally of one status, at one committed height',
  query: ProposalListQuery,
  responses: { 200: ProposalListAnswer },
});

export const proposalRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/governance/:id',
  summary: 'a proposal with its tally and every vote on it',
  params: ProposalParams,
  responses: { 200: ProposalAnswer, 400: 'the id is not a positive integer', 404: 'no proposal has the id' },
  // decisions.md §84: the proposal's record (its votes are listed, not proven).
  proves: (req) => [proposals.stateKey(Number(req.params.id))],
});

/** The routes the plugin lists in its definition, for the gateway to forward under these declarations (part 1: served by both). */
export const GOVERNANCE_ROUTES = [proposalListRoute, proposalRoute] as const;

/** The governance read routes (part 1, "Governance" table), each at one committed height. */
export function governanceRoutes(routes: RouteTable, s: NodeServices, plugin: string): void {
  const at = <T>(fn: (ctx: QueryContext) => Promise<T>): Promise<T> => s.query.run(plugin, fn);

  routes.serve(proposalListRoute, (req) =>
    at(async (ctx) => {
      const { limit, offset } = toPage(req.query);
      // Only the page is read (a chain accumulates proposals without bound).
      const { rows, total } = await proposalPage(ctx.store, req.query.status, limit, offset);
      return { proposals: rows.map(proposalView), total, limit, offset, has_more: offset + rows.length < total, height: ctx.height };
    }),
  );

  routes.serve(proposalRoute, (req) =>
    at(async (ctx) => {
      const id = Number(req.params.id);
      const p = await proposals.get(ctx.store, id);
      if (!p) throw notFound(`proposal ${id} not found`);
      return { ...proposalView(p), votes: (await votesOn(ctx.store, p.id)).map(voteView), height: ctx.height };
    }),
  );
}
