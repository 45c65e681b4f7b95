/** CHAIN_BLOCK_MS and CHAIN_EMPTY_BLOCK_MS (part 1, Consensus item 6). */
export interface BlockPace {
  readonly blockMs: number;
  readonly emptyBlockMs: number;
}

/**
 * When the next block may be proposed: CHAIN_BLOCK_MS after the last one when transactions are
 * waiting, CHAIN_EMPTY_BLOCK_MS when the mempool is empty. The one rule both the single-validator
 * producer and the BFT replica follow.
 */
export function nextBlockDue(lastBlockAt: number, pendingTxs: number, pace: BlockPace): number {
  return lastBlockAt + (pendingTxs > 0 ? pace.blockMs : pace.emptyBlockMs);
}
