/** A committed block as the summary needs it. */
export interface BlockPoint {
  readonly timestamp: number;
  readonly tx_count: number;
}

/** Blocks behind the tip the figures read: 1 000 windows of 10 blocks and the block before each. */
export const SUMMARY_SPAN = 1_010;
const MEDIAN_BLOCKS = 100;
const TPS_BLOCKS = 10;
const PEAK_BLOCKS = 1_000;

export interface NetworkFigures {
  /** Median gap between consecutive block timestamps over the last 100 blocks, integer ms; null before two blocks. */
  readonly block_time_ms: number | null;
  /** Transactions of the last 10 blocks over the time from the block before them to the last. */
  readonly tps: number;
  /** The highest such 10-block figure over the last 1 000 blocks. */
  readonly tps_peak: number;
}

function median(values: number[]): number {
  const v = [...values].sort((a, b) => a - b);
  const mid = v.length >> 1;
  return v.length % 2 === 1 ? v[mid]! : Math.floor((v[mid - 1]! + v[mid]!) / 2);
}

/**
 * The 10-block throughput ending at `h` (decisions.md §88): transactions of blocks h-9..h over
 * the time from block h-10 to block h. A young chain counts from block 1. Undefined when a block
 * it needs is missing.
 */
function windowTps(blocks: ReadonlyMap<number, BlockPoint>, h: number): number | undefined {
  const before = Math.max(1, h - TPS_BLOCKS);
  if (before >= h) return 0;
  const first = blocks.get(before);
  const last = blocks.get(h);
  if (!first || !last) return undefined;
  let txs = 0;
  for (let x = before + 1; x <= h; x++) {
    const b = blocks.get(x);
    if (!b) return undefined;
    txs += b.tx_count;
  }
  const span = last.timestamp - first.timestamp;
  return span > 0 ? (txs * 1000) / span : 0;
}

/** Block time, TPS and its peak from the committed blocks up to `top` (decisions.md §88), measured, never assumed. */
export function networkFigures(blocks: ReadonlyMap<number, BlockPoint>, top: number): NetworkFigures {
  const gaps: number[] = [];
  for (let h = Math.max(2, top - MEDIAN_BLOCKS + 2); h <= top; h++) {
    const a = blocks.get(h - 1);
    const b = blocks.get(h);
    if (a && b) gaps.push(b.timestamp - a.timestamp);
  }
  let peak = 0;
  for (let h = Math.max(2, top - PEAK_BLOCKS + 1); h <= top; h++) peak = Math.max(peak, windowTps(blocks, h) ?? 0);
  return { block_time_ms: gaps.length === 0 ? null : median(gaps), tps: top >= 2 ? (windowTps(blocks, top) ?? 0) : 0, tps_peak: peak };
}
