import { blockHash } from '../chain/block-hash.js';
import { canonicalJson } from '../codec/json.js';
import { utf8Bytes } from '../codec/utf8.js';
import { parseHex, toHex } from '../codec/hex.js';
import { createHash } from 'node:crypto';
import { sha3Hex0x } from '../crypto/hash.js';
import type { KeyPair, SignatureProvider } from '../crypto/provider.js';
import type { BlockRecord } from '../model/types.js';
import { jsonRecord } from '../state/record-codec.js';
import type { ChainCounters } from '../store/chain-store.js';

/**
 * A copy of the whole state at one height, for a node too far behind to replay blocks. Its trust
 * does not rest on the node that serves it: block h's own header cannot name the state after h,
 * but block h + 1's header does (`prev_state_root`), so the snapshot carries block h + 1 and that
 * block's commit certificate, and the receiver checks the certificate as a light client would
 * (`snapshot-trust.ts`). The serving node's signature over `ch-snapshot-v1|chain_id|height|
 * block_hash|state_root|<sha3 of the canonical entries>` only says who served it; the receiver
 * also recomputes the state root from the entries on install.
 */
export const SNAPSHOT_TAG = 'ch-snapshot-v1';
export const CHECKPOINT_TAG = 'ch-checkpoint-v1';

export interface StateSnapshot {
  chain_id: string;
  height: number;
  block_hash: string;
  state_root: string;
  /** The block at `height` as the store keeps it (JSON with bigints tagged), so the next block can link to it. */
  block: string;
  /** `[key, value hex]`, ascending by key. */
  entries: Array<[string, string]>;
  entries_hash: string;
  signer: string;
  public_key: string;
  signature: string;
  /** Block h + 1 as the store keeps it: its header's `prev_state_root` is `state_root`. Absent only where the block has no certificate (a one-validator network's, stored by an earlier build). */
  certifying_block?: string;
  /** Block h + 1's commit certificate in the consensus wire form (`certificateToJson`). */
  certifying_commit?: unknown;
  /**
   * The serving node's counters at `height`, which no state root covers (`/health` and
   * `/status` `total_txs`, the gas estimate's `total_burned`, a decimal string): a node started
   * from the snapshot counts on from them. Informational, not signed; absent from a snapshot of
   * a build before 2026-12-01, whose receiver counts from 0.
   */
  total_txs?: number;
  total_burned?: string;
}

/** A snapshot's counters as the receiving node keeps them. */
export type SnapshotCounters = ChainCounters;

/** The counters a snapshot head carries, when both are well formed. */
export function snapshotCounters(head: Pick<StateSnapshot, 'total_txs' | 'total_burned'>): SnapshotCounters | undefined {
  const { total_txs, total_burned } = head;
  if (typeof total_txs !== 'number' || !Number.isSafeInteger(total_txs) || total_txs < 0) return undefined;
  if (typeof total_burned !== 'string' || !/^(0|[1-9][0-9]{0,38})$/.test(total_burned)) return undefined;
  return { total_txs, total_burned: BigInt(total_burned) };
}

/** Everything but the entries: what is signed (with `entries_hash`) and what trust is judged on. */
export type SnapshotHead = Omit<StateSnapshot, 'entries'>;

/** Block h + 1 and its stored certificate (the consensus layer's JSON bytes), when it has one. */
export interface CertifyingBlock {
  readonly block: BlockRecord;
  readonly commit: Uint8Array | undefined;
}

const blockCodec = jsonRecord<BlockRecord>();
const decoder = new TextDecoder();

export function snapshotMessage(s: Pick<StateSnapshot, 'chain_id' | 'height' | 'block_hash' | 'state_root' | 'entries_hash'>): Uint8Array {
  return utf8Bytes([SNAPSHOT_TAG, s.chain_id, String(s.height), s.block_hash, s.state_root, s.entries_hash].join('|'));
}

export function entriesHash(entries: Array<[string, string]>): string {
  return sha3Hex0x(canonicalJson(entries));
}

/** The canonical JSON of one entry, as `canonicalJson` writes it inside the entries array. */
export function entryJson(key: string, valueHex: string): string {
  return `[${JSON.stringify(key)},${JSON.stringify(valueHex)}]`;
}

/**
 * `entriesHash` fed one entry at a time, so the entries of a whole state never need to be held
 * together: the SHA3-256 of `[` + the entries' canonical JSON joined by `,` + `]`.
 */
export class EntriesHasher {
  private readonly h = createHash('sha3-256').update('[');
  private count = 0;

  add(entryText: string): void {
    this.h.update(this.count++ === 0 ? entryText : ',' + entryText);
  }

  digest(): string {
    return '0x' + this.h.update(']').digest('hex');
  }
}

/** What a snapshot says before its entries are read: every field but the entries' hash and the signature. */
export type SnapshotBlocks = Omit<SnapshotHead, 'entries_hash' | 'signer' | 'public_key' | 'signature'>;

export function snapshotBlocks(base: { chain_id: string; block: BlockRecord; certifying?: CertifyingBlock | undefined; counters?: SnapshotCounters }): SnapshotBlocks {
  const certifying = base.certifying;
  const counters = base.counters;
  return {
    chain_id: base.chain_id,
    height: base.block.header.height,
    block_hash: base.block.hash,
    state_root: base.block.state_root,
    block: decoder.decode(blockCodec.encode(base.block)),
    ...(certifying ? { certifying_block: decoder.decode(blockCodec.encode(certifying.block)) } : {}),
    ...(certifying?.commit ? { certifying_commit: JSON.parse(decoder.decode(certifying.commit)) as unknown } : {}),
    ...(counters ? { total_txs: counters.total_txs, total_burned: counters.total_burned.toString() } : {}),
  };
}

/** The head of a snapshot, signed: every field but the entries, whose hash it carries. */
export function signSnapshotHead(blocks: SnapshotBlocks, entries_hash: string, signer: { address: string; keys: KeyPair }, provider: SignatureProvider): SnapshotHead {
  return {
    ...blocks,
    entries_hash,
    signer: signer.address,
    public_key: toHex(signer.keys.publicKey),
    signature: toHex(provider.sign(snapshotMessage({ ...blocks, entries_hash }), signer.keys.secretKey)),
  };
}

export function signSnapshot(
  base: { chain_id: string; block: BlockRecord; entries: Array<[string, string]>; certifying?: CertifyingBlock; counters?: SnapshotCounters },
  signer: { address: string; keys: KeyPair },
  provider: SignatureProvider,
): StateSnapshot {
  return { ...signSnapshotHead(snapshotBlocks(base), entriesHash(base.entries), signer, provider), entries: base.entries };
}

/**
 * Checks the snapshot's own consistency: shape, entries hash, block identity, and the serving
 * node's signature. Whether the state is the chain's is `verifySnapshotTrust`'s question, and
 * the state root is checked against the entries on install (it needs the tree). Returns the
 * decoded block or a reason.
 */
export function checkSnapshot(s: unknown, chainId: string, provider: SignatureProvider): { ok: true; snapshot: StateSnapshot; block: BlockRecord } | { ok: false; reason: string } {
  if (typeof s !== 'object' || s === null) return { ok: false, reason: 'snapshot is not an object' };
  const x = s as StateSnapshot;
  if (!Array.isArray(x.entries) || !x.entries.every(isSnapshotEntry)) return { ok: false, reason: 'snapshot entries are malformed' };
  for (let i = 1; i < x.entries.length; i++) if (!(x.entries[i - 1]![0] < x.entries[i]![0])) return { ok: false, reason: 'snapshot entries are not strictly ascending' };
  const head = checkSnapshotHead(x, entriesHash(x.entries), chainId, provider);
  return head.ok ? { ok: true, snapshot: x, block: head.block } : head;
}

/** One element of a snapshot's `entries`: `[key, lowercase hex value]`, whole bytes (an odd digit would decode to nothing, which the tree takes for a delete). */
export function isSnapshotEntry(e: unknown): e is [string, string] {
  return Array.isArray(e) && e.length === 2 && typeof e[0] === 'string' && typeof e[1] === 'string' && /^(?:[0-9a-f]{2})*$/.test(e[1]);
}

/**
 * `checkSnapshot` but for the entries, given the hash of the entries as received (a streamed
 * install hashes them as they pass): chain, height, entries hash, signature, block identity.
 */
export function checkSnapshotHead(s: unknown, receivedEntriesHash: string, chainId: string, provider: SignatureProvider): { ok: true; head: SnapshotHead; block: BlockRecord } | { ok: false; reason: string } {
  if (typeof s !== 'object' || s === null) return { ok: false, reason: 'snapshot is not an object' };
  const x = s as SnapshotHead;
  if (x.chain_id !== chainId) return { ok: false, reason: `snapshot is for chain ${String(x.chain_id)}, not ${chainId}` };
  if (!Number.isSafeInteger(x.height) || x.height < 1) return { ok: false, reason: 'snapshot height is not a positive integer' };
  if (receivedEntriesHash !== x.entries_hash) return { ok: false, reason: 'entries_hash does not match the entries' };
  if (typeof x.signer !== 'string') return { ok: false, reason: 'snapshot signer is missing' };
  const sig = typeof x.signature === 'string' ? parseHex(x.signature) : null;
  const publicKey = typeof x.public_key === 'string' ? parseHex(x.public_key) : null;
  if (!sig || !publicKey || !provider.verify(sig, snapshotMessage(x), publicKey)) return { ok: false, reason: 'snapshot signature does not verify' };
  const decoded = decodeStoredBlock(x.block);
  if (decoded === null) return { ok: false, reason: 'snapshot block is malformed' };
  const { block, hash } = decoded;
  // The header is what the next block's parent_hash binds; a hash field that is not the
  // header's own would let a forged header ride on a genuine certificate.
  if (hash !== block.hash) return { ok: false, reason: 'snapshot block does not match its hash' };
  if (block.header.chain_id !== chainId || block.hash !== x.block_hash || block.header.height !== x.height || block.state_root !== x.state_root) {
    return { ok: false, reason: 'snapshot block does not match its chain, height, hash and root' };
  }
  return { ok: true, head: x, block };
}

/**
 * A block in the store's text form, as a snapshot carries it, with the hash its header actually
 * has (the caller compares it with the `hash` field); null for a text that is no block.
 */
export function decodeStoredBlock(text: unknown): { block: BlockRecord; hash: string } | null {
  if (typeof text !== 'string') return null;
  try {
    const block = blockCodec.decode(utf8Bytes(text));
    if (typeof block !== 'object' || block === null || typeof block.header !== 'object' || block.header === null) return null;
    return { block, hash: blockHash(block.header) };
  } catch {
    return null;
  }
}

export function checkpointMessage(chainId: string, height: number, blockHash: string, stateRoot: string): Uint8Array {
  return utf8Bytes([CHECKPOINT_TAG, chainId, String(height), blockHash, stateRoot].join('|'));
}
