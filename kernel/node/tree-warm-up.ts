import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { Chain } from '../chain/chain.js';
import { CorruptNodeError, MissingNodeError } from '../state/tree/index.js';

/** A node's background read of its state tree's upper levels (Chain.warmStateTree). */
export interface TreeWarmUp {
  /** True until the warm-up has read every level it caches, failed or stopped (`chain_tree_warming`). */
  readonly running: boolean;
  /** Stops it at its next store call and waits for that: call before the store closes. */
  stop(): Promise<void>;
}

/** How long a warm-up the chain outran waits before it starts again at the new head: about a block step. */
const RETRY_MS = 200;

/**
 * Starts warming the head's upper tree levels beside everything else the node does. A level it
 * did not read is filled by the blocks' own reads, as without it, so an ordinary failure is logged
 * and the node goes on; a missing or corrupt node is the tree store damaged (restored from another
 * time than the chain store, or its files broken), which the next block touching that path would
 * meet as a storage fault, so `onDamage` gets it now, as the start's integrity check would.
 */
export function startTreeWarmUp(chain: Pick<Chain, 'warmStateTree'>, log: Logger, onDamage: (err: Error) => void): TreeWarmUp {
  const abort = new AbortController();
  const started = performance.now();
  let running = true;
  const run = async (): Promise<void> => {
    let nodes = 0;
    for (;;) {
      const warm = await chain.warmStateTree(abort.signal);
      nodes += warm.nodes;
      const seconds = Number(((performance.now() - started) / 1000).toFixed(1));
      if (warm.complete) return void log.info({ nodes, seconds }, `state tree's upper levels read into memory: ${nodes} nodes in ${seconds} s`);
      if (abort.signal.aborted) return void log.info({ nodes, seconds }, 'state tree warm-up stopped with the node');
      // The chain moved on before it began, or the cache started afresh elsewhere: again at the head.
      await sleep(RETRY_MS, undefined, { signal: abort.signal }).catch(() => undefined);
    }
  };
  const done = run()
    .catch((err: unknown) => {
      // A store closed under it (the node stopping) ends it the same way.
      if (abort.signal.aborted) return;
      if (err instanceof MissingNodeError || err instanceof CorruptNodeError) {
        log.fatal({ err }, `state tree warm-up: the tree store is damaged (${err.message}); restore the data directory's tree/ and chain/ together from one backup`);
        onDamage(err);
        return;
      }
      log.warn({ err }, 'state tree warm-up failed; blocks fill the upper levels as they read paths');
    })
    .finally(() => {
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
