import { definePlugin, type NodeServices } from '../../kernel/sdk.js';
import { rotateKey } from './operations/rotate.js';
import { recoveryCancel, recoverySetup } from './operations/recovery-owner.js';
import { recoveryRequest, recoveryWithdraw } from './operations/recovery-request.js';
import { recoveryApprove, recoveryReject } from './operations/recovery-guardian.js';
import { completeRecovery, takeDue } from './recovery.js';
import { IDENTITY_ROUTES, identityRoutes } from './routes.js';
import { IDENTITY_STORES } from './store.js';
import { IDENTITY_EVENTS } from './events.js';
import { identityMethods } from './methods.js';

/**
 * Identity (part 1 "Identity and recovery", decisions.md §35): key rotation and guardian recovery
 * over the kernel's key sets. Operations sign their own layouts (messages.ts); a recovery whose
 * approvals met the threshold completes in consensus at the end of the block its timelock names.
 * It offers one read method (`removedSince`, public.ts): the session plugin ends what a removed key granted.
 */
export const identityPlugin = definePlugin<Record<string, never>, NodeServices>({
  name: 'identity',
  kind: 'state',
  description: 'key rotation and guardian recovery',
  operations: [rotateKey, recoverySetup, recoveryRequest, recoveryApprove, recoveryReject, recoveryWithdraw, recoveryCancel],
  routes: IDENTITY_ROUTES,
  stores: IDENTITY_STORES,
  events: IDENTITY_EVENTS,
  methods: identityMethods,
  register(api) {
    // Due recoveries of this block, in height then address order: the same on every validator.
    // One read of one fixed key per block (store.ts, dueList); most blocks have nothing due.
    api.hooks.endBlock.tapPromise(api.name, async (result, ctx) => {
      for (const target of await takeDue(ctx, ctx.block.height)) await completeRecovery(ctx, target);
      return result;
    });
    api.hooks.routes.tap(api.name, (routes) => routes.withOwner(api.name, () => identityRoutes(routes, api.services, api.name)));
  },
});
