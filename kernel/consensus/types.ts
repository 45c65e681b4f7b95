/**
 * Consensus message and value types. Heights and rounds are plain non-negative safe integers
 * (a chain will not reach 2^53 blocks); voting power is bigint because it is stake in ucoin and
 * sums of stakes exceed 2^53.
 */

export type VoteType = 'prevote' | 'precommit';
export type Step = 'propose' | 'prevote' | 'precommit';
export type TimeoutKind = 'propose' | 'prevote' | 'precommit';

/**
 * A validator: its `.node` address, its ML-DSA-65 consensus public key and its voting power. The
 * one record for the set wherever it appears: in state (`vset/<address>`), in an endBlock
 * validator update (where power 0 takes the validator out and the key is not read), and in the
 * consensus layer's `ValidatorSet`, which decodes each key once.
 */
export interface Validator {
  readonly address: string;
  /** Lowercase hex without `0x`, as state, genesis and plugins hold it. */
  readonly public_key: string;
  /** Self-stake in ucoin. */
  readonly power: bigint;
}

export interface Proposal {
  readonly height: number;
  readonly round: number;
  /** The round of the polka that justifies re-proposing this value (Algorithm 1's validRound), or -1. */
  readonly polRound: number;
  /** 32-byte hash of the proposed block, id(v) in the paper. */
  readonly blockHash: Uint8Array;
  readonly proposer: string;
  /** Proposer's clock in ms since the epoch; informational, never read by the upon-rules. */
  readonly timestampMs?: number;
}

export interface SignedProposal {
  readonly proposal: Proposal;
  readonly signature: Uint8Array;
}

export interface Vote {
  readonly type: VoteType;
  readonly height: number;
  readonly round: number;
  /** 32-byte block hash, or null for a nil vote. */
  readonly blockHash: Uint8Array | null;
  readonly validator: string;
}

export interface SignedVote {
  readonly vote: Vote;
  readonly signature: Uint8Array;
}

/** A value the machine can propose or decide: the opaque block and the hash votes refer to. */
export interface Value {
  readonly hash: Uint8Array;
  readonly block: unknown;
}

/**
 * Two different signed votes by one validator for one (height, round, type). `voteA` and `voteB`
 * are in canonical order (see `makeEvidence`) so the same offence always has the same bytes,
 * whichever vote a node happened to see first.
 */
export interface DuplicateVoteEvidence {
  readonly kind: 'duplicate-vote';
  readonly voteA: SignedVote;
  readonly voteB: SignedVote;
}

/**
 * The consensus layer's proof of misbehaviour: the signed messages themselves. A block carries it
 * in its JSON wire form inside the chain's `Evidence` record.
 */
export type ConsensusEvidence = DuplicateVoteEvidence;

/** The precommits (strictly more than 2/3 of the power) that finalise `blockHash` at (height, round). */
export interface CommitCertificate {
  readonly height: number;
  readonly round: number;
  readonly blockHash: Uint8Array;
  /** Sorted by validator address (byte-wise), one per validator. */
  readonly precommits: readonly SignedVote[];
}

export type VerifyResult = { readonly ok: true } | { readonly ok: false; readonly reason: string };
