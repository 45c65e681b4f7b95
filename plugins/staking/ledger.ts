import { addressKind, badRequest, type ReadContext, type ReadonlyStore, type WriteContext } from '../../kernel/sdk.js';
import { DEFAULT_COMMISSION_BPS } from './params.js';
import { cappedElapsed, delegationReward, stakeReward } from './rewards.js';
import { delegations, nodes, putDelegation, putStake, stakes, type DelegationRecord, type RewardRecord, type StakeRecord } from './store.js';
import { writeReward } from './reward-records.js';
import { rewardPaid } from './events.js';

/**
 * Staking's money paths, shared by the operations and the block hooks. Stake and delegations are
 * held by the plugin (no account holds them), so the supply is balances + stakes + delegations,
 * and rewards are the only coins the plugin creates.
 */

/** Who is paid what belongs to `address`: a `.node`'s owner (decisions.md §30), anyone else themself. */
export async function payeeOf(store: ReadonlyStore, address: string): Promise<string> {
  if (addressKind(address) !== 'node') return address;
  const node = await nodes.get(store, address);
  if (!node) throw badRequest(`${address} is not a registered node`);
  return node.owner;
}

/** Credits a reward and records it; a payout of 0 writes nothing (decisions.md §37). */
async function pay(ctx: WriteContext, r: RewardRecord): Promise<void> {
  if (r.amount === 0n) return;
  await ctx.accounts.credit(r.paid_to, r.amount);
  await writeReward(ctx.store, r);
  rewardPaid.emit(ctx, { height: r.height, source: r.source, staker: r.staker, counterparty: r.counterparty, paid_to: r.paid_to, amount: r.amount });
}

/** Pays what a self-stake accrued up to this block and moves its payout mark. */
export async function payStake(ctx: WriteContext, address: string, s: StakeRecord): Promise<StakeRecord> {
  const p = ctx.params;
  const elapsed = cappedElapsed(s.paid_to, ctx.block.height, await p.get('reward_interval_blocks'));
  const rate = s.genesis ? await p.get('genesis_apy_bps') : await p.get('base_apy_bps');
  const amount = stakeReward(s.amount, rate, elapsed, await p.get('blocks_per_year'));
  await pay(ctx, { height: ctx.block.height, source: 'stake', staker: address, counterparty: address, paid_to: await payeeOf(ctx.store, address), amount });
  return { ...s, paid_to: ctx.block.height };
}

/** Pays what a delegation accrued: the delegator's share and the validator's commission. */
export async function payDelegation(ctx: WriteContext, validator: string, delegator: string, d: DelegationRecord): Promise<DelegationRecord> {
  const p = ctx.params;
  const elapsed = cappedElapsed(d.paid_to, ctx.block.height, await p.get('reward_interval_blocks'));
  const node = await nodes.get(ctx.store, validator);
  const split = delegationReward(d.amount, await p.get('base_apy_bps'), node?.commission_bps ?? DEFAULT_COMMISSION_BPS, elapsed, await p.get('blocks_per_year'));
  await pay(ctx, { height: ctx.block.height, source: 'delegation', staker: delegator, counterparty: validator, paid_to: await payeeOf(ctx.store, delegator), amount: split.delegator });
  await pay(ctx, { height: ctx.block.height, source: 'commission', staker: validator, counterparty: delegator, paid_to: node?.owner ?? validator, amount: split.commission });
  return { ...d, paid_to: ctx.block.height };
}

/** At every `reward_interval_blocks`-th height: every stake and delegation, in key order. */
export async function payRewardsIfDue(ctx: WriteContext): Promise<void> {
  const interval = await ctx.params.get('reward_interval_blocks');
  if (BigInt(ctx.block.height) % interval !== 0n) return;
  // Only the payout marks change: amounts, ranks and sums stay as they are.
  for (const { key: [address], value } of await stakes.scan(ctx.store)) await putStake(ctx.store, address, await payStake(ctx, address, value), ctx.block.height);
  for (const { key: [validator, delegator], value } of await delegations.scan(ctx.store)) await putDelegation(ctx.store, validator, delegator, await payDelegation(ctx, validator, delegator, value));
}

/** A `.node` has active stake: registered, self-stake at least min_stake, not jailed at this height. */
export async function hasActiveStake(ctx: ReadContext, address: string): Promise<boolean> {
  const node = await nodes.get(ctx.store, address);
  if (!node || node.jailed_until > ctx.height) return false;
  const stake = await stakes.get(ctx.store, address);
  return stake !== undefined && stake.amount >= (await ctx.params.get('min_stake'));
}

