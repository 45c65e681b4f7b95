import type { Logger } from 'pino';
import type { Chain } from '../chain/chain.js';
import { parseHex } from '../codec/hex.js';
import type { LocalPrivValidator } from '../consensus/index.js';
import { decidedCommit } from '../replica/decided-commit.js';
import type { ConsensusStatus, PeerView } from '../replica/consensus-status.js';
import { nextBlockDue, type BlockPace } from '../replica/pace.js';
import { isDiskFull } from '../store/disk-full.js';

export interface SoloProducerOptions {
  readonly chain: Chain;
  /**
   * The validator's key behind its persisted double-sign guard. Each block is committed with a
   * certificate of this key's precommit, the whole quorum of a one-validator set, so followers
   * can check the blocks they catch up on and snapshots are certified as on any other chain.
   */
  readonly signer: LocalPrivValidator;
  readonly pace: BlockPace;
  readonly log: Logger;
  readonly now?: () => number;
  /** Whether this validator alone signs `height` and the height after it. */
  alone(height: number): Promise<boolean>;
  /** Called once, before a height this validator does not sign alone: BFT consensus takes over there. */
  handover(height: number): void;
  /** Called once when a block could not be written for want of disk space: production has stopped. */
  diskFull?(err: Error): void;
}

/**
 * Block production for a network of one validator: propose, validate and commit locally on the
 * pace of CHAIN_BLOCK_MS (a block with transactions) and CHAIN_EMPTY_BLOCK_MS (an empty block).
 * It drives the same Chain methods as the BFT engine, and hands over to it, without a restart,
 * as soon as the set of the coming height or the one after holds anyone else: the BFT engine
 * then runs that height alone and the grown set's from the next one.
 */
export class SoloProducer implements ConsensusStatus {
  private timer: NodeJS.Timeout | null = null;
  private lastBlockAt = 0;
  private running = false;
  private producing: Promise<void> | null = null;
  private readonly now: () => number;

  constructor(private readonly o: SoloProducerOptions) {
    this.now = o.now ?? Date.now;
  }

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
    const delay = Math.max(0, nextBlockDue(this.lastBlockAt, this.o.chain.mempool.size, this.o.pace) - this.now());
    this.timer = setTimeout(() => {
      this.timer = null;
      this.producing = this.produce().finally(() => {
        this.producing = null;
        if (this.running) this.schedule();
      });
    }, delay);
  }

  private async produce(): Promise<void> {
    const chain = this.o.chain;
    const self = this.o.signer.address;
    try {
      const height = chain.head.height + 1;
      if (!(await this.o.alone(height))) {
        this.running = false;
        this.o.handover(height);
        return;
      }
      // A crash after signing a precommit and before its block was stored leaves that round
      // signed: the block made again (another time, other transactions) goes in the next round.
      // Nobody else saw that signature, so no other block of the height can have been decided.
      const round = this.o.signer.guard.openRound(height);
      if (round === null) throw new Error(`this key has signed beyond height ${height}; refusing to produce it`);
      const proposal = await chain.propose(round, self, this.now());
      const outcome = await chain.commitDecided(proposal, async () => {
        const blockHash = parseHex(proposal.hash, 32)!;
        const precommit = await this.o.signer.signVote(chain.chainId, { type: 'precommit', height, round, blockHash, validator: self });
        return decidedCommit({ height, round, blockHash, precommits: [precommit] });
      });
      if ('reason' in outcome) {
        this.o.log.error({ height: proposal.header.height, reason: outcome.reason }, 'own proposal failed validation; dropping its transactions');
        for (const tx of proposal.txs) chain.mempool.evict(tx.hash);
        return;
      }
      this.lastBlockAt = this.now();
    } catch (err) {
      if (isDiskFull(err) && this.o.diskFull !== undefined) {
        this.running = false;
        this.o.diskFull(err as Error);
        return;
      }
      this.o.log.error({ err }, 'block production failed');
      this.lastBlockAt = this.now();
    }
  }
}
