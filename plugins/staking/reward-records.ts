import type { ReadonlyStore, Store } from '../../kernel/sdk.js';
import { rewards, rewardSummaries, type RewardRecord, type RewardSource, type RewardSummary } from './store.js';

const EMPTY: RewardSummary = { total: 0n, count: 0, stake: 0, delegation: 0, commission: 0 };

export const rewardSummary = async (s: ReadonlyStore, staker: string): Promise<RewardSummary> => (await rewardSummaries.get(s, staker)) ?? EMPTY;

/**
 * Stores a payout as its own record under the staker's next sequence number, and adds it to the
 * staker's summary: no payout can overwrite another, and `rewards_total` is their sum.
 */
export async function writeReward(s: Store, r: RewardRecord): Promise<void> {
  const sum = await rewardSummary(s, r.staker);
  rewards.set(s, r.staker, r.source, sum.count, r);
  rewardSummaries.set(s, r.staker, { ...sum, total: sum.total + r.amount, count: sum.count + 1, [r.source]: sum[r.source] + 1 });
}

/**
 * One page of a staker's records, newest first, of the given sources. Each source's records are
 * read newest first and only as far as the page reaches (`offset + limit` of each), then merged
 * by sequence number, so a page costs its offset and size, not the staker's whole history.
 */
export async function rewardsPage(s: ReadonlyStore, staker: string, sources: readonly RewardSource[], limit: number, offset: number): Promise<{ rows: RewardRecord[]; total: number }> {
  const sum = await rewardSummary(s, staker);
  const total = sources.reduce((n, source) => n + sum[source], 0);
  if (offset >= total) return { rows: [], total };
  const rows: Array<[number, RewardRecord]> = [];
  for (const source of sources) {
    for (const { key, value } of await rewards.scan(s, { prefix: [staker, source], reverse: true, limit: offset + limit })) rows.push([key[2], value]);
  }
  rows.sort((a, b) => b[0] - a[0]);
  return { rows: rows.slice(offset, offset + limit).map(([, v]) => v), total };
}
