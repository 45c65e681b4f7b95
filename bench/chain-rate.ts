import type { SeenBlock } from './confirmation-watcher.js';

/**
 * Transactions the chain committed per second while a phase ran, whoever sent them: over the
 * blocks first seen between `start` and `end` (performance.now()), the transactions of all but the
 * first over the time from the first to the last, so that neither end's partial interval counts.
 * Null with fewer than two such blocks.
 *
 * Beside the bench's `committed tx/s` (the phase's own submissions over the time from the first
 * of them to the last one's commit): when the devnet takes less than is offered, a backlog from
 * the phase before (a warm-up, not counted) fills the phase's first blocks, and the phase's own
 * transactions then commit after it ends, so that figure falls with the backlog's length (its
 * latency), not only with what the chain commits per second. This one does not.
 */
export function chainRate(blocks: readonly SeenBlock[], start: number, end: number): number | null {
  const inPhase = blocks.filter((b) => b.seen >= start && b.seen <= end);
  if (inPhase.length < 2) return null;
  const first = inPhase[0]!;
  const last = inPhase[inPhase.length - 1]!;
  if (last.seen <= first.seen) return null;
  let txs = 0;
  for (let i = 1; i < inPhase.length; i++) txs += inPhase[i]!.txs;
  return (txs * 1000) / (last.seen - first.seen);
}
