import { operationOf, type Tx } from '../../kernel/sdk.js';

/**
 * §59: a block carries at most `dex_max_swaps_per_pool_block` swaps of a pool. The proposer
 * leaves the rest in its pool (prepareProposal) and every validator refuses a proposal with more
 * (processProposal); both count alike, by the body's `pool_id`, whether or not the swap will
 * succeed. A deferred swap keeps every later operation of its actor out of the block too: their
 * millisecond nonces would make it stale (the mempool's own selection does the same).
 */
export function poolOfSwap(tx: Tx): string | undefined {
  if (operationOf(tx) !== 'swap') return undefined;
  return String(tx.body.pool_id);
}

export function withinSwapLimit(txs: readonly Tx[], max: number): Tx[] {
  const perPool = new Map<string, number>();
  const waiting = new Set<string>();
  const out: Tx[] = [];
  for (const tx of txs) {
    const isOperation = tx.origin === 'signed' && operationOf(tx) !== undefined;
    if (isOperation && waiting.has(tx.from)) continue;
    const pool = poolOfSwap(tx);
    if (pool !== undefined) {
      const n = perPool.get(pool) ?? 0;
      if (n >= max) {
        waiting.add(tx.from);
        continue;
      }
      perPool.set(pool, n + 1);
    }
    out.push(tx);
  }
  return out;
}

/** Why a proposal carries too many swaps of a pool, or undefined. */
export function swapLimitProblem(txs: readonly Tx[], max: number): string | undefined {
  const perPool = new Map<string, number>();
  for (const tx of txs) {
    const pool = poolOfSwap(tx);
    if (pool === undefined) continue;
    const n = (perPool.get(pool) ?? 0) + 1;
    perPool.set(pool, n);
    if (n > max) return `the block carries more than dex_max_swaps_per_pool_block (${max}) swaps of pool ${pool}`;
  }
  return undefined;
}
