import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cappedElapsed, delegationReward, stakeReward } from './rewards.js';

const YEAR = 78_840_000n;

test('stake rewards: the formula of decisions.md §33 at its edges', () => {
  assert.equal(stakeReward(0n, 1_200n, 1_000n, YEAR), 0n, 'zero stake earns nothing');
  assert.equal(stakeReward(10_000_000_000n, 1_200n, YEAR, YEAR), 1_200_000_000n, 'a whole year at 12 % is 12 % of the stake');
  assert.equal(stakeReward(10_000_000_000n, 2_400n, 216_000n, YEAR), 6_575_342n, 'one default interval at the genesis rate, floored once');
  // Products far beyond 64 bits (a 10^15 stake × 10^5 bps × 10^9 blocks) stay exact.
  assert.equal(stakeReward(1_000_000_000_000_000n, 100_000n, 1_000_000_000n, 1n), 10_000_000_000_000_000_000_000_000n);
  assert.equal(stakeReward(1n, 1n, 1n, YEAR), 0n, 'sub-ucoin payouts round down to nothing');
});

test('delegation rewards split by commission; the parts never exceed the whole', () => {
  const { commission, delegator } = delegationReward(10_000_000_000n, 1_200n, 1_000n, YEAR, YEAR);
  assert.equal(commission, 120_000_000n, 'validator 1.2 % a year on the delegated amount (part 1, Staking 6)');
  assert.equal(delegator, 1_080_000_000n, 'delegator 10.8 % a year');
  const zero = delegationReward(10_000_000_000n, 1_200n, 0n, YEAR, YEAR);
  assert.deepEqual(zero, { commission: 0n, delegator: 1_200_000_000n });
  const odd = delegationReward(333_333n, 1_200n, 1_234n, 7n, 1_000n);
  assert.ok(odd.commission + odd.delegator <= (333_333n * 1_200n * 7n) / (10_000n * 1_000n));
});

test('elapsed is capped at one interval and never negative', () => {
  assert.equal(cappedElapsed(100, 150, 1_000n), 50n);
  assert.equal(cappedElapsed(100, 5_000, 1_000n), 1_000n);
  assert.equal(cappedElapsed(200, 100, 1_000n), 0n);
});

test('delegation rewards at the parameters\' upper bounds: 10^33 intermediates (past 64 bits, inside 128) stay exact', () => {
  // amount 10^15 ucoin, base_apy_bps 100 000, commission_bps 10 000, 10^9 elapsed blocks, one block a year.
  const r = delegationReward(1_000_000_000_000_000n, 100_000n, 10_000n, 1_000_000_000n, 1n);
  assert.ok(1_000_000_000_000_000n * 100_000n * 10_000n * 1_000_000_000n < 2n ** 128n);
  assert.equal(r.commission, 10_000_000_000_000_000_000_000_000n);
  assert.equal(r.delegator, 0n);
  // One ucoin short of a whole unit rounds down, once, at the end.
  assert.equal(stakeReward(9_999n, 1n, 1n, 1n), 0n);
  assert.equal(stakeReward(10_000n, 1n, 1n, 1n), 1n);
});

test('the per-payout cap: a payout long overdue earns one interval, exactly as a punctual one', () => {
  const interval = 216_000n;
  const late = stakeReward(10_000_000_000n, 1_200n, cappedElapsed(0, 5_000_000, interval), YEAR);
  const punctual = stakeReward(10_000_000_000n, 1_200n, cappedElapsed(0, 216_000, interval), YEAR);
  assert.equal(late, punctual);
  assert.equal(punctual, 3_287_671n);
});
