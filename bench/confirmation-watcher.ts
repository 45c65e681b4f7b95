import type { BenchHttpClient } from './http-client.js';

/** A block as the watcher saw it: when its commit was first seen, and how many transactions it held. */
export interface SeenBlock {
  readonly height: number;
  readonly seen: number;
  readonly txs: number;
}

/** Between two polls of the node's height: the resolution of every confirm time. */
const POLL_MS = 20;

/**
 * Confirm times for the load bench: polls one node's height and reads each new block's
 * transaction ids, so a transfer is confirmed when its block is first seen (to within POLL_MS
 * plus the two reads). Starts at construction; `stop` lets it drain.
 */
export class ConfirmationWatcher {
  /** Transaction id → when its block was seen (performance.now()). */
  readonly confirmed = new Map<string, number>();
  readonly heightOf = new Map<string, number>();
  readonly blocks: SeenBlock[] = [];
  /** The first height this watcher reads: the one after the node's height at construction. */
  readonly firstHeight: number;
  private watchedHeight: number;
  private stopping = false;
  private drainUntil = Infinity;
  private readonly loop: Promise<void>;

  /** `submitted` is read as it grows: only those ids are confirmed. */
  constructor(
    private readonly http: BenchHttpClient,
    private readonly nodeUrl: string,
    fromHeight: number,
    private readonly submitted: ReadonlyMap<string, number>,
  ) {
    this.watchedHeight = fromHeight;
    this.firstHeight = fromHeight + 1;
    this.loop = this.run();
  }

  /** The last height read. */
  get lastHeight(): number {
    return this.watchedHeight;
  }

  /**
   * Stops once every submitted transaction is confirmed or `drainMs` has passed, whichever is
   * first. Called on every path, failures included: a watcher left polling a stopped devnet
   * would keep the process from exiting.
   */
  async stop(drainMs: number): Promise<void> {
    this.stopping = true;
    this.drainUntil = performance.now() + drainMs;
    await this.loop;
  }

  /**
   * Every transaction id of block `b`, page after page: a page holds at most 200 (part 2's cap),
   * and a block of pqclean transfers holds ~230 under max_block_bytes. Reading the first page
   * alone left the rest of each block unconfirmed (and the phase waiting out its drain for them).
   */
  private async blockTransactions(b: number): Promise<Array<{ hash: string }>> {
    const all: Array<{ hash: string }> = [];
    for (let offset = 0; ; ) {
      const page = (await this.http.getJson(`${this.nodeUrl}/api/v1/blocks/${b}/transactions?offset=${offset}`)).body as { transactions: Array<{ hash: string }>; has_more: boolean };
      all.push(...page.transactions);
      if (!page.has_more || page.transactions.length === 0) return all;
      offset += page.transactions.length;
    }
  }

  private async run(): Promise<void> {
    while (!this.stopping || this.confirmed.size < this.submitted.size) {
      try {
        const h = (await this.http.getJson(`${this.nodeUrl}/health`)).body.height as number;
        for (let b = this.watchedHeight + 1; b <= h; b++) {
          const txs = await this.blockTransactions(b);
          const now = performance.now();
          for (const t of txs) {
            if (this.submitted.has(t.hash) && !this.confirmed.has(t.hash)) {
              this.confirmed.set(t.hash, now);
              this.heightOf.set(t.hash, b);
            }
          }
          this.blocks.push({ height: b, seen: now, txs: txs.length });
          this.watchedHeight = b;
        }
      } catch (err) {
        console.error(`watcher poll failed (retrying): ${err instanceof Error ? err.message : String(err)}`);
      }
      if (this.stopping && performance.now() > this.drainUntil) break;
      await new Promise((res) => setTimeout(res, POLL_MS));
    }
  }
}
