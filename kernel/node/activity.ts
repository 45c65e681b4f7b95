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

/** What a block adds to the window: its header's count and time, which never change once committed. */
interface BlockFacts {
  readonly txCount: number;
  readonly timestamp: number;
}

/** Block intervals /health's figures span. */
export const ACTIVITY_INTERVALS = 20;

/**
 * /health's figures over the last 20 block intervals, from each block's header. The window moves
 * by one block a height, so each block is read and decoded once rather than 21 times at each
 * commit: re-decoding the 20 it already had cost an idle validator's main thread ~0.5 ms a height.
 */
export class ActivityWindow {
  private readonly facts = new Map<number, BlockFacts>();

  constructor(private readonly readBlock: (height: number) => Promise<{ readonly header: { readonly tx_count: number; readonly timestamp: number } } | undefined>) {}

  async at(top: number): Promise<Activity> {
    if (top < 2) return NO_ACTIVITY;
    const from = Math.max(1, top - ACTIVITY_INTERVALS);
    const first = await this.factsAt(from);
    const last = await this.factsAt(top);
    if (!first || !last) return NO_ACTIVITY;
    let txs = 0;
    for (let h = from + 1; h <= top; h++) txs += (await this.factsAt(h))?.txCount ?? 0;
    for (const h of this.facts.keys()) if (h < from) this.facts.delete(h);
    return activityOf(txs, last.timestamp - first.timestamp, top - from);
  }

  /** A block a node does not hold (below its snapshot) is not remembered: it may be asked again. */
  private async factsAt(height: number): Promise<BlockFacts | undefined> {
    const kept = this.facts.get(height);
    if (kept !== undefined) return kept;
    const block = await this.readBlock(height);
    if (block === undefined) return undefined;
    const facts = { txCount: block.header.tx_count, timestamp: block.header.timestamp };
    this.facts.set(height, facts);
    return facts;
  }
}
