import type { SignatureProvider } from '../crypto/provider.js';
import { bytesEqual, hashKey, isSafeNonNegative, NIL_KEY, type HashKey } from './bytes.js';
import { verifyCommit } from './commit.js';
import { HASH_BYTES, verifyProposalSignature, verifyVoteSignature } from './encoding.js';
import { makeEvidence } from './evidence.js';
import { resolveTimeouts, timeoutDuration, type TimeoutConfig } from './timeouts.js';
import type { CommitCertificate, ConsensusEvidence, Proposal, SignedProposal, SignedVote, Step, TimeoutKind, Value, Vote, VoteType } from './types.js';
import type { ValidatorSet } from './validator-set.js';
import { isEncodableField } from './validator-set.js';
import { VoteSet } from './vote-set.js';

/**
 * Tendermint consensus (Buchman, Kwon, Milosevic, "The latest gossip on BFT consensus", 2018,
 * Algorithm 1) as a synchronous, I/O-free state machine for one height at a time.
 *
 * Every input returns the effects it causes, in order. The machine never signs, never waits and
 * never reads a clock: it asks the host to obtain a value (`requestValue`), to validate one
 * (`requestValidation`, ABCI++ ProcessProposal), to sign and broadcast (`signProposal`,
 * `signVote`), and to call back after a timeout (`scheduleTimeout`). The host feeds the answers
 * back (`onValue`, `onValidation`, `onOwnProposal`, `onOwnVote`, `onTimeout`). `ConsensusDriver`
 * does that with an async value host and a `PrivValidator`; tests drive the machine directly.
 *
 * Line numbers in comments refer to Algorithm 1 of the paper.
 *
 * Where this differs from the paper, deliberately:
 *  - Rule 49 (decide) needs 2f+1 precommits for id(v) in some round r and the value v itself,
 *    validated; v may have arrived in any proposal of this height, not necessarily in round r's.
 *    A verified commit certificate from a peer (catch-up) counts as such a quorum. Safety rests
 *    on the precommit quorum for id(v) and validity on valid(v); both are still required.
 *  - Only the first proposal of the round drives lines 22/28 (a correct proposer sends one; a
 *    Byzantine one gains nothing from a second); up to `maxProposalsPerRound` are kept so that
 *    lines 36/49 can still find the value a quorum voted for.
 *  - Messages for rounds far ahead are admitted per validator only for a couple of rounds at a
 *    time (bounded memory against a Byzantine validator inventing rounds), enough for line 55.
 *  - Messages for the next height are buffered (bounded) and replayed by `start`.
 *  - Line 22 also needs timely(v) (CometBFT's proposer-based timestamps): the host says, per
 *    proposal, whether the block's time was ahead of its clock on arrival. It is the only input
 *    that may differ between correct nodes, so it gates that prevote alone, never valid(v).
 */

export interface MachineConfig {
  readonly chainId: string;
  /** The local validator's address, or null for a node that follows without voting. */
  readonly selfAddress: string | null;
  readonly provider: SignatureProvider;
  /** id(v): the 32-byte hash of a block; must equal the hash the host's `getValue` reports. */
  readonly hashValue: (block: unknown) => Uint8Array;
  readonly timeouts?: Partial<TimeoutConfig>;
  /** Distinct proposals kept per round (a correct proposer sends one). Default 4. */
  readonly maxProposalsPerRound?: number;
  /** Rounds beyond the current one admitted from everybody; further rounds are limited per validator. Default 8. */
  readonly futureRoundWindow?: number;
  /** Buffered messages for the next height. Default 4096. */
  readonly maxFutureHeightMessages?: number;
  /** Emit `debug` log effects too. Default false (they cost allocations on the hot path). */
  readonly debug?: boolean;
}

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export type MachineEffect =
  | { readonly type: 'requestValue'; readonly height: number; readonly round: number }
  | { readonly type: 'requestValidation'; readonly height: number; readonly round: number; readonly blockHash: Uint8Array; readonly block: unknown }
  | { readonly type: 'signProposal'; readonly proposal: Proposal; readonly block: unknown }
  | { readonly type: 'signVote'; readonly vote: Vote }
  | ScheduleTimeoutEffect
  | DecideEffect
  | EvidenceEffect
  | LogEffect;

export interface ScheduleTimeoutEffect {
  readonly type: 'scheduleTimeout';
  readonly kind: TimeoutKind;
  readonly height: number;
  readonly round: number;
  readonly durationMs: number;
}

export interface DecideEffect {
  readonly type: 'decide';
  readonly height: number;
  readonly round: number;
  readonly value: Value;
  readonly certificate: CommitCertificate;
}

export interface EvidenceEffect {
  readonly type: 'evidence';
  readonly evidence: ConsensusEvidence;
}

export interface LogEffect {
  readonly type: 'log';
  readonly level: LogLevel;
  readonly message: string;
  readonly fields?: Readonly<Record<string, string | number | boolean | null>>;
}

export interface MachineState {
  readonly height: number;
  readonly round: number;
  readonly step: Step;
  readonly decided: boolean;
  readonly lockedRound: number;
  /** Hex of the locked block hash, or null. */
  readonly lockedValue: string | null;
  readonly validRound: number;
  readonly validValue: string | null;
}

/**
 * `unanswered`: the application failed to answer valid(v) (an I/O error, say). Not final: the
 * value is validated again at the next timeout of the height or when it is seen again (a commit
 * certificate for it), so one failed read does not keep a certified block from ever deciding.
 */
export type ValueStatus = 'pending' | 'valid' | 'invalid' | 'unanswered';

interface ValueEntry {
  readonly hash: Uint8Array;
  readonly block: unknown;
  status: ValueStatus;
}

interface ProposalEntry {
  readonly signed: SignedProposal;
  readonly key: HashKey;
  /** The host's word that the block's time was not ahead of its clock when the proposal arrived. */
  readonly timely: boolean;
}

interface RoundVotes {
  readonly prevote: VoteSet;
  readonly precommit: VoteSet;
}

export type FutureMessage =
  | { readonly kind: 'vote'; readonly signed: SignedVote }
  | { readonly kind: 'proposal'; readonly signed: SignedProposal; readonly block: unknown; readonly timely: boolean };

/** Far rounds a single validator may occupy at once (CometBFT allows a peer 2 catch-up rounds). */
const FAR_ROUND_SLOTS = 2;

export class TendermintMachine {
  readonly chainId: string;
  readonly selfAddress: string | null;
  private readonly provider: SignatureProvider;
  private readonly hashValue: (block: unknown) => Uint8Array;
  private readonly timeouts: TimeoutConfig;
  private readonly maxProposalsPerRound: number;
  private readonly futureRoundWindow: number;
  private readonly maxFutureHeightMessages: number;
  private readonly perSenderFuture: number;
  private readonly debug: boolean;

  // Algorithm 1 state (h_p, round_p, step_p, decision_p[h_p], locked*/valid*).
  private validators: ValidatorSet | null = null;
  /** The set of height + 1, which next-height messages are checked against before they are kept. */
  private nextValidators: ValidatorSet | null = null;
  private height = -1;
  private round = 0;
  private step: Step = 'propose';
  private decided = false;
  private lockedValue: HashKey | null = null;
  private lockedRound = -1;
  private validValue: HashKey | null = null;
  private validRound = -1;

  // The message log of the current height.
  private values = new Map<HashKey, ValueEntry>();
  private proposals = new Map<number, ProposalEntry[]>();
  private votes = new Map<number, RoundVotes>();
  /** Rounds whose precommits hold a non-nil 2/3 majority: the only places line 49 can fire. */
  private commitRounds = new Set<number>();
  /** Verified certificates received for catch-up, by block hash key. */
  private externalCommits = new Map<HashKey, CommitCertificate>();
  /** Senders (any message type) per round above round_p, for line 55. */
  private roundSenders = new Map<number, Set<string>>();
  /** Highest round above round_p with more than 1/3 of the power among its senders. */
  private skipTarget = -1;
  private farRounds = new Map<string, Set<number>>();
  private evidenceSlots = new Set<string>();
  // "for the first time" guards of lines 34, 36 and 47, per round.
  private prevoteTimeoutRounds = new Set<number>();
  private precommitTimeoutRounds = new Set<number>();
  private polkaRounds = new Set<number>();
  private awaitingValueRound: number | null = null;
  private future: FutureMessage[] = [];
  private futureBySender = new Map<string, number>();
  private futureSeen = new Set<string>();

  private out: MachineEffect[] = [];

  constructor(cfg: MachineConfig) {
    if (!isEncodableField(cfg.chainId)) throw new Error('chain id must be non-empty and free of "|"');
    this.chainId = cfg.chainId;
    this.selfAddress = cfg.selfAddress;
    this.provider = cfg.provider;
    this.hashValue = cfg.hashValue;
    this.timeouts = resolveTimeouts(cfg.timeouts);
    this.maxProposalsPerRound = cfg.maxProposalsPerRound ?? 4;
    this.futureRoundWindow = cfg.futureRoundWindow ?? 8;
    this.maxFutureHeightMessages = cfg.maxFutureHeightMessages ?? 4096;
    // A validator sends a proposal and two votes per round; room for every round of the window, twice.
    this.perSenderFuture = 6 * (this.futureRoundWindow + 1);
    this.debug = cfg.debug ?? false;
  }

  // ---------------------------------------------------------------- inputs

  /**
   * Begins `height` with its validator set (line 11: StartRound(0)); replays buffered messages of
   * that height, checked again against this set. `next` is the set of height + 1 when the host
   * already knows it (a chain whose set changes take effect two heights on); without it the next
   * height is assumed to keep this set.
   */
  start(height: number, validators: ValidatorSet, next: ValidatorSet = validators): MachineEffect[] {
    if (!isSafeNonNegative(height)) throw new RangeError('height must be a non-negative safe integer');
    return this.run(() => {
      const replay = this.bufferedFor(height);
      this.future = [];
      this.futureBySender = new Map();
      this.futureSeen = new Set();
      this.validators = validators;
      this.nextValidators = next;
      this.height = height;
      this.decided = false;
      this.lockedValue = null;
      this.lockedRound = -1;
      this.validValue = null;
      this.validRound = -1;
      this.values = new Map();
      this.proposals = new Map();
      this.votes = new Map();
      this.commitRounds = new Set();
      this.externalCommits = new Map();
      this.roundSenders = new Map();
      this.skipTarget = -1;
      this.farRounds = new Map();
      this.evidenceSlots = new Set();
      this.prevoteTimeoutRounds = new Set();
      this.precommitTimeoutRounds = new Set();
      this.polkaRounds = new Set();
      this.startRound(0);
      this.evaluate();
      for (const m of replay) {
        const changed = m.kind === 'vote' ? this.intakeVote(m.signed, false) : this.intakeProposal(m.signed, m.block, false, m.timely);
        if (changed) this.evaluate();
      }
      return false;
    });
  }

  /**
   * A proposal from the network. `timely` is the host's judgement, made when the message arrived,
   * that the block's time was not ahead of the host's clock (proposer-based timestamps): it is
   * the one input that may differ between correct nodes, so it decides only a fresh proposal's
   * prevote (line 22), never valid(v).
   */
  onProposal(signed: SignedProposal, block: unknown, timely = true): MachineEffect[] {
    return this.run(() => this.intakeProposal(signed, block, false, timely));
  }

  onVote(signed: SignedVote): MachineEffect[] {
    return this.run(() => this.intakeVote(signed, false));
  }

  /** Our own proposal, as signed by the signer after a `signProposal` effect: not re-verified. */
  onOwnProposal(signed: SignedProposal, block: unknown): MachineEffect[] {
    return this.run(() => this.intakeProposal(signed, block, true, true));
  }

  /** Our own vote, as signed by the signer after a `signVote` effect: not re-verified. */
  onOwnVote(signed: SignedVote): MachineEffect[] {
    return this.run(() => this.intakeVote(signed, true));
  }

  /** The host's answer to `requestValue` (getValue in the paper, line 18). */
  onValue(height: number, round: number, value: Value): MachineEffect[] {
    return this.run(() => {
      if (height !== this.height || round !== this.round || this.awaitingValueRound !== round || this.step !== 'propose' || this.decided) {
        return false;
      }
      this.awaitingValueRound = null;
      if (value.hash.length !== HASH_BYTES || !bytesEqual(this.hashValue(value.block), value.hash)) {
        this.log('error', 'getValue returned a block whose hash does not match; not proposing', { height, round });
        return false;
      }
      const key = hashKey(value.hash);
      this.registerValue(key, value.hash, value.block, round, true);
      this.emitProposal(round, -1, key);
      return false;
    });
  }

  /** The host's answer to `requestValidation`: valid(v) for the block with this hash at this height. */
  onValidation(height: number, blockHash: Uint8Array, valid: boolean): MachineEffect[] {
    return this.run(() => {
      if (height !== this.height || this.decided) return false;
      const entry = this.values.get(hashKey(blockHash));
      if (entry === undefined || entry.status !== 'pending') return false;
      entry.status = valid ? 'valid' : 'invalid';
      if (!valid) this.log('info', 'proposed block rejected by the application', { height, hash: hashKey(blockHash) });
      // A lock restored before its block was held: now that it is, it is also the value to
      // re-propose, as it was when the lock was first taken.
      const key = hashKey(blockHash);
      if (valid && key === this.lockedValue && this.lockedRound > this.validRound) {
        this.validValue = key;
        this.validRound = this.lockedRound;
      }
      return true;
    });
  }

  /** The host could not answer `requestValidation` (it threw): neither valid nor invalid yet. */
  onValidationError(height: number, blockHash: Uint8Array): MachineEffect[] {
    return this.run(() => {
      if (height !== this.height || this.decided) return false;
      const entry = this.values.get(hashKey(blockHash));
      if (entry === undefined || entry.status !== 'pending') return false;
      entry.status = 'unanswered';
      this.log('warn', 'could not validate a proposed block; will try again', { height, hash: hashKey(blockHash) });
      // Line 22 reads an unanswered value like an invalid one (nil prevote), so rules may fire.
      return true;
    });
  }

  /**
   * Asks again for every validation the application failed to answer. Timeouts do this too; a
   * host calls it periodically because a node waiting in step prevote may have no timeout armed.
   */
  retryValidations(): MachineEffect[] {
    return this.run(() => {
      if (this.validators !== null && !this.decided) this.retryUnanswered();
      return false;
    });
  }

  /** Lines 57-66: OnTimeoutPropose / OnTimeoutPrevote / OnTimeoutPrecommit. */
  onTimeout(kind: TimeoutKind, height: number, round: number): MachineEffect[] {
    return this.run(() => {
      if (height !== this.height || this.decided) return false;
      this.retryUnanswered();
      if (round !== this.round) return false;
      if (kind === 'propose' && this.step === 'propose') {
        this.broadcastVote('prevote', null);
        this.step = 'prevote';
        return true;
      }
      if (kind === 'prevote' && this.step === 'prevote') {
        this.broadcastVote('precommit', null);
        this.step = 'precommit';
        return true;
      }
      if (kind === 'precommit') {
        this.startRound(this.round + 1);
        return true;
      }
      return false;
    });
  }

  /**
   * Catch-up: a commit certificate and block from a peer that already decided this height. The
   * certificate is verified as a whole against the validator set rather than fed through our vote
   * sets: we may never have seen the proposal of its round (so its votes would not be admitted
   * against an equivocator's earlier vote to us), and the peer that sent it has left the height.
   * A verified certificate proves that more than 2/3 precommitted id(v), which is all line 49
   * needs besides valid(v).
   */
  onCommit(cert: CommitCertificate, block: unknown): MachineEffect[] {
    return this.run(() => {
      if (this.validators === null || cert.height !== this.height || this.decided) return false;
      if (cert.blockHash.length !== HASH_BYTES) return false;
      const key = hashKey(cert.blockHash);
      if (this.externalCommits.has(key)) {
        const held = this.values.get(key);
        if (held?.status === 'unanswered') this.requestValidation(held, cert.round);
        return false;
      }
      if (!this.values.has(key) && !bytesEqual(this.hashValue(block), cert.blockHash)) {
        this.log('warn', 'commit certificate carries a block that does not match its hash', { height: cert.height });
        return false;
      }
      const verdict = verifyCommit(cert, this.validators, this.chainId, this.provider);
      if (!verdict.ok) {
        this.log('warn', 'commit certificate rejected', { height: cert.height, reason: verdict.reason });
        return false;
      }
      this.externalCommits.set(key, cert);
      this.registerValue(key, cert.blockHash, block, cert.round, false);
      return true;
    });
  }

  // ---------------------------------------------------------------- queries

  state(): MachineState {
    return {
      height: this.height,
      round: this.round,
      step: this.step,
      decided: this.decided,
      lockedRound: this.lockedRound,
      lockedValue: this.lockedValue,
      validRound: this.validRound,
      validValue: this.validValue,
    };
  }

  /**
   * The messages buffered for `height` (the next one), in arrival order. The host writes them to
   * its WAL before `start` acts on them: they can lead to our votes, and after a crash the replay
   * must rebuild the state (the lock above all) those votes came from.
   */
  bufferedFor(height: number): readonly FutureMessage[] {
    return this.future.filter((m) => (m.kind === 'vote' ? m.signed.vote.height : m.signed.proposal.height) === height);
  }

  /** Where valid(v) stands for the block with this hash at the current height; undefined if not held. */
  valueStatus(blockHash: Uint8Array): ValueStatus | undefined {
    return this.values.get(hashKey(blockHash))?.status;
  }

  get validatorSet(): ValidatorSet | null {
    return this.validators;
  }

  /**
   * What a node relays so that every correct node eventually holds every message a correct node
   * holds (the paper's gossip assumption, on which its liveness argument rests): the proposals
   * and all votes of the current round, conflicting ones included, and the prevotes of the polka
   * behind validValue, which the other correct nodes need to apply line 28 when validValue is
   * re-proposed, even if some of those prevotes came from faulty validators that will not repeat
   * them.
   */
  relayMessages(): { readonly proposals: { readonly signed: SignedProposal; readonly block: unknown }[]; readonly votes: SignedVote[] } {
    const proposals: { signed: SignedProposal; block: unknown }[] = [];
    for (const e of this.proposals.get(this.round) ?? []) {
      const value = this.values.get(e.key);
      if (value !== undefined) proposals.push({ signed: e.signed, block: value.block });
    }
    const votes: SignedVote[] = [];
    const rv = this.votes.get(this.round);
    if (rv !== undefined) votes.push(...rv.prevote.allVotes(), ...rv.precommit.allVotes());
    if (this.validRound >= 0 && this.validRound !== this.round && this.validValue !== null) {
      votes.push(...(this.votes.get(this.validRound)?.prevote.votesFor(this.validValue) ?? []));
    }
    return { proposals, votes };
  }

  // ---------------------------------------------------------------- intake

  private intakeVote(signed: SignedVote, trusted: boolean): boolean {
    const v = signed.vote;
    if (this.validators === null) return false;
    if (v.height !== this.height) {
      if (!trusted && v.height === this.height + 1) this.bufferVote(signed);
      return false;
    }
    if (this.decided) return false;
    if ((v.type !== 'prevote' && v.type !== 'precommit') || !isSafeNonNegative(v.round)) return false;
    if (v.blockHash !== null && v.blockHash.length !== HASH_BYTES) return false;
    const publicKey = this.validators.publicKeyOf(v.validator);
    if (publicKey === undefined) {
      this.log('debug', 'vote from a non-validator ignored', { validator: v.validator });
      return false;
    }
    const key = hashKey(v.blockHash);
    // Looked up without allocating: nothing is stored for a round before its vote verifies.
    const held = this.votes.get(v.round)?.[v.type];
    if (held?.has(v.validator, key)) return false;
    const existing = held?.peek(v.validator);
    // A second target from the same validator is equivocation. It also counts toward its own
    // target when that is nil or a block we hold a proposal for (see VoteSet); anything else is
    // verified once for the evidence and then ignored, so junk hashes cost us nothing.
    const admit = existing !== undefined && (key === NIL_KEY || this.values.has(key));
    const slot = this.slotKey(v);
    if (existing !== undefined && !admit && this.evidenceSlots.has(slot)) return false;
    if (!trusted && !verifyVoteSignature(this.provider, this.chainId, signed, publicKey)) {
      this.log('warn', 'vote with a bad signature ignored', { validator: v.validator, round: v.round, type: v.type });
      return false;
    }
    // Only after the signature: a forged vote must not take one of the validator's far-round
    // slots, or anyone could fill them and keep line 55 from ever seeing the real ones.
    if (!this.admitRound(v.validator, v.round)) return false;
    const set = this.roundVotes(v.round)[v.type];
    const res = set.add(signed, admit);
    if (res.kind === 'conflict' && !this.evidenceSlots.has(slot)) {
      this.evidenceSlots.add(slot);
      this.out.push({ type: 'evidence', evidence: makeEvidence(res.existing, signed) });
      this.log('warn', 'equivocation detected', { validator: v.validator, height: v.height, round: v.round, type: v.type });
    }
    if (res.kind === 'added' || (res.kind === 'conflict' && res.counted)) {
      if (v.type === 'precommit' && key !== NIL_KEY && set.hasTwoThirdsFor(key)) this.commitRounds.add(v.round);
      if (v.validator === this.selfAddress && v.type === 'precommit' && key !== NIL_KEY) this.restoreLock(v.round, key);
      this.noteSender(v.round, v.validator);
      return true;
    }
    return false;
  }

  private intakeProposal(signed: SignedProposal, block: unknown, trusted: boolean, timely: boolean): boolean {
    const p = signed.proposal;
    if (this.validators === null) return false;
    if (p.height !== this.height) {
      if (!trusted && p.height === this.height + 1) this.bufferProposal(signed, block, timely);
      return false;
    }
    if (this.decided) return false;
    if (!isSafeNonNegative(p.round)) return false;
    if (!(p.polRound === -1 || (isSafeNonNegative(p.polRound) && p.polRound < p.round))) return false;
    if (p.blockHash.length !== HASH_BYTES) return false;
    const proposer = this.validators.proposer(this.height, p.round);
    if (p.proposer !== proposer.address) {
      this.log('warn', 'proposal from a validator that is not the proposer of its round', { proposer: p.proposer, round: p.round });
      return false;
    }
    const key = hashKey(p.blockHash);
    const list = this.proposals.get(p.round) ?? [];
    if (list.some((e) => e.key === key)) return false;
    if (list.length >= this.maxProposalsPerRound) return false;
    if (!trusted) {
      // A relay could attach a different block to a genuine signed proposal, so the carried
      // block is bound to the signed hash before it can become a value; a known value needs no check.
      if (!this.values.has(key) && !bytesEqual(this.hashValue(block), p.blockHash)) {
        this.log('warn', 'proposal block does not match the signed hash', { round: p.round });
        return false;
      }
      if (!verifyProposalSignature(this.provider, this.chainId, signed, this.validators.publicKeyOf(proposer.address)!)) {
        this.log('warn', 'proposal with a bad signature ignored', { round: p.round });
        return false;
      }
    }
    // After the signature, as for votes: a forged proposal takes no far-round slot.
    if (!this.admitRound(p.proposer, p.round)) return false;
    if (list.length > 0) this.log('warn', 'proposer sent conflicting proposals', { proposer: p.proposer, round: p.round });
    list.push({ signed, key, timely });
    this.proposals.set(p.round, list);
    this.registerValue(key, p.blockHash, block, p.round, trusted);
    this.noteSender(p.round, p.proposer);
    return true;
  }

  private registerValue(key: HashKey, hash: Uint8Array, block: unknown, round: number, own: boolean): void {
    const existing = this.values.get(key);
    if (existing !== undefined) {
      // A value we produced ourselves is valid by construction (the proposer does not run
      // ProcessProposal on its own block).
      if (own) existing.status = 'valid';
      else if (existing.status === 'unanswered') this.requestValidation(existing, round);
      return;
    }
    this.values.set(key, { hash, block, status: own ? 'valid' : 'pending' });
    if (!own) this.out.push({ type: 'requestValidation', height: this.height, round, blockHash: hash, block });
  }

  private requestValidation(entry: ValueEntry, round: number): void {
    entry.status = 'pending';
    this.out.push({ type: 'requestValidation', height: this.height, round, blockHash: entry.hash, block: entry.block });
  }

  private retryUnanswered(): void {
    for (const entry of this.values.values()) if (entry.status === 'unanswered') this.requestValidation(entry, this.round);
  }

  /**
   * A message for the next height, kept for `start`. Only what a validator of the next height's
   * set signed is kept, at most `perSenderFuture` per validator: junk cannot crowd out real
   * messages, and one validator cannot fill the buffer with 4 MB blocks.
   */
  private bufferVote(signed: SignedVote): void {
    const v = signed.vote;
    const publicKey = (this.nextValidators as ValidatorSet).publicKeyOf(v.validator);
    if (publicKey === undefined || !isSafeNonNegative(v.round) || (v.blockHash !== null && v.blockHash.length !== HASH_BYTES)) return;
    const seen = `vote|${v.validator}|${v.round}|${v.type}|${hashKey(v.blockHash)}`;
    if (this.futureSeen.has(seen) || !this.futureRoom(v.validator)) return;
    if (!verifyVoteSignature(this.provider, this.chainId, signed, publicKey)) return;
    this.keepFuture(v.validator, seen, { kind: 'vote', signed });
  }

  private bufferProposal(signed: SignedProposal, block: unknown, timely: boolean): void {
    const p = signed.proposal;
    const set = this.nextValidators as ValidatorSet;
    if (!isSafeNonNegative(p.round) || p.round > this.futureRoundWindow || p.blockHash.length !== HASH_BYTES || !this.futureRoom(p.proposer)) return;
    const proposer = set.proposer(p.height, p.round);
    // The first signed proposal of a round only: it alone drives line 22, and a second (an
    // equivocating proposer's) can come by relay once we are at that height.
    const seen = `proposal|${p.round}`;
    if (this.futureSeen.has(seen) || proposer.address !== p.proposer || !bytesEqual(this.hashValue(block), p.blockHash)) return;
    if (!verifyProposalSignature(this.provider, this.chainId, signed, set.publicKeyOf(proposer.address)!)) return;
    this.keepFuture(p.proposer, seen, { kind: 'proposal', signed, block, timely });
  }

  private futureRoom(sender: string): boolean {
    return this.future.length < this.maxFutureHeightMessages && (this.futureBySender.get(sender) ?? 0) < this.perSenderFuture;
  }

  /** Kept under `seen`, so a replayed copy of a genuine message cannot use up its sender's room. */
  private keepFuture(sender: string, seen: string, m: FutureMessage): void {
    this.futureSeen.add(seen);
    this.future.push(m);
    this.futureBySender.set(sender, (this.futureBySender.get(sender) ?? 0) + 1);
  }

  /**
   * Our own precommit for a value in round r means we locked on it in r: line 36 is the only
   * way we precommit a value. Normally the lock is set before the vote comes back. After a
   * restart, though, the WAL can hold our precommit without the proposal and prevotes behind it,
   * so the lock is rebuilt from the vote itself; without this the node could prevote another
   * value in a later round. Restoring can only narrow what we prevote.
   */
  private restoreLock(round: number, key: HashKey): void {
    if (round > this.lockedRound) {
      this.lockedRound = round;
      this.lockedValue = key;
    }
    if (round > this.validRound && this.values.get(key)?.status === 'valid') {
      this.validRound = round;
      this.validValue = key;
    }
  }

  /**
   * Rounds up to the window ahead are open to all. Beyond it each validator may hold
   * FAR_ROUND_SLOTS rounds at a time: enough for correct validators far ahead to pull us forward
   * with line 55, while a Byzantine validator cannot make us allocate vote sets for unbounded rounds.
   */
  private admitRound(validator: string, round: number): boolean {
    const limit = this.round + this.futureRoundWindow;
    if (round <= limit) return true;
    let slots = this.farRounds.get(validator);
    if (slots === undefined) {
      slots = new Set();
      this.farRounds.set(validator, slots);
    }
    if (slots.has(round)) return true;
    for (const r of [...slots]) if (r <= limit) slots.delete(r);
    if (slots.size >= FAR_ROUND_SLOTS) return false;
    slots.add(round);
    return true;
  }

  private noteSender(round: number, validator: string): void {
    if (round <= this.round || this.validators === null) return;
    let senders = this.roundSenders.get(round);
    if (senders === undefined) {
      senders = new Set();
      this.roundSenders.set(round, senders);
    }
    if (senders.has(validator)) return;
    senders.add(validator);
    if (round <= this.skipTarget) return;
    let power = 0n;
    for (const s of senders) power += this.validators.votingPower(s);
    if (this.validators.hasOneThird(power)) this.skipTarget = round;
  }

  private roundVotes(round: number): RoundVotes {
    let rv = this.votes.get(round);
    if (rv === undefined) {
      const set = this.validators as ValidatorSet;
      rv = { prevote: new VoteSet(this.height, round, 'prevote', set), precommit: new VoteSet(this.height, round, 'precommit', set) };
      this.votes.set(round, rv);
    }
    return rv;
  }

  private slotKey(v: Vote): string {
    return `${v.validator}|${v.round}|${v.type}`;
  }

  // ---------------------------------------------------------------- upon rules

  /**
   * Applies the upon-rules until none fires. Each rule's guard is a predicate on the state and
   * the message log, so re-evaluating after every change is the paper's semantics; the "for the
   * first time" rules carry per-round flags.
   */
  private evaluate(): void {
    for (;;) {
      if (this.decided || this.validators === null) return;
      if (this.ruleDecide()) return;
      if (this.ruleSkipRound()) continue;
      if (this.step === 'propose' && this.ruleProposal()) continue;
      if (this.step !== 'propose' && this.rulePolkaValue()) continue;
      if (this.step === 'prevote' && this.rulePolkaNil()) continue;
      if (this.step === 'prevote') this.rulePrevoteAny();
      this.rulePrecommitAny();
      return;
    }
  }

  /** Lines 22-33: the first proposal of round_p, with or without a POL round. */
  private ruleProposal(): boolean {
    const first = this.proposals.get(this.round)?.[0];
    if (first === undefined) return false;
    const value = this.values.get(first.key);
    if (value === undefined || value.status === 'pending') return false;
    const valid = value.status === 'valid';
    const vr = first.signed.proposal.polRound;
    let prevoteFor: HashKey | null;
    if (vr === -1) {
      // Line 22, with proposer-based timestamps' timely(v): a block whose time is ahead of our
      // clock gets a nil prevote. A re-proposal (line 28) is not judged again: its polka shows
      // that more than 2/3 took it when it was fresh.
      prevoteFor = valid && first.timely && (this.lockedRound === -1 || this.lockedValue === first.key) ? first.key : null;
    } else {
      // Line 28: needs 2f+1 prevotes for id(v) in round vr < round_p (vr < round checked at intake).
      if (!this.votes.get(vr)?.prevote.hasTwoThirdsFor(first.key)) return false;
      prevoteFor = valid && (this.lockedRound <= vr || this.lockedValue === first.key) ? first.key : null;
    }
    this.broadcastVote('prevote', prevoteFor === null ? null : value.hash);
    this.step = 'prevote';
    return true;
  }

  /** Line 34: 2f+1 prevotes of any kind in round_p, first time, step prevote: schedule timeoutPrevote. */
  private rulePrevoteAny(): void {
    if (this.prevoteTimeoutRounds.has(this.round)) return;
    if (!this.votes.get(this.round)?.prevote.hasTwoThirdsAny()) return;
    this.prevoteTimeoutRounds.add(this.round);
    this.scheduleTimeout('prevote');
  }

  /** Line 36: proposal of round_p plus 2f+1 prevotes for id(v), valid(v), step ≥ prevote, first time. */
  private rulePolkaValue(): boolean {
    if (this.polkaRounds.has(this.round)) return false;
    const prevotes = this.votes.get(this.round)?.prevote;
    if (prevotes === undefined || prevotes.twoThirdsMajority() === undefined) return false;
    const proposals = this.proposals.get(this.round) ?? [];
    for (const key of prevotes.twoThirdsTargets()) {
      if (key === NIL_KEY || !proposals.some((e) => e.key === key)) continue;
      const value = this.values.get(key);
      if (value === undefined || value.status !== 'valid') continue;
      this.polkaRounds.add(this.round);
      // In the paper lockedRound <= round_p always. A lock restored from our own precommit can be
      // above it; a polka of a lower round must not replace it (nor would the signer precommit
      // behind a round it already signed in).
      if (this.step === 'prevote' && this.round >= this.lockedRound) {
        this.lockedValue = key;
        this.lockedRound = this.round;
        this.broadcastVote('precommit', value.hash);
        this.step = 'precommit';
      }
      if (this.round >= this.validRound) {
        this.validValue = key;
        this.validRound = this.round;
      }
      return true;
    }
    return false;
  }

  /** Line 44: 2f+1 nil prevotes in round_p while step prevote: precommit nil. */
  private rulePolkaNil(): boolean {
    if (!this.votes.get(this.round)?.prevote.hasTwoThirdsFor(NIL_KEY)) return false;
    this.broadcastVote('precommit', null);
    this.step = 'precommit';
    return true;
  }

  /** Line 47: 2f+1 precommits of any kind in round_p, first time: schedule timeoutPrecommit. */
  private rulePrecommitAny(): void {
    if (this.precommitTimeoutRounds.has(this.round)) return;
    if (!this.votes.get(this.round)?.precommit.hasTwoThirdsAny()) return;
    this.precommitTimeoutRounds.add(this.round);
    this.scheduleTimeout('precommit');
  }

  /** Line 49: 2f+1 precommits for id(v) in any round r, v known and valid: decide. */
  private ruleDecide(): boolean {
    if (this.commitRounds.size > 0) {
      for (const r of [...this.commitRounds].sort((a, b) => a - b)) {
        const set = (this.votes.get(r) as RoundVotes).precommit;
        for (const key of set.twoThirdsTargets()) {
          const value = key === NIL_KEY ? undefined : this.values.get(key);
          if (value === undefined || value.status !== 'valid') continue;
          this.decide({ height: this.height, round: r, blockHash: value.hash, precommits: set.votesFor(key) }, value);
          return true;
        }
      }
    }
    if (this.externalCommits.size > 0) {
      for (const key of [...this.externalCommits.keys()].sort()) {
        const value = this.values.get(key);
        if (value === undefined || value.status !== 'valid') continue;
        this.decide(this.externalCommits.get(key) as CommitCertificate, value);
        return true;
      }
    }
    return false;
  }

  private decide(certificate: CommitCertificate, value: ValueEntry): void {
    this.decided = true;
    this.out.push({ type: 'decide', height: this.height, round: certificate.round, value: { hash: value.hash, block: value.block }, certificate });
  }

  /** Line 55: f+1 messages from a round above round_p: StartRound there (the highest such round). */
  private ruleSkipRound(): boolean {
    if (this.skipTarget <= this.round) return false;
    this.log('debug', 'skipping to a round with f+1 participants', { from: this.round, to: this.skipTarget });
    this.startRound(this.skipTarget);
    return true;
  }

  // ---------------------------------------------------------------- actions

  /** Lines 11-21: StartRound. */
  private startRound(round: number): void {
    const validators = this.validators as ValidatorSet;
    this.round = round;
    this.step = 'propose';
    this.awaitingValueRound = null;
    // Senders of rounds at or below round_p no longer matter for line 55.
    for (const r of [...this.roundSenders.keys()]) if (r <= round) this.roundSenders.delete(r);
    const proposer = validators.proposer(this.height, round);
    if (this.selfAddress !== null && proposer.address === this.selfAddress) {
      if (this.validValue !== null) {
        this.emitProposal(round, this.validRound, this.validValue);
      } else {
        this.awaitingValueRound = round;
        this.out.push({ type: 'requestValue', height: this.height, round });
      }
    } else {
      this.scheduleTimeout('propose');
    }
  }

  private emitProposal(round: number, polRound: number, key: HashKey): void {
    const value = this.values.get(key) as ValueEntry;
    const proposal: Proposal = { height: this.height, round, polRound, blockHash: value.hash, proposer: this.selfAddress as string };
    this.out.push({ type: 'signProposal', proposal, block: value.block });
  }

  private broadcastVote(type: VoteType, blockHash: Uint8Array | null): void {
    // A node outside this height's set (observer, jailed) follows the steps but casts nothing.
    if (this.selfAddress === null || !(this.validators as ValidatorSet).has(this.selfAddress)) return;
    this.out.push({ type: 'signVote', vote: { type, height: this.height, round: this.round, blockHash, validator: this.selfAddress } });
  }

  private scheduleTimeout(kind: TimeoutKind): void {
    this.out.push({ type: 'scheduleTimeout', kind, height: this.height, round: this.round, durationMs: timeoutDuration(this.timeouts, kind, this.round) });
  }

  private log(level: LogLevel, message: string, fields?: Record<string, string | number | boolean | null>): void {
    if (level === 'debug' && !this.debug) return;
    this.out.push(fields === undefined ? { type: 'log', level, message } : { type: 'log', level, message, fields });
  }

  private run(fn: () => boolean): MachineEffect[] {
    this.out = [];
    if (fn()) this.evaluate();
    const effects = this.out;
    this.out = [];
    return effects;
  }
}
