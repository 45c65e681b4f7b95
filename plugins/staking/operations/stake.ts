import { Type } from '@sinclair/typebox';
import { badRequest, defineOperation } from '../../../kernel/sdk.js';
import { payStake } from '../ledger.js';
import { putStake, stakes } from '../store.js';
import { staked } from '../events.js';

export const STAKE_TARGET = 'chain:system.stake';

/**
 * `POST /api/v1/staking/stake` (part 1, Staking 1–3): self-stake of `address`, from the signing
 * account (a `.node`'s owner). A first stake is at least `min_stake`; each addition restarts the
 * lock of the whole stake for `unbonding_blocks` (decisions.md §33) after paying what the stake
 * accrued so far, so a payout never spans two amounts.
 */
export const stake = defineOperation({
  name: 'stake',
  description: 'bonds self-stake',
  routes: [{ method: 'POST', path: '/api/v1/staking/stake' }],
  socketMethod: 'stake',
  schema: Type.Object({ address: Type.String(), amount: Type.Integer({ minimum: 1 }) }, { additionalProperties: false }),
  signsFor: STAKE_TARGET,
  gas: 50,
  async check(ctx, op) {
    const current = await stakes.get(ctx.store, op.actor);
    const min = await ctx.params.get('min_stake');
    if (!current && op.value < min) return badRequest(`amount ${op.value} is below min_stake ${min}: a first stake must be at least min_stake`);
    return undefined;
  },
  // Funds for the amount need no rule here: the kernel checks the signed value against the
  // signing account at admission, and the debit refuses it in the block.
  async execute(ctx, op) {
    await ctx.accounts.debit(op.signer.account, op.value);
    const current = await stakes.get(ctx.store, op.actor);
    const paid = current ? await payStake(ctx, op.actor, current) : undefined;
    const unlock = ctx.block.height + Number(await ctx.params.get('unbonding_blocks'));
    await putStake(ctx.store, op.actor, { amount: (paid?.amount ?? 0n) + op.value, unlock_height: unlock, paid_to: ctx.block.height, genesis: paid?.genesis ?? false, bonded_height: paid ? (paid.bonded_height ?? 0) : ctx.block.height, added_height: ctx.block.height }, ctx.block.height);
    staked.emit(ctx, { address: op.actor, amount: op.value, unlock_height: unlock });
  },
});
