import { badRequest, notFound, pageFrom, readQuery, stateKey, type NodeServices, type QueryContext, type RouteTable } from '../../kernel/sdk.js';
import { ProposalListQuery } from './schemas.js';
import { proposalKey, proposalPage, readProposal, votesOn } from './store.js';
import { proposalView, voteView } from './views.js';

const ID = /^[1-9][0-9]{0,14}$/;

/** The governance read routes (part 1, "Governance" table), each at one committed height. */
export function governanceRoutes(routes: RouteTable, s: NodeServices, plugin: string): void {
  const at = <T>(fn: (ctx: QueryContext) => Promise<T>): Promise<T> => s.query.run(plugin, fn);

  // Part 2, Pagination caps: at most 100. decisions.md §20: `proposals` with the paging fields.
  routes.get('/api/v1/governance/proposals', (req) =>
    at(async (ctx) => {
      const q = readQuery(ProposalListQuery, req.query);
      const { limit, offset } = pageFrom(q);
      // Only the page is read (a chain accumulates proposals without bound).
      const { rows, total } = await proposalPage(ctx.store, q.status, limit, offset);
      return { proposals: rows.map(proposalView), total, limit, offset, has_more: offset + rows.length < total, height: ctx.height };
    }),
  );

  routes.get('/api/v1/governance/:id', (req) =>
    at(async (ctx) => {
      const raw = req.params.id ?? '';
      if (!ID.test(raw)) throw badRequest(`proposal id must be a positive integer, got "${raw}"`);
      const p = await readProposal(ctx.store, Number(raw));
      if (!p) throw notFound(`proposal ${raw} not found`);
      return { ...proposalView(p), votes: (await votesOn(ctx.store, p.id)).map(voteView), height: ctx.height };
    }),
    // decisions.md §84: the proposal's record (its votes are listed, not proven).
    { proves: (req) => [stateKey(plugin, proposalKey(Number(req.params.id)))] },
  );
}
