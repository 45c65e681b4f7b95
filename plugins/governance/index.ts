import { definePlugin, type NodeServices } from '../../kernel/sdk.js';
import { propose } from './operations/propose.js';
import { vote } from './operations/vote.js';
import { GOVERNANCE_EVENTS } from './events.js';
import { GOVERNANCE_PARAMS } from './params.js';
import { GOVERNANCE_ROUTES, governanceRoutes } from './routes.js';
import { GOVERNANCE_STORES } from './store.js';
import { tallyEnding } from './tally.js';

/**
 * Governance in consensus (part 1, "Governance"; decisions.md §25–26, §29): proposals and votes
 * are operations, and the tally runs in `endBlock` of the block that ends a proposal's window, so
 * a passed parameter change or plugin activation holds from the same height on every validator.
 */
export const governancePlugin = definePlugin<Record<string, unknown>, NodeServices>({
  name: 'governance',
  kind: 'state',
  description: 'stake-weighted proposals and votes; parameter changes and plugin activation in consensus',
  // Votes are weighted by self-stake, which staking offers (plugins/staking/public.ts).
  dependencies: ['staking'],
  params: GOVERNANCE_PARAMS,
  operations: [propose, vote],
  routes: GOVERNANCE_ROUTES,
  stores: GOVERNANCE_STORES,
  events: GOVERNANCE_EVENTS,
  register(api) {
    api.hooks.endBlock.tapPromise(api.name, (result, ctx) => tallyEnding(ctx, result));
    api.hooks.routes.tap(api.name, (routes) => routes.withOwner(api.name, () => governanceRoutes(routes, api.services, api.name)));
  },
});
