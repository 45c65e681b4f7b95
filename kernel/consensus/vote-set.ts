import { compareAddresses, hashKey, type HashKey } from './bytes.js';
import type { SignedVote, VoteType } from './types.js';
import type { ValidatorSet } from './validator-set.js';

export type AddVoteResult =
  | { readonly kind: 'added' }
  | { readonly kind: 'duplicate' }
  /**
   * The validator already voted for another target here: equivocation, `existing` is its first
   * vote. `counted` says whether this vote now also counts toward its own target.
   */
  | { readonly kind: 'conflict'; readonly existing: SignedVote; readonly counted: boolean }
  | { readonly kind: 'rejected'; readonly reason: string };

/**
 * The votes of one (height, round, type), with power tallied per target (a block hash key or
 * `nil`). Signatures are checked by the caller before `add`, so a repeat can be recognised with
 * `has` without paying for a verification.
 *
 * "2f+1 ⟨PREVOTE, h, r, id(v)⟩" in the paper counts distinct validators that sent that message.
 * An equivocator sent two messages, and each counts toward its own target: this does not weaken
 * safety (two quorums still intersect in a correct validator, which never equivocates), and it is
 * needed for liveness: correct nodes that saw different halves of an equivocation must still be
 * able to recognise the same polka once the votes are relayed (CometBFT tracks peer-claimed
 * majorities for the same reason). "2f+1 of anything" counts each validator once.
 *
 * A conflicting vote is counted only when the caller admits it (the machine admits nil and block
 * hashes it knows a proposal for), which bounds what an equivocator can make us store.
 */
export class VoteSet {
  private readonly first = new Map<string, SignedVote>();
  private readonly byTarget = new Map<HashKey, Map<string, SignedVote>>();
  private readonly power = new Map<HashKey, bigint>();
  private anyPower = 0n;
  private majority: HashKey | undefined;

  constructor(
    readonly height: number,
    readonly round: number,
    readonly type: VoteType,
    readonly validators: ValidatorSet,
  ) {}

  /** The validator's first vote here. */
  peek(validator: string): SignedVote | undefined {
    return this.first.get(validator);
  }

  /** Whether a vote of this validator for this target is already held. */
  has(validator: string, key: HashKey): boolean {
    return this.byTarget.get(key)?.has(validator) ?? false;
  }

  add(signed: SignedVote, admitConflict = false): AddVoteResult {
    const v = signed.vote;
    if (v.height !== this.height || v.round !== this.round || v.type !== this.type) {
      return { kind: 'rejected', reason: 'vote is for another height, round or type' };
    }
    if (!this.validators.has(v.validator)) return { kind: 'rejected', reason: `unknown validator ${v.validator}` };
    const key = hashKey(v.blockHash);
    if (this.has(v.validator, key)) return { kind: 'duplicate' };
    const existing = this.first.get(v.validator);
    if (existing !== undefined) {
      if (admitConflict) this.count(signed, key);
      return { kind: 'conflict', existing, counted: admitConflict };
    }
    this.first.set(v.validator, signed);
    this.anyPower += this.validators.votingPower(v.validator);
    this.count(signed, key);
    return { kind: 'added' };
  }

  private count(signed: SignedVote, key: HashKey): void {
    let voters = this.byTarget.get(key);
    if (voters === undefined) {
      voters = new Map();
      this.byTarget.set(key, voters);
    }
    voters.set(signed.vote.validator, signed);
    const sum = (this.power.get(key) ?? 0n) + this.validators.votingPower(signed.vote.validator);
    this.power.set(key, sum);
    if (this.majority === undefined && this.validators.hasTwoThirds(sum)) this.majority = key;
  }

  /** Number of validators that voted here. */
  get size(): number {
    return this.first.size;
  }

  /** Power of the validators that voted here, each once, whatever their target. */
  totalVotedPower(): bigint {
    return this.anyPower;
  }

  powerFor(key: HashKey): bigint {
    return this.power.get(key) ?? 0n;
  }

  /** More than 2/3 of the power voted, for anything (the paper's "2f+1 ⟨·, h, r, ∗⟩"). */
  hasTwoThirdsAny(): boolean {
    return this.validators.hasTwoThirds(this.anyPower);
  }

  hasTwoThirdsFor(key: HashKey): boolean {
    return this.validators.hasTwoThirds(this.powerFor(key));
  }

  /**
   * The first target to gather more than 2/3. With at most 1/3 of the power faulty no second
   * target can (two such quorums would share a correct validator that voted twice).
   */
  twoThirdsMajority(): HashKey | undefined {
    return this.majority;
  }

  /** Every target holding more than 2/3, in key order (more than one only beyond the fault bound). */
  twoThirdsTargets(): HashKey[] {
    const out: HashKey[] = [];
    for (const [key, p] of this.power) if (this.validators.hasTwoThirds(p)) out.push(key);
    return out.sort();
  }

  /** Votes for `key`, sorted by validator address so certificates have one byte form. */
  votesFor(key: HashKey): SignedVote[] {
    const voters = this.byTarget.get(key);
    if (voters === undefined) return [];
    return [...voters.values()].sort((a, b) => compareAddresses(a.vote.validator, b.vote.validator));
  }

  /** Every vote held, conflicting ones included, sorted by validator then target (for relaying). */
  allVotes(): SignedVote[] {
    const out: { key: HashKey; vote: SignedVote }[] = [];
    for (const [key, voters] of this.byTarget) for (const vote of voters.values()) out.push({ key, vote });
    out.sort((a, b) => compareAddresses(a.vote.vote.validator, b.vote.vote.validator) || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    return out.map((x) => x.vote);
  }

  /** Each validator's first vote, sorted by validator address. */
  firstVotes(): SignedVote[] {
    return [...this.first.values()].sort((a, b) => compareAddresses(a.vote.validator, b.vote.validator));
  }
}
