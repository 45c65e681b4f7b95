import { defineMethods } from '../../kernel/sdk.js';
import { selfStakeAtStartOf, selfStakeTotal, stakes } from './store.js';

/** An address's self-stake as other plugins see it (governance weight, part 1 Governance 4). */
export interface SelfStake {
  readonly amount: bigint;
  /** Height it was first bonded; stake bonded at or after a proposal's creation height cannot vote on it. */
  readonly bonded_height: number;
  /** Height of the last addition to it: stake added at or after a proposal's creation height cannot vote on it. */
  readonly added_height: number;
}

/**
 * What staking offers other plugins (read only): self-stake gives governance weight, delegation
 * gives none (part 1, Staking 1), so only self-stake is offered. Each is one read.
 */
export const stakingMethods = defineMethods('staking', {
  read: {
    /** The address's self-stake, or undefined when it has none. */
    async selfStake(ctx, address: string): Promise<SelfStake | undefined> {
      const r = await stakes.get(ctx.store, address);
      if (!r || r.amount === 0n) return undefined;
      return { amount: r.amount, bonded_height: r.bonded_height ?? 0, added_height: r.added_height ?? r.bonded_height ?? 0 };
    },
    /** The sum of every self-stake now. */
    async totalSelfStake(ctx): Promise<bigint> {
      return (await selfStakeTotal(ctx.store)).total;
    },
    /**
     * The sum of every self-stake when the block at the context's height began: the stake that
     * may vote on a proposal created in that block (part 1, Governance 4), governance's quorum
     * base (decisions.md §98). Stake added or withdrawn earlier in the same block is not in it.
     */
    async totalSelfStakeAtBlockStart(ctx): Promise<bigint> {
      return selfStakeAtStartOf(ctx.store, ctx.height);
    },
  },
});
