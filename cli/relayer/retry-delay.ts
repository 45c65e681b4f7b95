/** The longest wait before a refused submission is tried again. */
export const MAX_BACKOFF_MS = 60_000;

/**
 * How long a relayer waits before it tries a refused submission again: the poll interval, doubled
 * with every refusal in a row, capped at MAX_BACKOFF_MS, so a submission a node keeps refusing
 * (a fee it cannot pay, a proof that will not verify) costs one line a minute, not one per poll.
 * Shared by `chain relayer` and `chain relay-shards`.
 */
export function retryDelay(intervalMs: number, attempts: number): number {
  return Math.min(MAX_BACKOFF_MS, intervalMs * 2 ** Math.max(0, attempts - 1));
}
