import { definePlugin, type NodeServices } from '../../kernel/sdk.js';
import { propose } from './operations/propose.js';
import { vote } from './operations/vote.js';
import { GOVERNANCE_PARAMS } from './params.js';
import { governanceRoutes } from './routes.js';
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
  // Votes are weighted by self-stake, which staking offers (plugins/staking/methods.ts).
  dependencies: ['staking'],
  params: GOVERNANCE_PARAMS,
  operations: [propose, vote],
  events: [
    { type: 'proposal_created', description: 'a proposal was filed', fields: ['id', 'proposer', 'kind', 'title', 'end_height', 'tx_hash'], socket: true },
    { type: 'vote_cast', description: 'an address voted on a proposal', fields: ['id', 'voter', 'accept', 'weight', 'tx_hash'], socket: true },
    { type: 'proposal_closed', description: 'a proposal\'s window ended: passed or rejected, and for a passed PARAM_CHANGE whether it applied', fields: ['id', 'status', 'yes_weight', 'no_weight', 'total_stake', 'applied', 'apply_error'], socket: true },
  ],
  register(api) {
    api.hooks.endBlock.tapPromise(api.name, (result, ctx) => tallyEnding(ctx, result));
    api.hooks.routes.tap(api.name, (routes) => routes.withOwner(api.name, () => governanceRoutes(routes, api.services, api.name)));
  },
});
