/**
 * Holds new admissions back while this node validates, executes or stores a block, as CometBFT
 * locks its mempool during a block's execution and commit.
 *
 * Admissions and blocks share one event loop. A block's path awaits its reads and yields every few
 * hundred tree nodes so that timers and votes get in; under a flood of submissions every such turn
 * also ran the admissions queued meanwhile (parsing, hashing, state reads of each), so a block that
 * takes ~0.35 s alone took 1.3–2.7 s to validate at 10^6 accounts, on every validator, before its
 * prevote, and the chain committed a third of what it could (docs/performance.md, run J). An
 * admission that arrives while a block step runs now waits for it to end; one already past the
 * gate finishes as before. Nothing a block step does waits for an admission (a plugin's own
 * system transactions, `admitSystem`, do not pass the gate; relayed ones do), so the gate cannot
 * hold a block.
 *
 * The client's answer is later by the block steps running when it arrived (overlapping steps and a
 * commit queued behind another add up: seconds for a flooded node at 10^6 accounts), and a node
 * flooded with more than it can commit answers more slowly instead of queueing what it cannot
 * include: the backlog shows up at the clients, which is where a flat-out sender's window lets it.
 */
export class BlockGate {
  private running = 0;
  private opened: Promise<void> | null = null;
  private open: (() => void) | null = null;
  private held = 0;

  /** An admission's way in: at once when no block step runs, else once the last running one has ended. */
  passage(): Promise<void> {
    if (this.opened === null) return Promise.resolve();
    this.held++;
    return this.opened;
  }

  /** The same wait for work that serves admissions (a relay batch's read-ahead), not counted as held. */
  afterSteps(): Promise<void> {
    return this.opened ?? Promise.resolve();
  }

  /** Runs a block step with the gate closed; steps may overlap (it opens when the last ends). */
  async during<T>(step: () => Promise<T>): Promise<T> {
    if (this.running++ === 0) this.opened = new Promise<void>((resolve) => (this.open = resolve));
    try {
      return await step();
    } finally {
      if (--this.running === 0) {
        const open = this.open!;
        this.opened = null;
        this.open = null;
        open();
      }
    }
  }

  /** Admissions that waited for a block step so far (`chain_admissions_held_total`). */
  get heldCount(): number {
    return this.held;
  }
}
