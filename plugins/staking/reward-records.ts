import { jsonRecord, type ReadonlyStore, type Store } from '../../kernel/sdk.js';
import { pad12 } from './store.js';

export const REWARD_SOURCES = ['stake', 'delegation', 'commission'] as const;
export type RewardSource = (typeof REWARD_SOURCES)[number];

/**
 * One payout (decisions.md §33, §97): two payouts in one block to one staker from one source
 * (delegations to two validators, commission from two delegators) are two records, each naming
 * its `counterparty`: the validator of a delegation, the delegator of a commission, the staker
 * itself for self-stake.
 */
export interface RewardRecord {
  height: number;
  source: RewardSource;
  staker: string;
  counterparty: string;
  paid_to: string;
  amount: bigint;
}

/** A staker's rewards in one read: the total (`rewards_total`, the records' sum) and how many records each source has. */
export interface RewardSummary {
  total: bigint;
  /** Records written so far: the next record's sequence number. */
  count: number;
  stake: number;
  delegation: number;
  commission: number;
}

const recordCodec = jsonRecord<RewardRecord>();
const summaryCodec = jsonRecord<RewardSummary>();
const EMPTY: RewardSummary = { total: 0n, count: 0, stake: 0, delegation: 0, commission: 0 };

const summaryKey = (staker: string): string => `sum/reward/${staker}`;
const sourcePrefix = (staker: string, source: RewardSource): string => `reward/${staker}/${source}/`;

export const rewardSummary = async (s: ReadonlyStore, staker: string): Promise<RewardSummary> => (await s.getRecord(summaryKey(staker), summaryCodec)) ?? EMPTY;

/**
 * Stores a payout as its own record under the staker's next sequence number, and adds it to the
 * staker's summary: no payout can overwrite another, and `rewards_total` is their sum.
 */
export async function writeReward(s: Store, r: RewardRecord): Promise<void> {
  const sum = await rewardSummary(s, r.staker);
  s.setRecord(`${sourcePrefix(r.staker, r.source)}${pad12(sum.count)}`, r, recordCodec);
  s.setRecord(summaryKey(r.staker), { ...sum, total: sum.total + r.amount, count: sum.count + 1, [r.source]: sum[r.source] + 1 }, summaryCodec);
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
  const seqOf = (key: string): number => Number(key.slice(key.lastIndexOf('/') + 1));
  const rows: Array<[number, Uint8Array]> = [];
  for (const source of sources) {
    for (const [k, v] of await s.scan(sourcePrefix(staker, source), { reverse: true, limit: offset + limit })) rows.push([seqOf(k), v]);
  }
  rows.sort((a, b) => b[0] - a[0]);
  return { rows: rows.slice(offset, offset + limit).map(([, v]) => recordCodec.decode(v)), total };
}
