import type { Logger } from 'pino';
import type { Chain } from '../chain/chain.js';

/** A node's background read of its state tree's upper levels (Chain.warmStateTree). */
export interface TreeWarmUp {
  /** True until the warm-up has read every level it caches, failed or stopped (`chain_tree_warming`). */
  readonly running: boolean;
  /** Stops it at its next store call and waits for that: call before the store closes. */
  stop(): Promise<void>;
}

/**
 * Starts warming the head's upper tree levels beside everything else the node does. It is never
 * fatal: a level it did not read is filled by the blocks' own reads, as without it, so a failure
 * is logged and the node goes on.
 */
export function startTreeWarmUp(chain: Pick<Chain, 'warmStateTree' | 'head'>, log: Logger): TreeWarmUp {
  const abort = new AbortController();
  const started = performance.now();
  const height = chain.head.height;
  let running = true;
  const done = chain.warmStateTree(abort.signal).then(
    (nodes) => {
      const seconds = Number(((performance.now() - started) / 1000).toFixed(1));
      if (abort.signal.aborted) log.info({ nodes, seconds }, 'state tree warm-up stopped with the node');
      else log.info({ nodes, seconds, height }, `state tree's upper levels read into memory: ${nodes} nodes in ${seconds} s`);
    },
    (err: unknown) => {
      // A store closed under it (the node stopping) ends it the same way.
      if (!abort.signal.aborted) log.warn({ err }, 'state tree warm-up failed; blocks fill the upper levels as they read paths');
    },
  ).finally(() => {
    running = false;
  });
  return {
    get running() {
      return running;
    },
    async stop() {
      abort.abort();
      await done;
    },
  };
}
