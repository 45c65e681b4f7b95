import type { Logger } from 'pino';
import type { ProposedBlock } from '../chain/chain.js';
import { toHex0x } from '../codec/hex.js';
import type { SignatureProvider } from '../crypto/provider.js';
import { proposalSignBytes, type SignedProposal, type ValidatorSet } from '../consensus/index.js';
import { isTimely } from './block-time.js';

/** Proposal arrival times kept for the current and next height; beyond this a late proposal is timed when it is fed. */
const MAX_PROPOSAL_ARRIVALS = 256;

/** Rounds past the current one whose proposals' arrivals are kept: the machine's future-round window. */
const ARRIVAL_ROUND_WINDOW = 8;

/** When a proposal (`proposalKey`) reached this node, before it waited in the input queue. */
export interface ProposalArrival {
  readonly key: string;
  readonly at: number;
}

export interface ProposalArrivalsDeps {
  readonly chainId: string;
  readonly provider: SignatureProvider;
  /** Proposals' signatures are verified on a worker before they are noted. */
  readonly workerVerified: boolean;
  /** How far ahead of this node's clock a proposed block's time may be (`block-time.ts`). */
  readonly precisionMs: number;
  readonly log: Logger;
  now(): number;
  /** The height this node is working on, and the machine's round in it. */
  height(): number;
  round(): number;
  /** The validator set of the working height or the next one; undefined for any other height. */
  validatorsAt(height: number): ValidatorSet | undefined;
}

/** When each round's proposal reached this node: the arrival proposer-based timestamps judge a block's time against. */
export class ProposalArrivals {
  /** When the first verified proposal of each round of the current and next height arrived (`roundKey`), for `isTimely`. */
  private readonly byRound = new Map<string, { readonly height: number; readonly at: number; warned: boolean }>();

  constructor(private readonly d: ProposalArrivalsDeps) {}

  /** A proposal reaching this node now. */
  arrival(sp: SignedProposal): ProposalArrival {
    return { key: proposalKey(sp), at: this.d.now() };
  }

  /** Earlier heights' arrivals go. */
  enterHeight(height: number): void {
    for (const [key, a] of this.byRound) if (a.height < height) this.byRound.delete(key);
  }

  /**
   * The arrival, not the turn in the input queue, is what timeliness measures: a node busy with a
   * block must not hold a proposal against its proposer. The table keeps one time per round (line
   * 22 judges the round's proposal, and a proposer that sends two is timed by its first), taken
   * when the first proposal of the round reached this node, before relays and the compact form's
   * completion. It is kept only for heights this node is about to vote on, for rounds within the
   * machine's window, and once the round's proposer's signature has verified (`verified`: on a
   * worker, or here when the node has none), so neither forged proposals nor a validator signing
   * proposals for its far rounds can use up the table and leave the real one to be timed when
   * it is fed.
   */
  note(sp: SignedProposal, arrival: ProposalArrival, verified: boolean): void {
    const p = sp.proposal;
    const height = this.d.height();
    if (p.height !== height && p.height !== height + 1) return;
    const key = roundKey(p.height, p.round);
    if (this.byRound.has(key) || this.byRound.size >= MAX_PROPOSAL_ARRIVALS) return;
    if (p.round > (p.height === height ? this.d.round() : 0) + ARRIVAL_ROUND_WINDOW) return;
    const validators = this.d.validatorsAt(p.height);
    const publicKey = validators?.publicKeyOf(p.proposer);
    if (!validators || !publicKey || validators.proposer(p.height, p.round).address !== p.proposer) return;
    if (!verified) {
      // With a worker pool the worker's refusal stands; without one the check is made here, once per proposal.
      if (this.d.workerVerified) return;
      if (!this.d.provider.verify(sp.signature, proposalSignBytes(this.d.chainId, p), publicKey)) return;
    }
    this.byRound.set(key, { height: p.height, at: arrival.at, warned: false });
  }

  /** Proposer-based timestamps (`block-time.ts`); a proposal replayed from the WAL is timed now. */
  isTimely(sp: SignedProposal, block: ProposedBlock): boolean {
    const p = sp.proposal;
    const entry = this.byRound.get(roundKey(p.height, p.round));
    const arrived = entry?.at ?? this.d.now();
    if (isTimely(block.header.timestamp, arrived, this.d.precisionMs)) return true;
    // Said once per round, and only where the machine judges (a fresh proposal of a height it is
    // about to vote on): relayed copies must not flood the log.
    if (p.polRound === -1 && p.height >= this.d.height() && !entry?.warned) {
      if (entry) entry.warned = true;
      this.d.log.warn({ height: p.height, round: p.round, proposer: p.proposer, block_time: block.header.timestamp, arrived, precision_ms: this.d.precisionMs }, "a proposed block's time is ahead of this node's clock: prevoting nil");
    }
    return false;
  }
}

function roundKey(height: number, round: number): string {
  return `${height}/${round}`;
}

/** One proposal, whoever relays it: its height, round and block. */
function proposalKey(sp: SignedProposal): string {
  const p = sp.proposal;
  return `${p.height}/${p.round}/${toHex0x(p.blockHash)}`;
}
