import { sha3Concat } from './hash.js';

/**
 * Binary Merkle tree over transaction hashes (RFC 6962 shape: leaves and inner nodes are
 * domain-separated, an odd split puts the largest power of two on the left), so an inclusion
 * proof is log2(n) hashes and a leaf can never pass as an inner node.
 */
const LEAF = Uint8Array.of(0);
const NODE = Uint8Array.of(1);
export const EMPTY_TX_ROOT = sha3Concat(new Uint8Array(0));

export function leafHash(item: Uint8Array): Uint8Array {
  return sha3Concat(LEAF, item);
}

function nodeHash(left: Uint8Array, right: Uint8Array): Uint8Array {
  return sha3Concat(NODE, left, right);
}

function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

export function merkleRoot(items: readonly Uint8Array[]): Uint8Array {
  if (items.length === 0) return EMPTY_TX_ROOT;
  return subtreeRoot(items.map(leafHash), 0, items.length);
}

function subtreeRoot(leaves: readonly Uint8Array[], start: number, end: number): Uint8Array {
  const n = end - start;
  if (n === 1) return leaves[start]!;
  const k = splitPoint(n);
  return nodeHash(subtreeRoot(leaves, start, start + k), subtreeRoot(leaves, start + k, end));
}

/** Sibling hashes from the leaf up to the root. */
export function merkleProof(items: readonly Uint8Array[], index: number): Uint8Array[] {
  if (index < 0 || index >= items.length) throw new RangeError('leaf index out of range');
  const leaves = items.map(leafHash);
  const path: Uint8Array[] = [];
  collect(leaves, 0, leaves.length, index, path);
  return path;
}

function collect(leaves: readonly Uint8Array[], start: number, end: number, index: number, path: Uint8Array[]): void {
  const n = end - start;
  if (n === 1) return;
  const k = splitPoint(n);
  if (index < start + k) {
    collect(leaves, start, start + k, index, path);
    path.push(subtreeRoot(leaves, start + k, end));
  } else {
    collect(leaves, start + k, end, index, path);
    path.push(subtreeRoot(leaves, start, start + k));
  }
}

export function verifyMerkleProof(root: Uint8Array, item: Uint8Array, index: number, count: number, path: readonly Uint8Array[]): boolean {
  if (index < 0 || index >= count) return false;
  const computed = fold(leafHash(item), index, 0, count, path, { i: path.length });
  return computed !== null && computed.length === root.length && computed.every((b, i) => b === root[i]);
}

// Walks the same splits as `collect`, consuming the path from its end (the root side) downwards.
function fold(leaf: Uint8Array, index: number, start: number, end: number, path: readonly Uint8Array[], cursor: { i: number }): Uint8Array | null {
  const n = end - start;
  if (n === 1) return cursor.i === 0 ? leaf : null;
  const k = splitPoint(n);
  const sibling = path[--cursor.i];
  if (!sibling) return null;
  if (index < start + k) {
    const left = fold(leaf, index, start, start + k, path, cursor);
    return left && nodeHash(left, sibling);
  }
  const right = fold(leaf, index, start + k, end, path, cursor);
  return right && nodeHash(sibling, right);
}
