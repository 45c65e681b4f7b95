import { toHex0x } from '../codec/hex.js';
import type { SignatureProvider } from '../crypto/provider.js';
import { isSafeNonNegative } from './bytes.js';
import { isEncodableField } from './validator-set.js';
import type { Proposal, SignedProposal, SignedVote, Vote } from './types.js';
import { utf8Bytes } from '../codec/utf8.js';

/**
 * Canonical sign bytes (decisions.md §5: UTF-8 of `|`-joined text, integers in base 10). The
 * chain id is inside every message so a signature made for one network never verifies on
 * another; the tag and version come first so a vote can never be read as a proposal or as a
 * transaction (`ch-tx-v*`).
 *
 *   ch-vote-v1|<chain_id>|<prevote|precommit>|<height>|<round>|<0x block hash | nil>|<validator>
 *   ch-proposal-v1|<chain_id>|<height>|<round>|<pol_round | nil>|<0x block hash>|<proposer>|<timestamp_ms | nil>
 *
 * `nil` stands for the absent hash, the absent POL round (-1) and the absent timestamp, because
 * §5 allows no sign on integers. Addresses and chain ids may not contain `|`, so the field
 * boundaries are unambiguous.
 */
export const VOTE_TAG = 'ch-vote-v1';
export const PROPOSAL_TAG = 'ch-proposal-v1';
export const HASH_BYTES = 32;

function checkField(name: string, text: string): void {
  if (!isEncodableField(text)) throw new TypeError(`${name} must be non-empty and free of '|'`);
}

function checkInt(name: string, n: number): void {
  if (!isSafeNonNegative(n)) throw new TypeError(`${name} must be a non-negative safe integer`);
}

function checkHash(hash: Uint8Array): void {
  if (!(hash instanceof Uint8Array) || hash.length !== HASH_BYTES) throw new TypeError(`block hash must be ${HASH_BYTES} bytes`);
}

export function voteSignBytes(chainId: string, vote: Vote): Uint8Array {
  checkField('chain id', chainId);
  checkField('validator', vote.validator);
  if (vote.type !== 'prevote' && vote.type !== 'precommit') throw new TypeError('vote type must be prevote or precommit');
  checkInt('height', vote.height);
  checkInt('round', vote.round);
  if (vote.blockHash !== null) checkHash(vote.blockHash);
  const hash = vote.blockHash === null ? 'nil' : toHex0x(vote.blockHash);
  return utf8Bytes([VOTE_TAG, chainId, vote.type, vote.height, vote.round, hash, vote.validator].join('|'));
}

export function proposalSignBytes(chainId: string, p: Proposal): Uint8Array {
  checkField('chain id', chainId);
  checkField('proposer', p.proposer);
  checkInt('height', p.height);
  checkInt('round', p.round);
  if (!(p.polRound === -1 || (isSafeNonNegative(p.polRound) && p.polRound < p.round))) {
    throw new TypeError('pol_round must be -1 or a round below the proposal round');
  }
  checkHash(p.blockHash);
  if (p.timestampMs !== undefined) checkInt('timestamp', p.timestampMs);
  const pol = p.polRound === -1 ? 'nil' : String(p.polRound);
  const ts = p.timestampMs === undefined ? 'nil' : String(p.timestampMs);
  return utf8Bytes([PROPOSAL_TAG, chainId, p.height, p.round, pol, toHex0x(p.blockHash), p.proposer, ts].join('|'));
}

export function signVote(provider: SignatureProvider, secretKey: Uint8Array, chainId: string, vote: Vote): SignedVote {
  return { vote, signature: provider.sign(voteSignBytes(chainId, vote), secretKey) };
}

export function signProposal(provider: SignatureProvider, secretKey: Uint8Array, chainId: string, proposal: Proposal): SignedProposal {
  return { proposal, signature: provider.sign(proposalSignBytes(chainId, proposal), secretKey) };
}

/** False for a bad signature and for a message that has no canonical encoding. */
export function verifyVoteSignature(provider: SignatureProvider, chainId: string, signed: SignedVote, publicKey: Uint8Array): boolean {
  let bytes: Uint8Array;
  try {
    bytes = voteSignBytes(chainId, signed.vote);
  } catch {
    return false;
  }
  return provider.verify(signed.signature, bytes, publicKey);
}

export function verifyProposalSignature(provider: SignatureProvider, chainId: string, signed: SignedProposal, publicKey: Uint8Array): boolean {
  let bytes: Uint8Array;
  try {
    bytes = proposalSignBytes(chainId, signed.proposal);
  } catch {
    return false;
  }
  return provider.verify(signed.signature, bytes, publicKey);
}
