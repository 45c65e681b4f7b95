import { definePlugin, type NodeServices } from '../../kernel/sdk.js';
import { rotateKey } from './operations/rotate.js';
import { recoveryCancel, recoverySetup } from './operations/recovery-owner.js';
import { recoveryRequest, recoveryWithdraw } from './operations/recovery-request.js';
import { recoveryApprove, recoveryReject } from './operations/recovery-guardian.js';
import { completeRecovery, takeDue } from './recovery.js';
import { identityRoutes } from './routes.js';

/**
 * Identity (part 1 "Identity and recovery", decisions.md §35): key rotation and guardian recovery
 * over the kernel's key sets. Operations sign their own layouts (messages.ts); a recovery whose
 * approvals met the threshold completes in consensus at the end of the block its timelock names.
 */
export const identityPlugin = definePlugin<Record<string, never>, NodeServices>({
  name: 'identity',
  kind: 'state',
  description: 'key rotation and guardian recovery',
  operations: [rotateKey, recoverySetup, recoveryRequest, recoveryApprove, recoveryReject, recoveryWithdraw, recoveryCancel],
  events: [
    { type: 'keys_rotated', description: 'an account added and/or removed a main key', fields: ['address', 'added', 'removed', 'version'], socket: true },
    { type: 'recovery_setup', description: 'an account set its guardians', fields: ['owner', 'guardians', 'threshold', 'timelock'], socket: true },
    { type: 'recovery_requested', description: 'a recovery request was opened', fields: ['target', 'request_id', 'requester', 'new_key'], socket: true },
    { type: 'recovery_approved', description: 'a guardian approved a recovery request', fields: ['target', 'request_id', 'guardian', 'approvals', 'due_height'], socket: true },
    { type: 'recovery_rejected', description: 'a guardian rejected a recovery request', fields: ['target', 'request_id', 'guardian', 'rejections'], socket: true },
    { type: 'recovery_closed', description: 'a recovery request was cancelled, withdrawn or rejected', fields: ['target', 'status'], socket: true },
    { type: 'recovery_completed', description: 'a recovery replaced the keys of an account', fields: ['target', 'new_key', 'version'], socket: true },
  ],
  register(api) {
    // Due recoveries of this block, in height then address order: the same on every validator.
    // One read of one fixed key per block (store.ts, DueList); most blocks have nothing due.
    api.hooks.endBlock.tapPromise(api.name, async (result, ctx) => {
      for (const target of await takeDue(ctx, ctx.block.height)) await completeRecovery(ctx, target);
      return result;
    });
    api.hooks.routes.tap(api.name, (routes) => routes.withOwner(api.name, () => identityRoutes(routes, api.services, api.name)));
  },
});
