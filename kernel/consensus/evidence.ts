import type { SignatureProvider } from '../crypto/provider.js';
import { hashKey } from './bytes.js';
import { verifyVoteSignature } from './encoding.js';
import type { ConsensusEvidence, DuplicateVoteEvidence, SignedVote, VerifyResult } from './types.js';
import type { ValidatorSet } from './validator-set.js';

/**
 * Canonical order of the two votes: by target, `nil` first, then hash bytes ascending (hex
 * order equals byte order). One offence therefore has one encoding, whichever vote arrived first.
 */
export function makeEvidence(a: SignedVote, b: SignedVote): DuplicateVoteEvidence {
  const ka = hashKey(a.vote.blockHash);
  const kb = hashKey(b.vote.blockHash);
  if (ka === kb) throw new Error('votes for the same target are not evidence');
  const aFirst = ka === 'nil' || (kb !== 'nil' && ka < kb);
  return { kind: 'duplicate-vote', voteA: aFirst ? a : b, voteB: aFirst ? b : a };
}

/**
 * Identity of an offence: validator, height, round and vote type. A slashing plugin applies each
 * id once (spec item 10), so a third conflicting vote in the same slot is not a second offence.
 */
export function evidenceId(e: ConsensusEvidence): string {
  const v = e.voteA.vote;
  return `${e.kind}|${v.validator}|${v.height}|${v.round}|${v.type}`;
}

/**
 * Checks that evidence proves equivocation by a member of `validators` (the set of the
 * evidence's height): same validator, height, round and type; different targets; both
 * signatures valid under the validator's key and this chain id.
 */
export function verifyEvidence(e: ConsensusEvidence, validators: ValidatorSet, chainId: string, provider: SignatureProvider): VerifyResult {
  if (e.kind !== 'duplicate-vote') return { ok: false, reason: 'unknown evidence kind' };
  const a = e.voteA.vote;
  const b = e.voteB.vote;
  if (a.validator !== b.validator) return { ok: false, reason: 'votes are from different validators' };
  if (a.height !== b.height || a.round !== b.round || a.type !== b.type) {
    return { ok: false, reason: 'votes are for different height, round or type' };
  }
  const ka = hashKey(a.blockHash);
  const kb = hashKey(b.blockHash);
  if (ka === kb) return { ok: false, reason: 'votes are for the same block' };
  const publicKey = validators.publicKeyOf(a.validator);
  if (publicKey === undefined) return { ok: false, reason: `unknown validator ${a.validator}` };
  if (!verifyVoteSignature(provider, chainId, e.voteA, publicKey)) return { ok: false, reason: 'first vote has a bad signature' };
  if (!verifyVoteSignature(provider, chainId, e.voteB, publicKey)) return { ok: false, reason: 'second vote has a bad signature' };
  return { ok: true };
}
