import { definePlugin, type NodeServices } from '../../kernel/sdk.js';
import { sponsorDeposit, sponsorWithdraw } from './operations/pool.js';
import { sponsorAllow, sponsorDisallow } from './operations/beneficiaries.js';
import { sponsorOf } from './payer.js';
import { SPONSOR_ROUTES, sponsorRoutes } from './routes.js';
import { paidBy, pays } from './store.js';
import { sponsorAllowed, sponsorDeposited, sponsorDisallowed, sponsorWithdrew } from './events.js';

/**
 * Sponsors (part 1 "Account abstraction"): an account deposits coins into a fee pool and names
 * the accounts, or single session keys, whose fees the pool pays. The kernel's `feePayer` hook
 * makes the pool the payer at admission and again in the block.
 */
export const sponsorPlugin = definePlugin<Record<string, never>, NodeServices>({
  name: 'sponsor',
  kind: 'state',
  description: 'fee pools that pay for the accounts or session keys their owner names',
  params: [{ key: 'sponsor_max_gas', default: 100n, min: 21n, max: 10_000_000n, description: 'the largest gas limit a pool pays for: a transaction whose limit is above it pays its own fee; within it, the pool pays while it holds the largest fee the transaction can be charged (limit × gas_price)' }],
  operations: [sponsorDeposit, sponsorWithdraw, sponsorAllow, sponsorDisallow],
  routes: SPONSOR_ROUTES,
  stores: [paidBy, pays],
  events: [sponsorDeposited, sponsorWithdrew, sponsorAllowed, sponsorDisallowed],
  register(api) {
    api.hooks.feePayer.tapPromise(api.name, sponsorOf);
    api.hooks.routes.tap(api.name, (routes) => routes.withOwner(api.name, () => sponsorRoutes(routes, api.services, api.name)));
  },
});
