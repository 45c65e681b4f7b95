import type { Chain, ProposedBlock } from '../chain/chain.js';
import { certificateFromJson, encodeConsensusMessage, type BlockCodec, type CommitCertificate } from '../consensus/index.js';
import { TAG_CONSENSUS, TAG_STATUS, TAG_SYNC_REQUEST, envelope, type StatusMessage, type SyncRequest } from './envelope.js';

/** How long a catch-up request may go unanswered before another peer is asked. */
const SYNC_TIMEOUT_MS = 15_000;

/** A decided block from a peer, with the certificate that decides it. */
export interface DecidedBlock {
  readonly cert: CommitCertificate;
  readonly block: ProposedBlock;
  readonly from: string;
}

export interface CatchUpDeps {
  readonly chain: Pick<Chain, 'head' | 'queries'>;
  /** Decided blocks travel in full: the asking node may hold none of their transactions. */
  readonly codec: BlockCodec;
  /** Heights served to peers below the head. */
  readonly syncHistoryBlocks: number;
  /** Heights asked of (and served to) one peer at a time. */
  readonly syncBatch: number;
  send(peer: string, bytes: Uint8Array): void;
  broadcast(bytes: Uint8Array): void;
  now(): number;
  stopped(): boolean;
  /** A decided block for the working height, for the machine to decide on. */
  apply(decided: DecidedBlock): Promise<void>;
}

/**
 * Block catch-up between peers: heights announced, decided blocks with their certificates asked
 * of a peer ahead of us and served to peers behind.
 */
export class CatchUp {
  private readonly peerStatus = new Map<string, StatusMessage>();
  /** Decided blocks received from peers for heights we have not reached yet. */
  private readonly pendingCommits = new Map<number, DecidedBlock>();
  /** Per peer: the last height asked for, and when to give up on the answer. */
  private readonly syncInFlight = new Map<string, { to: number; deadline: number }>();
  /** Peers passed over for catch-up until the given time (a request of theirs timed out or failed). */
  private readonly syncAvoid = new Map<string, number>();

  constructor(private readonly d: CatchUpDeps) {}

  /** How many heights the best peer is ahead of our head. */
  behind(): number {
    let best = 0;
    for (const s of this.peerStatus.values()) best = Math.max(best, s.height);
    return Math.max(0, best - this.d.chain.head.height);
  }

  announceStatus(): void {
    if (this.d.stopped()) return;
    const head = this.d.chain.head.height;
    this.d.broadcast(envelope(TAG_STATUS, { height: head, base: this.servableBase() }));
  }

  onStatus(from: string, s: StatusMessage): void {
    this.peerStatus.set(from, s);
    this.maybeSync();
  }

  /** A decided block received while the node works on `height`. */
  async onDecided(decided: DecidedBlock, height: number): Promise<void> {
    const { cert, from } = decided;
    const h = cert.height;
    // Decided blocks come only in answer to our sync requests: a block for a height we did not
    // ask that peer for is dropped, and a held one is never replaced, so a peer cannot park
    // junk in place of a block another peer sent.
    const asked = this.syncInFlight.get(from);
    // Progress keeps a request alive: a slow peer sending a batch of large blocks is not given up on.
    if (asked !== undefined && h <= asked.to) asked.deadline = this.d.now() + SYNC_TIMEOUT_MS;
    if (h === height) await this.d.apply(decided);
    else if (h > height && asked !== undefined && h <= asked.to && this.mayPark(h)) this.pendingCommits.set(h, decided);
    this.maybeSync();
  }

  /** The decided block held for `height`, received before the node reached it. */
  parked(height: number): DecidedBlock | undefined {
    return this.pendingCommits.get(height);
  }

  committed(height: number): void {
    this.pendingCommits.delete(height);
  }

  /**
   * Everything `from` sent for catch-up is dropped and it is passed over for a while; every
   * request in flight is forgotten too, since answers from other peers for the heights it had
   * taken were dropped, and the next status asks afresh.
   */
  failedFrom(from: string): void {
    for (const [h, entry] of [...this.pendingCommits]) if (entry.from === from) this.pendingCommits.delete(h);
    this.syncInFlight.clear();
    this.syncAvoid.set(from, this.d.now() + SYNC_TIMEOUT_MS);
    this.maybeSync();
  }

  /**
   * Asks a peer that has committed our working height for the decided blocks we miss. A request
   * not answered in full by its deadline (a peer gone, a frame dropped, a block it sent that did
   * not decide) is given up, and that peer is passed over for a while, so one silent or lying
   * peer cannot hold catch-up forever.
   */
  private maybeSync(): void {
    const head = this.d.chain.head.height;
    const now = this.d.now();
    for (const [peer, s] of [...this.peerStatus.entries()].sort((a, b) => b[1].height - a[1].height)) {
      if (s.height <= head) continue;
      if (s.base > head + 1) continue; // that peer no longer serves what we need
      if ((this.syncAvoid.get(peer) ?? 0) > now) continue;
      const inFlight = this.syncInFlight.get(peer);
      if (inFlight !== undefined && inFlight.to > head) {
        if (now < inFlight.deadline) return;
        this.syncInFlight.delete(peer);
        this.syncAvoid.set(peer, now + SYNC_TIMEOUT_MS);
        continue;
      }
      const to = Math.min(s.height, head + this.d.syncBatch);
      this.syncInFlight.set(peer, { to, deadline: now + SYNC_TIMEOUT_MS });
      this.d.send(peer, envelope(TAG_SYNC_REQUEST, { from: head + 1, to }));
      return;
    }
  }

  /** A decided block for `h` may be held: none is, or the one held came from a peer since passed over. */
  private mayPark(h: number): boolean {
    const held = this.pendingCommits.get(h);
    return held === undefined || (this.syncAvoid.get(held.from) ?? 0) > this.d.now();
  }

  /** The lowest height served to peers: within the history window, and held in full here. */
  private servableBase(): number {
    return Math.max(1, this.d.chain.head.height - this.d.syncHistoryBlocks + 1, this.d.chain.queries.firstFullHeight);
  }

  /** A peer's sync request, answered with at most a batch of decided blocks. */
  async serve(peer: string, request: SyncRequest): Promise<void> {
    const from = request.from;
    const to = Math.min(request.to, from + this.d.syncBatch - 1);
    const head = this.d.chain.head.height;
    for (let h = Math.max(from, this.servableBase()); h <= Math.min(to, head); h++) {
      const certBytes = await this.d.chain.queries.getCommit(h);
      if (!certBytes) break;
      const block = await this.d.chain.queries.loadProposedBlock(h);
      if (!block) break;
      const cert = certificateFromJson(JSON.parse(new TextDecoder().decode(certBytes)));
      if (!cert) break;
      this.d.send(peer, envelope(TAG_CONSENSUS, encodeConsensusMessage({ kind: 'commit', certificate: cert, block }, this.d.codec)));
    }
  }
}
