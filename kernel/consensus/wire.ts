import { stringify, type JsonValue } from '../codec/json.js';
import { parseHex, toHex, toHex0x } from '../codec/hex.js';
import { isSafeNonNegative } from './bytes.js';
import type { CommitCertificate, ConsensusEvidence, Proposal, SignedProposal, SignedVote, Vote } from './types.js';
import { utf8Bytes } from '../codec/utf8.js';

/**
 * JSON forms of consensus messages, for the wire, the WAL and RPC. Field names are snake_case
 * like the rest of the interface; hashes are `0x` + 64 lowercase hex and signatures lowercase
 * hex without `0x` (decisions.md §2). Decoders are strict and return null on any defect: these
 * bytes come from untrusted peers.
 *
 *   vote:        {"type","height","round","block_hash":"0x…"|null,"validator","signature"}
 *   proposal:    {"height","round","pol_round":-1|n,"block_hash","proposer","timestamp"?,"signature"}
 *   certificate: {"height","round","block_hash","precommits":[vote…]}
 *   evidence:    {"kind":"duplicate-vote","vote_a":vote,"vote_b":vote}
 *   message:     {"kind":"vote","vote"} | {"kind":"proposal","proposal","block"} | {"kind":"commit","certificate","block"}
 */

/** How the host turns its opaque block into JSON and back; `decode` returns undefined when malformed. */
export interface BlockCodec {
  encode(block: unknown): JsonValue;
  decode(json: unknown): unknown;
}

export type ConsensusMessage =
  | { readonly kind: 'vote'; readonly vote: SignedVote }
  | { readonly kind: 'proposal'; readonly proposal: SignedProposal; readonly block: unknown }
  | { readonly kind: 'commit'; readonly certificate: CommitCertificate; readonly block: unknown };

export function consensusMessageHeight(m: ConsensusMessage): number {
  if (m.kind === 'vote') return m.vote.vote.height;
  if (m.kind === 'proposal') return m.proposal.proposal.height;
  return m.certificate.height;
}

export interface DecodeLimits {
  readonly maxSignatureBytes: number;
  readonly maxPrecommits: number;
}

const DEFAULT_LIMITS: DecodeLimits = { maxSignatureBytes: 8192, maxPrecommits: 10_000 };
const HASH_RE = /^0x[0-9a-f]{64}$/;
const SIG_RE = /^(?:[0-9a-f]{2})+$/;
const utf8Decoder = new TextDecoder('utf-8', { fatal: true });

type Obj = Record<string, unknown>;

function isObj(x: unknown): x is Obj {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

function hash(x: unknown): Uint8Array | null {
  return typeof x === 'string' && HASH_RE.test(x) ? parseHex(x, 32) : null;
}

function sig(x: unknown, limits: DecodeLimits): Uint8Array | null {
  if (typeof x !== 'string' || x.length > limits.maxSignatureBytes * 2 || !SIG_RE.test(x)) return null;
  return parseHex(x);
}

function addr(x: unknown): string | null {
  return typeof x === 'string' && x.length > 0 && x.length <= 256 && !x.includes('|') ? x : null;
}

export function voteToJson(sv: SignedVote): Obj {
  const v = sv.vote;
  return {
    type: v.type,
    height: v.height,
    round: v.round,
    block_hash: v.blockHash === null ? null : toHex0x(v.blockHash),
    validator: v.validator,
    signature: toHex(sv.signature),
  };
}

export function voteFromJson(x: unknown, limits: DecodeLimits = DEFAULT_LIMITS): SignedVote | null {
  if (!isObj(x)) return null;
  const type = x['type'];
  if (type !== 'prevote' && type !== 'precommit') return null;
  const height = x['height'];
  const round = x['round'];
  if (!isSafeNonNegative(height) || !isSafeNonNegative(round)) return null;
  const rawHash = x['block_hash'];
  const blockHash = rawHash === null ? null : hash(rawHash);
  if (rawHash !== null && blockHash === null) return null;
  const validator = addr(x['validator']);
  const signature = sig(x['signature'], limits);
  if (validator === null || signature === null) return null;
  const vote: Vote = { type, height, round, blockHash, validator };
  return { vote, signature };
}

export function proposalToJson(sp: SignedProposal): Obj {
  const p = sp.proposal;
  const o: Obj = {
    height: p.height,
    round: p.round,
    pol_round: p.polRound,
    block_hash: toHex0x(p.blockHash),
    proposer: p.proposer,
  };
  if (p.timestampMs !== undefined) o['timestamp'] = p.timestampMs;
  o['signature'] = toHex(sp.signature);
  return o;
}

export function proposalFromJson(x: unknown, limits: DecodeLimits = DEFAULT_LIMITS): SignedProposal | null {
  if (!isObj(x)) return null;
  const height = x['height'];
  const round = x['round'];
  const polRound = x['pol_round'];
  if (!isSafeNonNegative(height) || !isSafeNonNegative(round)) return null;
  if (!(polRound === -1 || (isSafeNonNegative(polRound) && polRound < round))) return null;
  const blockHash = hash(x['block_hash']);
  const proposer = addr(x['proposer']);
  const signature = sig(x['signature'], limits);
  if (blockHash === null || proposer === null || signature === null) return null;
  const ts = x['timestamp'];
  if (ts !== undefined && !isSafeNonNegative(ts)) return null;
  const proposal: Proposal = ts === undefined ? { height, round, polRound, blockHash, proposer } : { height, round, polRound, blockHash, proposer, timestampMs: ts };
  return { proposal, signature };
}

export function certificateToJson(c: CommitCertificate): Obj {
  return { height: c.height, round: c.round, block_hash: toHex0x(c.blockHash), precommits: c.precommits.map(voteToJson) as JsonValue[] };
}

export function certificateFromJson(x: unknown, limits: DecodeLimits = DEFAULT_LIMITS): CommitCertificate | null {
  if (!isObj(x)) return null;
  const height = x['height'];
  const round = x['round'];
  if (!isSafeNonNegative(height) || !isSafeNonNegative(round)) return null;
  const blockHash = hash(x['block_hash']);
  const raw = x['precommits'];
  if (blockHash === null || !Array.isArray(raw) || raw.length > limits.maxPrecommits) return null;
  const precommits: SignedVote[] = [];
  for (const r of raw) {
    const v = voteFromJson(r, limits);
    if (v === null) return null;
    precommits.push(v);
  }
  return { height, round, blockHash, precommits };
}

export function evidenceToJson(e: ConsensusEvidence): Obj {
  return { kind: e.kind, vote_a: voteToJson(e.voteA), vote_b: voteToJson(e.voteB) };
}

export function evidenceFromJson(x: unknown, limits: DecodeLimits = DEFAULT_LIMITS): ConsensusEvidence | null {
  if (!isObj(x) || x['kind'] !== 'duplicate-vote') return null;
  const voteA = voteFromJson(x['vote_a'], limits);
  const voteB = voteFromJson(x['vote_b'], limits);
  if (voteA === null || voteB === null) return null;
  return { kind: 'duplicate-vote', voteA, voteB };
}

export function encodeConsensusMessage(m: ConsensusMessage, codec: BlockCodec): Uint8Array {
  let o: Obj;
  switch (m.kind) {
    case 'vote':
      o = { kind: 'vote', vote: voteToJson(m.vote) };
      break;
    case 'proposal':
      o = { kind: 'proposal', proposal: proposalToJson(m.proposal), block: codec.encode(m.block) };
      break;
    case 'commit':
      o = { kind: 'commit', certificate: certificateToJson(m.certificate), block: codec.encode(m.block) };
      break;
  }
  return utf8Bytes(stringify(o));
}

export function decodeConsensusMessage(bytes: Uint8Array, codec: BlockCodec, limits: DecodeLimits = DEFAULT_LIMITS): ConsensusMessage | null {
  let x: unknown;
  try {
    x = JSON.parse(utf8Decoder.decode(bytes));
  } catch {
    return null;
  }
  if (!isObj(x)) return null;
  switch (x['kind']) {
    case 'vote': {
      const vote = voteFromJson(x['vote'], limits);
      return vote === null ? null : { kind: 'vote', vote };
    }
    case 'proposal': {
      const proposal = proposalFromJson(x['proposal'], limits);
      const block = codec.decode(x['block']);
      return proposal === null || block === undefined ? null : { kind: 'proposal', proposal, block };
    }
    case 'commit': {
      const certificate = certificateFromJson(x['certificate'], limits);
      const block = codec.decode(x['block']);
      return certificate === null || block === undefined ? null : { kind: 'commit', certificate, block };
    }
    default:
      return null;
  }
}
