/**
 * Proposer-based timestamps (CometBFT's PBTS), the bound that matters: a block's time may not be
 * ahead of the receiving validator's clock by more than the clocks' precision when its proposal
 * arrives. Block validity cannot read a clock (every correct node must agree on valid(v), or a
 * node whose clock lags could never decide what the others certified), so this judges only the
 * prevote for a fresh proposal: a block from the future gets nil, and with more than 1/3 of the
 * power correct and their clocks within the precision, it never gathers a polka. Without it one
 * Byzantine proposer could move chain time arbitrarily far ahead for good, since correct proposers
 * take `max(now, parent + 1)`.
 *
 * PBTS also bounds the other side (a block time older than arrival minus the message delay). That
 * bound is left out on purpose: a block time held back lasts one block, because the next correct
 * proposer's `max(now, parent + 1)` brings chain time back, whereas a time pushed ahead cannot be
 * undone.
 */
export const DEFAULT_TIMESTAMP_PRECISION_MS = 500;

/** Whether a block time of `blockTimeMs` is acceptable for a proposal that arrived at `arrivedAtMs` on this node's clock. */
export function isTimely(blockTimeMs: number, arrivedAtMs: number, precisionMs: number): boolean {
  return blockTimeMs <= arrivedAtMs + precisionMs;
}
