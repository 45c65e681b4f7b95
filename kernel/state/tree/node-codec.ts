import { CorruptNodeError } from './errors.js';
import { HASH_BYTES, equalHash, hashValue, internalHash, isEmptyHash, leafHash } from './hashing.js';

/**
 * Stored form of a node, the value under `prefix || nodeHash`:
 *
 *   leaf      0x00 || keyHash (32) || value (rest of the record)
 *   internal  0x01 || leftHash (32) || rightHash (32)
 *
 * A leaf keeps the value itself (not just its hash) so `get` on any retained root, old or new,
 * needs no second index. The original key is not kept: lookups always start from the key.
 */

export const LEAF_TAG = 0x00;
export const INTERNAL_TAG = 0x01;

export interface LeafNode {
  readonly kind: 'leaf';
  readonly hash: Uint8Array;
  readonly keyHash: Uint8Array;
  readonly value: Uint8Array;
}

export interface InternalNode {
  readonly kind: 'internal';
  readonly hash: Uint8Array;
  readonly left: Uint8Array;
  readonly right: Uint8Array;
}

export type TreeNode = LeafNode | InternalNode;

/** `value` is kept by reference: callers pass a private copy (the tree copies caller input). */
export function makeLeaf(keyHash: Uint8Array, value: Uint8Array): LeafNode {
  return { kind: 'leaf', hash: leafHash(keyHash, hashValue(value)), keyHash, value };
}

export function makeInternal(left: Uint8Array, right: Uint8Array): InternalNode {
  return { kind: 'internal', hash: internalHash(left, right), left, right };
}

export function encodeNode(node: TreeNode): Uint8Array {
  const out = new Uint8Array(encodedLength(node));
  encodeNodeInto(node, out);
  return out;
}

/** Bytes of a node's stored form. */
export function encodedLength(node: TreeNode): number {
  return node.kind === 'leaf' ? 1 + HASH_BYTES + node.value.length : 1 + 2 * HASH_BYTES;
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
}

/**
 * Decodes a stored node. With `expectedHash` it also checks it really is that node: the store is
 * addressed by content, so a mismatch means a damaged or tampered database, and serving it would
 * put a wrong value under a right root. `verify = false` trusts the address instead of rehashing
 * (one SHA3 per internal node, two per leaf saved), for reads whose result is checked otherwise.
 */
export function decodeNode(bytes: Uint8Array, expectedHash?: Uint8Array, verify = true): TreeNode {
  const tag = bytes[0];
  const trusted = !verify && expectedHash !== undefined ? expectedHash.slice() : undefined;
  let node: TreeNode;
  if (tag === LEAF_TAG) {
    if (bytes.length < 1 + HASH_BYTES) throw new CorruptNodeError(`leaf record of ${bytes.length} bytes is too short`);
    // Copies, not views: the store may reuse its buffers, and cached nodes must never change.
    const keyHash = bytes.slice(1, 1 + HASH_BYTES);
    const value = bytes.slice(1 + HASH_BYTES);
    node = trusted === undefined ? makeLeaf(keyHash, value) : { kind: 'leaf', hash: trusted, keyHash, value };
  } else if (tag === INTERNAL_TAG) {
    if (bytes.length !== 1 + 2 * HASH_BYTES) throw new CorruptNodeError(`internal record of ${bytes.length} bytes, expected 65`);
    const left = bytes.slice(1, 1 + HASH_BYTES);
    const right = bytes.slice(1 + HASH_BYTES);
    // Two empty children never occur in a canonical tree; accepting one would give a second
    // encoding of "nothing here" with a non-empty hash.
    if (isEmptyHash(left) && isEmptyHash(right)) throw new CorruptNodeError('internal node with two empty children');
    node = trusted === undefined ? makeInternal(left, right) : { kind: 'internal', hash: trusted, left, right };
  } else {
    throw new CorruptNodeError(`unknown node tag ${tag === undefined ? '(empty record)' : tag}`);
  }
  if (trusted === undefined && expectedHash !== undefined && !equalHash(node.hash, expectedHash)) {
    throw new CorruptNodeError('stored node does not hash to its address');
  }
  return node;
}
