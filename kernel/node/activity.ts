/** What `/health` reports of the last blocks: measured from block timestamps, never a constant. */
export interface Activity {
  /** Transactions per second, rounded to an integer (part 1, Node health: `tps` is an integer). */
  readonly tps: number;
  /** Mean interval between the blocks, in whole milliseconds. */
  readonly blockMs: number;
}

export const NO_ACTIVITY: Activity = { tps: 0, blockMs: 0 };

/** `txs` committed over `spanMs` of block time across `intervals` block intervals. */
export function activityOf(txs: number, spanMs: number, intervals: number): Activity {
  if (spanMs <= 0 || intervals <= 0) return NO_ACTIVITY;
  return { tps: Math.round((txs * 1000) / spanMs), blockMs: Math.round(spanMs / intervals) };
}
