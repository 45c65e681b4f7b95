import { Type } from '@sinclair/typebox';
import { badRequest, defineOperation } from '../../../kernel/sdk.js';
import { payeeOf, payStake } from '../ledger.js';
import { putStake, stakes } from '../store.js';
import { STAKE_TARGET } from './stake.js';
import { unstaked } from '../events.js';

/**
 * `POST /api/v1/staking/unstake` (part 1, Staking 4): the whole self-stake, once the lock has
 * passed (a block at height ≥ `unlock_height`, decisions.md §33); what accrued since the last
 * payout is paid first (§37), then the stake returns to the staker (a `.node`'s owner, §30).
 */
export const unstake = defineOperation({
  name: 'unstake',
  description: 'returns the whole self-stake after the lock',
  routes: [{ method: 'POST', path: '/api/v1/staking/unstake' }],
  socketMethod: 'unstake',
  schema: Type.Object({ address: Type.String() }, { additionalProperties: false }),
  signsFor: STAKE_TARGET,
  value: null,
  gas: 50,
  async check(ctx, op) {
    const s = await stakes.get(ctx.store, op.actor);
    if (!s) return badRequest(`${op.actor} has no stake to unstake`);
    if (ctx.height < s.unlock_height) return badRequest(`stake of ${op.actor} is locked until height ${s.unlock_height} (unbonding_blocks after its last addition); this is height ${ctx.height}`);
    return undefined;
  },
  async execute(ctx, op) {
    const s = await payStake(ctx, op.actor, (await stakes.get(ctx.store, op.actor))!);
    const to = await payeeOf(ctx.store, op.actor);
    await putStake(ctx.store, op.actor, undefined, ctx.block.height);
    await ctx.accounts.credit(to, s.amount);
    unstaked.emit(ctx, { address: op.actor, amount: s.amount, paid_to: to });
  },
});
