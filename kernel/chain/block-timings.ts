import { performance } from 'node:perf_hooks';

/** The steps of a block on this node whose wall time `BlockTimings` adds up. */
export const BLOCK_STEPS = ['execute', 'tree', 'write', 'recheck'] as const;
export type BlockStep = (typeof BLOCK_STEPS)[number];

/**
 * Wall time this node spent on each step of its blocks, added up since start: executing a
 * proposal's transactions (`execute`, the tree update apart; once per proposal executed, whether
 * it commits or not), updating the state tree (`tree`), storing a committed block (`write`: its
 * batch, the address totals it reads, the text log, LevelDB's write with fsync), and re-checking
 * the mempool against the new head (`recheck`). Under flat-out load the committed rate is a block's size over the interval
 * between blocks, and these steps lie on that path, so their means per block say where the
 * interval goes (`chain_block_step_seconds_total`; the load bench prints them per phase). Only
 * observed, never read by anything that decides a result.
 */
export class BlockTimings {
  private readonly seconds = new Map<BlockStep, number>(BLOCK_STEPS.map((s) => [s, 0]));
  private readonly counts = new Map<BlockStep, number>(BLOCK_STEPS.map((s) => [s, 0]));
  private commitObserver: ((seconds: number) => void) | undefined;

  /** Told, for each block this node commits, how long executing it (when not done already) and storing it took. */
  onCommit(observer: (seconds: number) => void): void {
    this.commitObserver = observer;
  }

  /** Starts timing a block's commit; the returned function reports it once stored. */
  commitStarted(): () => void {
    const start = performance.now();
    return () => this.commitObserver?.((performance.now() - start) / 1000);
  }

  /** Runs `step`'s work and adds its wall time, whether it resolves or throws. */
  async time<T>(step: BlockStep, work: () => Promise<T>): Promise<T> {
    const start = performance.now();
    try {
      return await work();
    } finally {
      this.seconds.set(step, this.seconds.get(step)! + (performance.now() - start) / 1000);
      this.counts.set(step, this.counts.get(step)! + 1);
    }
  }

  /** Each step's total seconds and how many times it ran. */
  entries(): Array<{ step: BlockStep; seconds: number; count: number }> {
    return BLOCK_STEPS.map((step) => ({ step, seconds: this.seconds.get(step)!, count: this.counts.get(step)! }));
  }
}
