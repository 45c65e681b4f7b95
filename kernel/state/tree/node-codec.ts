import { CorruptNodeError } from './errors.js';
import { HASH_BYTES, equalHash, hashValue, internalHash, isEmptyHash, leafHash } from './hashing.js';

/**
 * Stored form of a node, the value under its storage key (node-keys.ts):
 *
 *   leaf               0x00 || keyHash (32) || value (rest of the record)
 *   internal           0x02 || leftHash (32) || rightHash (32) || leftVersion (6) || rightVersion (6)
 *   internal, legacy   0x01 || leftHash (32) || rightHash (32)
 *
 * A node is found by its hash and its version, the update that stored it (node-keys.ts), so a
 * parent names each child's version beside its hash. Version 0 is the layout before versions:
 * nodes keyed by hash alone, whose internal nodes (0x01) name no versions because their children
 * are keyed by hash alone too. Every write uses 0x02; 0x01 is only read, from older data
 * directories, which therefore need no migration.
 *
 * A leaf keeps the value itself (not just its hash) so `get` on any retained root, old or new,
 * needs no second index. The original key is not kept: lookups always start from the key.
 */

export const LEAF_TAG = 0x00;
export const LEGACY_INTERNAL_TAG = 0x01;
export const INTERNAL_TAG = 0x02;
/** Bytes of a version in a record and a storage key: 2^48 updates. */
export const VERSION_BYTES = 6;
export const MAX_VERSION = 2 ** (8 * VERSION_BYTES) - 1;
const INTERNAL_BYTES = 1 + 2 * HASH_BYTES + 2 * VERSION_BYTES;
const LEGACY_INTERNAL_BYTES = 1 + 2 * HASH_BYTES;

export interface LeafNode {
  readonly kind: 'leaf';
  readonly hash: Uint8Array;
  /** The update whose batch stores this node (0: stored by hash alone, before versions). */
  readonly version: number;
  readonly keyHash: Uint8Array;
  readonly value: Uint8Array;
}

export interface InternalNode {
  readonly kind: 'internal';
  readonly hash: Uint8Array;
  readonly version: number;
  readonly left: Uint8Array;
  readonly right: Uint8Array;
  /** Where each child is stored (0 for an empty child, and for every child of a legacy node). */
  readonly leftVersion: number;
  readonly rightVersion: number;
}

export type TreeNode = LeafNode | InternalNode;

/** `value` is kept by reference: callers pass a private copy (the tree copies caller input). */
export function makeLeaf(keyHash: Uint8Array, value: Uint8Array, version: number): LeafNode {
  return { kind: 'leaf', hash: leafHash(keyHash, hashValue(value)), version, keyHash, value };
}

export function makeInternal(left: Uint8Array, leftVersion: number, right: Uint8Array, rightVersion: number, version: number): InternalNode {
  return { kind: 'internal', hash: internalHash(left, right), version, left, right, leftVersion, rightVersion };
}

export function encodeNode(node: TreeNode): Uint8Array {
  const out = new Uint8Array(encodedLength(node));
  encodeNodeInto(node, out);
  return out;
}

/** Bytes of a node's stored form. */
export function encodedLength(node: TreeNode): number {
  return node.kind === 'leaf' ? 1 + HASH_BYTES + node.value.length : INTERNAL_BYTES;
}

/** Writes a node's stored form into `out` (exactly encodedLength(node) bytes). */
export function encodeNodeInto(node: TreeNode, out: Uint8Array): void {
  if (node.kind === 'leaf') {
    out[0] = LEAF_TAG;
    out.set(node.keyHash, 1);
    out.set(node.value, 1 + HASH_BYTES);
    return;
  }
  out[0] = INTERNAL_TAG;
  out.set(node.left, 1);
  out.set(node.right, 1 + HASH_BYTES);
  writeVersion(out, 1 + 2 * HASH_BYTES, node.leftVersion);
  writeVersion(out, 1 + 2 * HASH_BYTES + VERSION_BYTES, node.rightVersion);
}

/** Big-endian, so that storage keys sort by version (node-keys.ts). */
export function writeVersion(out: Uint8Array, at: number, version: number): void {
  // Two halves: bit operators are 32-bit, a version is up to 48.
  const high = Math.floor(version / 2 ** 24);
  const low = version % 2 ** 24;
  out[at] = high >>> 16;
  out[at + 1] = (high >>> 8) & 0xff;
  out[at + 2] = high & 0xff;
  out[at + 3] = low >>> 16;
  out[at + 4] = (low >>> 8) & 0xff;
  out[at + 5] = low & 0xff;
}

export function readVersion(bytes: Uint8Array, at: number): number {
  return ((bytes[at]! << 16) | (bytes[at + 1]! << 8) | bytes[at + 2]!) * 2 ** 24 + ((bytes[at + 3]! << 16) | (bytes[at + 4]! << 8) | bytes[at + 5]!);
}

/**
 * Decodes a stored node, the one stored at `version`. With `expectedHash` it also checks it really
 * is that node: the store is addressed by content, so a mismatch means a damaged or tampered
 * database, and serving it would put a wrong value under a right root. `verify = false` trusts the
 * address instead of rehashing (one SHA3 per internal node, two per leaf saved), for reads whose
 * result is checked otherwise.
 */
export function decodeNode(bytes: Uint8Array, expectedHash?: Uint8Array, verify = true, version = 0): TreeNode {
  const tag = bytes[0];
  const trusted = !verify && expectedHash !== undefined ? expectedHash.slice() : undefined;
  let node: TreeNode;
  if (tag === LEAF_TAG) {
    if (bytes.length < 1 + HASH_BYTES) throw new CorruptNodeError(`leaf record of ${bytes.length} bytes is too short`);
    // Copies, not views: the store may reuse its buffers, and cached nodes must never change.
    const keyHash = bytes.slice(1, 1 + HASH_BYTES);
    const value = bytes.slice(1 + HASH_BYTES);
    node = trusted === undefined ? makeLeaf(keyHash, value, version) : { kind: 'leaf', hash: trusted, version, keyHash, value };
  } else if (tag === INTERNAL_TAG || tag === LEGACY_INTERNAL_TAG) {
    const expected = tag === INTERNAL_TAG ? INTERNAL_BYTES : LEGACY_INTERNAL_BYTES;
    if (bytes.length !== expected) throw new CorruptNodeError(`internal record of ${bytes.length} bytes, expected ${expected}`);
    const left = bytes.slice(1, 1 + HASH_BYTES);
    const right = bytes.slice(1 + HASH_BYTES, 1 + 2 * HASH_BYTES);
    // Two empty children never occur in a canonical tree; accepting one would give a second
    // encoding of "nothing here" with a non-empty hash.
    if (isEmptyHash(left) && isEmptyHash(right)) throw new CorruptNodeError('internal node with two empty children');
    const leftVersion = tag === INTERNAL_TAG ? readVersion(bytes, 1 + 2 * HASH_BYTES) : 0;
    const rightVersion = tag === INTERNAL_TAG ? readVersion(bytes, 1 + 2 * HASH_BYTES + VERSION_BYTES) : 0;
    node =
      trusted === undefined
        ? makeInternal(left, leftVersion, right, rightVersion, version)
        : { kind: 'internal', hash: trusted, version, left, right, leftVersion, rightVersion };
  } else {
    throw new CorruptNodeError(`unknown node tag ${tag === undefined ? '(empty record)' : tag}`);
  }
  if (trusted === undefined && expectedHash !== undefined && !equalHash(node.hash, expectedHash)) {
    throw new CorruptNodeError('stored node does not hash to its address');
  }
  return node;
}
