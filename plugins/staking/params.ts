import { MAX_VALIDATORS, type ParamSpec } from '../../kernel/sdk.js';

/** Part 2, "Protocol parameters", staking and slashing rows: defaults and ranges as listed. */
export const STAKING_PARAMS: readonly ParamSpec[] = [
  { key: 'min_stake', default: 10_000_000_000n, min: 1n, max: 1_000_000_000_000_000n, description: 'least self-stake of a validator and least first stake or delegation, in ucoin', unit: 'ucoin' },
  { key: 'unbonding_blocks', default: 1_512_000n, min: 1n, max: 1_000_000_000n, description: 'blocks a stake or delegation stays locked after its last addition' },
  { key: 'base_apy_bps', default: 1_200n, min: 0n, max: 100_000n, description: 'yearly reward rate of stakes and delegations, in basis points' },
  { key: 'genesis_apy_bps', default: 2_400n, min: 0n, max: 100_000n, description: 'yearly reward rate of genesis validators\' self-stake, in basis points' },
  { key: 'reward_interval_blocks', default: 216_000n, min: 1n, max: 1_000_000_000n, description: 'blocks between reward payouts' },
  { key: 'blocks_per_year', default: 78_840_000n, min: 1n, max: 1_000_000_000n, description: 'blocks in a year, for the reward formula' },
  { key: 'max_commission_bps', default: 2_000n, description: 'highest commission a validator may set, in basis points (no range check)' },
  { key: 'slash_fraction_double_sign_bps', default: 500n, min: 0n, max: 10_000n, description: 'share of min_stake slashed for a double sign, in basis points' },
  { key: 'slash_reward_fraction_bps', default: 100n, min: 0n, max: 10_000n, description: 'share of a slash paid to the reporter, in basis points' },
  // Reserved (plugins/staking/README.md, "Slashing"): part 2 lists it, but the only offence the
  // chain proves is a duplicate vote, which decisions.md §98 makes one offence whatever the vote
  // types, priced by slash_fraction_double_sign_bps; nothing reads this one.
  { key: 'slash_double_vote_bps', default: 500n, min: 0n, max: 10_000n, description: 'reserved: listed by part 2 and governable, but no offence uses it (a double vote of any type is the double-sign offence, slash_fraction_double_sign_bps)' },
  // decisions.md §96: the active set is the top max_validators eligible nodes by self-stake; the
  // range's top is the kernel's bound on a set, so the set staking hands over is never refused.
  { key: 'max_validators', default: 100n, min: 4n, max: BigInt(MAX_VALIDATORS), description: 'most validators in the active set: the eligible .nodes with the highest self-stake, ties by address' },
  { key: 'jail_blocks', default: 10_000n, min: 1n, max: 1_000_000_000n, description: 'blocks a slashed validator stays jailed' },
];

/** Commission of a node that never set one (part 1, Staking 6: 10 %). */
export const DEFAULT_COMMISSION_BPS = 1_000n;
