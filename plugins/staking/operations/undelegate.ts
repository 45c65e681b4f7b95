import { Type } from '@sinclair/typebox';
import { badRequest, defineOperation } from '../../../kernel/sdk.js';
import { payDelegation, payeeOf } from '../ledger.js';
import { delegations, putDelegation } from '../store.js';
import { undelegated } from '../events.js';

/** `POST /api/v1/staking/undelegate`: the whole delegation, after its lock; accrued rewards first. */
export const undelegate = defineOperation({
  name: 'undelegate',
  description: 'returns a whole delegation after the lock',
  routes: [{ method: 'POST', path: '/api/v1/staking/undelegate' }],
  socketMethod: 'undelegate',
  schema: Type.Object({ delegator: Type.String(), validator: Type.String() }, { additionalProperties: false }),
  signsFor: { field: 'validator' },
  value: null,
  gas: 50,
  async check(ctx, op) {
    const d = await delegations.get(ctx.store, op.body.validator, op.actor);
    if (!d) return badRequest(`${op.actor} has no delegation to ${op.body.validator}`);
    if (ctx.height < d.unlock_height) return badRequest(`delegation of ${op.actor} to ${op.body.validator} is locked until height ${d.unlock_height}; this is height ${ctx.height}`);
    return undefined;
  },
  async execute(ctx, op) {
    const validator = op.body.validator;
    const d = await payDelegation(ctx, validator, op.actor, (await delegations.get(ctx.store, validator, op.actor))!);
    const to = await payeeOf(ctx.store, op.actor);
    await putDelegation(ctx.store, validator, op.actor, undefined);
    await ctx.accounts.credit(to, d.amount);
    undelegated.emit(ctx, { delegator: op.actor, validator, amount: d.amount, paid_to: to });
  },
});
