import { badRequest, defineOperation, isAddress, isChainError } from '../../../kernel/sdk.js';
import { CancelSchema, SetupSchema } from '../schemas.js';
import { identityMessages, ownLayout } from '../messages.js';
import { rememberDerived } from '../keys.js';
import { closeRequest, latestRequest, openRequest, readConfig } from '../recovery.js';
import { configs, replaceGuardians, type RecoveryConfig } from '../store.js';
import { recoverySetupDone } from '../events.js';
import { IDENTITY_TARGET } from './rotate.js';

/**
 * `POST /api/v1/identity/recovery/setup`, signed `ch-recovery-setup|<owner>|<g1,g2,…>|<threshold>|<timelock>|<nonce>`
 * by a main key: who guards the account. Replaces an earlier setup; refused while a request is open.
 */
export const recoverySetup = defineOperation({
  name: 'recovery_setup',
  description: 'sets the guardians, threshold and timelock of the account\'s recovery',
  routes: [{ method: 'POST', path: '/api/v1/identity/recovery/setup' }],
  schema: SetupSchema,
  signsFor: IDENTITY_TARGET,
  value: null,
  gas: 60,
  signing: { message: ownLayout(identityMessages.setup) },
  mainKeyOnly: 'change recovery',
  async check(ctx, op) {
    const { guardians, threshold } = op.body;
    const bad = guardians.find((g) => !isAddress(g));
    if (bad !== undefined) return badRequest(`guardians: ${JSON.stringify(bad)} is not a chain address`);
    if (new Set(guardians).size !== guardians.length) return badRequest('guardians lists an address twice');
    if (guardians.includes(op.actor)) return badRequest('an account cannot guard itself');
    if (threshold > guardians.length) return badRequest(`threshold ${threshold} is above the ${guardians.length} guardians`);
    const open = await latestRequest(ctx, op.actor);
    if (open?.status === 'open') return badRequest('a recovery request is open: cancel it before changing recovery');
    return undefined;
  },
  async execute(ctx, op) {
    const before = await readConfig(ctx, op.actor);
    const config: RecoveryConfig = { owner: op.actor, guardians: op.body.guardians, threshold: op.body.threshold, timelock: op.body.timelock, height: ctx.block.height };
    configs.set(ctx.store, op.actor, config);
    await replaceGuardians(ctx.store, op.actor, before?.guardians ?? [], config.guardians, ctx.block.height);
    await rememberDerived(ctx, op.actor, op.signer);
    recoverySetupDone.emit(ctx, { owner: op.actor, guardians: config.guardians, threshold: config.threshold, timelock: config.timelock });
  },
});

/**
 * `POST /api/v1/identity/recovery/cancel`, signed `ch-recovery-cancel|<owner>|<nonce>` by a main
 * key: the owner, who still holds a key, stops an open request (a hostile one) until it completes.
 */
export const recoveryCancel = defineOperation({
  name: 'recovery_cancel',
  description: 'the owner cancels an open recovery request of the account',
  routes: [{ method: 'POST', path: '/api/v1/identity/recovery/cancel' }],
  schema: CancelSchema,
  signsFor: IDENTITY_TARGET,
  value: null,
  gas: 30,
  signing: { message: ownLayout(identityMessages.cancel) },
  mainKeyOnly: 'cancel a recovery',
  async check(ctx, op) {
    const r = await openRequest(ctx, op.actor);
    return isChainError(r) ? r : undefined;
  },
  async execute(ctx, op) {
    const r = await openRequest(ctx, op.actor);
    if (!isChainError(r)) await closeRequest(ctx, r, 'cancelled');
  },
});
