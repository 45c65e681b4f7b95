/**
 * The reward formulas of decisions.md §33, integer only, one division at the end so no
 * intermediate rounding changes a payout (bigint is exact at any width, so the products that
 * part 1 asks to hold in 128 bits hold here too).
 */
const BPS = 10_000n;

/** `elapsed` blocks since the last payout, capped at one interval (part 1, Staking 5's per-payout cap). */
export function cappedElapsed(from: number, to: number, interval: bigint): bigint {
  const elapsed = BigInt(Math.max(0, to - from));
  return elapsed < interval ? elapsed : interval;
}

/** A self-stake's payout: floor(amount × rate_bps × elapsed / (10 000 × blocks_per_year)). */
export function stakeReward(amount: bigint, rateBps: bigint, elapsed: bigint, blocksPerYear: bigint): bigint {
  return (amount * rateBps * elapsed) / (BPS * blocksPerYear);
}

/**
 * A delegation's payout, split: the validator's commission
 * floor(amount × base × commission × elapsed / (10^8 × blocks_per_year)) and the delegator's share
 * floor(amount × base × (10 000 − commission) × elapsed / (10^8 × blocks_per_year)).
 */
export function delegationReward(amount: bigint, baseBps: bigint, commissionBps: bigint, elapsed: bigint, blocksPerYear: bigint): { commission: bigint; delegator: bigint } {
  const divisor = BPS * BPS * blocksPerYear;
  return {
    commission: (amount * baseBps * commissionBps * elapsed) / divisor,
    delegator: (amount * baseBps * (BPS - commissionBps) * elapsed) / divisor,
  };
}
