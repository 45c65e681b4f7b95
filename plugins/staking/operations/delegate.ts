import { Type } from '@sinclair/typebox';
import { addressKind, badRequest, defineOperation, foreignRecordError, notFound } from '../../../kernel/sdk.js';
import { hasActiveStake, payDelegation } from '../ledger.js';
import { delegations, nodes, putDelegation } from '../store.js';
import { delegated } from '../events.js';

/**
 * `POST /api/v1/staking/delegate` (part 1, Staking 1 and 6), signed for the validator: to a
 * `.node` with active stake only (400 for anything but a `.node`, decisions.md §37; 404 for an
 * unknown one), a first delegation at least `min_stake`, each addition restarting the lock.
 */
export const delegate = defineOperation({
  name: 'delegate',
  description: 'delegates to a validator',
  routes: [{ method: 'POST', path: '/api/v1/staking/delegate' }],
  socketMethod: 'delegate',
  schema: Type.Object({ delegator: Type.String(), validator: Type.String(), amount: Type.Integer({ minimum: 1 }) }, { additionalProperties: false }),
  signsFor: { field: 'validator' },
  gas: 50,
  async check(ctx, op) {
    const validator = op.body.validator;
    if (addressKind(validator) !== 'node') return badRequest(`validator ${validator} is not a .node: delegations go to validators only`);
    // decisions.md §72, §73: staking is per shard; a validator of another shard is delegated to there.
    if (!ctx.shard.owns(validator)) return foreignRecordError(ctx.shard, validator);
    if (!(await nodes.get(ctx.store, validator))) return notFound(`validator ${validator} is not registered`);
    if (!(await hasActiveStake(ctx, validator))) return badRequest(`validator ${validator} has no active stake (self-stake below min_stake, or jailed)`);
    const min = await ctx.params.get('min_stake');
    if (!(await delegations.get(ctx.store, validator, op.actor)) && op.value < min) return badRequest(`amount ${op.value} is below min_stake ${min}: a first delegation must be at least min_stake`);
    return undefined;
  },
  // Funds for the amount need no rule here: the kernel checks the signed value against the
  // signing account at admission, and the debit refuses it in the block.
  async execute(ctx, op) {
    const validator = op.body.validator;
    await ctx.accounts.debit(op.signer.account, op.value);
    const current = await delegations.get(ctx.store, validator, op.actor);
    const paid = current ? await payDelegation(ctx, validator, op.actor, current) : undefined;
    const unlock = ctx.block.height + Number(await ctx.params.get('unbonding_blocks'));
    await putDelegation(ctx.store, validator, op.actor, { amount: (paid?.amount ?? 0n) + op.value, unlock_height: unlock, paid_to: ctx.block.height });
    delegated.emit(ctx, { delegator: op.actor, validator, amount: op.value, unlock_height: unlock });
  },
});
