import type { Logger } from 'pino';
import type { Chain } from '../chain/chain.js';
import type { ConsensusStatus, PeerView } from './services.js';
import { nextBlockDue, type BlockPace } from './pace.js';

/**
 * Block production for a network of one validator: propose, validate and commit locally on the
 * pace of CHAIN_BLOCK_MS (a block with transactions) and CHAIN_EMPTY_BLOCK_MS (an empty block).
 * The BFT engine replaces this for multi-validator networks; it drives the same Chain methods.
 */
export class SoloProducer implements ConsensusStatus {
  private timer: NodeJS.Timeout | null = null;
  private lastBlockAt = 0;
  private running = false;
  private producing: Promise<void> | null = null;

  constructor(
    private readonly chain: Chain,
    private readonly proposer: string,
    private readonly pace: BlockPace,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  start(): void {
    this.running = true;
    this.lastBlockAt = this.now();
    this.schedule();
  }

  /** Called when a transaction enters the mempool, so a pending empty-block wait is shortened. */
  poke(): void {
    if (this.running && !this.producing) this.schedule();
  }

  async stop(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.producing;
  }

  round(): number {
    return 0;
  }

  peers(): PeerView[] {
    return [];
  }

  behind(): number {
    return 0;
  }

  private schedule(): void {
    if (this.timer) clearTimeout(this.timer);
    const delay = Math.max(0, nextBlockDue(this.lastBlockAt, this.chain.mempool.size, this.pace) - this.now());
    this.timer = setTimeout(() => {
      this.timer = null;
      this.producing = this.produce().finally(() => {
        this.producing = null;
        if (this.running) this.schedule();
      });
    }, delay);
  }

  private async produce(): Promise<void> {
    try {
      const proposal = await this.chain.propose(0, this.proposer, this.now());
      const reason = await this.chain.validate(proposal);
      if (reason) {
        this.log.error({ height: proposal.header.height, reason }, 'own proposal failed validation; dropping its transactions');
        for (const tx of proposal.txs) this.chain.mempool.evict(tx.hash);
        return;
      }
      await this.chain.finalize(proposal);
      this.lastBlockAt = this.now();
    } catch (err) {
      this.log.error({ err }, 'block production failed');
      this.lastBlockAt = this.now();
    }
  }
}
