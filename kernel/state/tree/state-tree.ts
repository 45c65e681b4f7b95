import { setImmediate as yieldToLoop } from 'node:timers/promises';
import type { KvBatch, KvReader } from '../../store/kv.js';
import { CorruptNodeError } from './errors.js';
import { KEY_BITS, HASH_BYTES, bitAt, emptyHash, equalHash, hashKey, hashKeyString, isEmptyHash } from './hashing.js';
import { encodeNode, makeInternal, makeLeaf, type LeafNode, type TreeNode } from './node-codec.js';
import { NodeSource } from './node-source.js';
import { toProofHash, type StateProof } from './proof.js';

export interface StateTreeOptions {
  /** Prepended to every node's storage key, so the tree can share a database with other data. */
  prefix?: Uint8Array;
  /** Capacity of the LRU of decoded nodes; 0 disables it. */
  cacheNodes?: number;
  /**
   * How many nodes of updates whose batches may not be written yet are kept in memory (the newest
   * update's nodes are always kept, whatever their number). See NodeSource.
   */
  pendingNodes?: number;
  /**
   * Rehash every node read from the store and refuse one that does not match its address
   * (default true). Turning it off saves about one SHA3 per uncached read; only for stores whose
   * integrity is checked some other way.
   */
  verifyReads?: boolean;
}

export type StateChange = readonly [key: Uint8Array, value: Uint8Array | null];

/** The default namespace of tree nodes in a shared store. */
export const DEFAULT_NODE_PREFIX: Uint8Array = new TextEncoder().encode('smt/');
const DEFAULT_CACHE_NODES = 100_000;
const DEFAULT_PENDING_NODES = 250_000;
/**
 * Nodes visited between two yields to the event loop. With its nodes cached an update runs in
 * microtasks alone; a block of ~180 transfers (~360 changed keys) hashed 30–60 ms without letting a
 * timer, vote or RPC in. 128 visits are ~1–2 ms. The result does not depend on where it yields:
 * an update reads nodes and collects new ones, and publishes them only when it returns.
 */
const YIELD_EVERY_NODES = 128;

/** Counts down the visits of one update to its next yield. */
interface Pace {
  untilYield: number;
}

/** A change after hashing its key; `value` is the tree's own copy. */
interface Entry {
  readonly keyHash: Uint8Array;
  readonly sortKey: string;
  readonly value: Uint8Array | null;
}

type SubKind = 'empty' | 'leaf' | 'internal' | 'unknown';

/**
 * A rebuilt subtree. Leaves are position independent (their hash has no depth in it), so a lone
 * leaf can move up when its sibling subtree empties; 'unknown' marks an untouched child whose
 * kind is only read from the store if that question ever arises.
 */
interface Sub {
  readonly hash: Uint8Array;
  readonly kind: SubKind;
}

const EMPTY_SUB: Sub = { hash: emptyHash(), kind: 'empty' };

function untouched(hash: Uint8Array): Sub {
  return isEmptyHash(hash) ? EMPTY_SUB : { hash, kind: 'unknown' };
}

/** First index in [lo, hi) whose key hash has bit `depth` set; the range is sorted by key hash. */
function splitIndex(items: ReadonlyArray<{ readonly keyHash: Uint8Array }>, lo: number, hi: number, depth: number): number {
  // Items in one subtree share every bit above `depth`, so sorted order puts the 0s first.
  let a = lo;
  let b = hi;
  while (a < b) {
    const m = (a + b) >>> 1;
    if (bitAt(items[m]!.keyHash, depth) === 0) a = m + 1;
    else b = m;
  }
  return a;
}

function checkRoot(root: Uint8Array): void {
  if (!(root instanceof Uint8Array) || root.length !== HASH_BYTES) throw new TypeError('state root must be 32 bytes');
}

/**
 * The authenticated state: a compact binary sparse Merkle tree over SHA3-256(key). A leaf sits at
 * the shortest prefix of its key hash that no other key shares; internal nodes have two children,
 * one of which may be the empty subtree. The shape is a function of the key set alone, so the root
 * is too, whatever the order or batching of the updates that produced it (history independence).
 * See README.md for layout, proof format and costs.
 */
export class StateTree {
  private readonly nodes: NodeSource;

  constructor(store: KvReader, options: StateTreeOptions = {}) {
    const prefix = (options.prefix ?? DEFAULT_NODE_PREFIX).slice();
    const cacheNodes = options.cacheNodes ?? DEFAULT_CACHE_NODES;
    const pendingNodes = options.pendingNodes ?? DEFAULT_PENDING_NODES;
    if (!Number.isSafeInteger(cacheNodes) || cacheNodes < 0) throw new RangeError('cacheNodes must be a non-negative integer');
    if (!Number.isSafeInteger(pendingNodes) || pendingNodes < 0) throw new RangeError('pendingNodes must be a non-negative integer');
    this.nodes = new NodeSource(store, prefix, cacheNodes, pendingNodes, options.verifyReads ?? true);
  }

  /**
   * Applies a set of changes (value null = delete) to the tree with root `root`; writes every new
   * node into `batch` (under the prefix) and returns the new root. The same root and the same set
   * of changes give the same new root regardless of the order of `changes`; for a key given twice
   * the last change wins. Only the paths to changed keys are read and rewritten: O(k log n) nodes.
   * Nothing is put into `batch` if the update fails.
   */
  async update(root: Uint8Array, changes: ReadonlyArray<StateChange>, batch: KvBatch): Promise<Uint8Array> {
    checkRoot(root);
    const entries = normaliseChanges(changes);
    if (entries.length === 0) return root.slice();
    const created: TreeNode[] = [];
    const result = await this.applyAt(root, 0, entries, 0, entries.length, created, { untilYield: YIELD_EVERY_NODES });
    for (const node of created) batch.put(this.nodes.storageKey(node.hash), encodeNode(node));
    this.nodes.addGeneration(created);
    return result.hash.slice();
  }

  async get(root: Uint8Array, key: Uint8Array): Promise<Uint8Array | undefined> {
    checkRoot(root);
    const keyHash = hashKey(key);
    let hash = root;
    for (let depth = 0; ; depth++) {
      if (isEmptyHash(hash)) return undefined;
      const node = await this.nodes.load(hash);
      if (node.kind === 'leaf') return equalHash(node.keyHash, keyHash) ? node.value.slice() : undefined;
      if (depth >= KEY_BITS) throw new CorruptNodeError('internal node below depth 255');
      hash = bitAt(keyHash, depth) === 0 ? node.left : node.right;
    }
  }

  /** Membership proof if `key` is in the tree under `root`, non-membership proof otherwise. */
  async prove(root: Uint8Array, key: Uint8Array): Promise<StateProof> {
    checkRoot(root);
    const keyHash = hashKey(key);
    const siblings: string[] = [];
    let hash = root;
    for (let depth = 0; ; depth++) {
      if (isEmptyHash(hash)) return { leaf: null, siblings };
      const node = await this.nodes.load(hash);
      if (node.kind === 'leaf') {
        return { leaf: { keyHash: toProofHash(node.keyHash), valueHash: toProofHash(node.valueHash) }, siblings };
      }
      if (depth >= KEY_BITS) throw new CorruptNodeError('internal node below depth 255');
      const right = bitAt(keyHash, depth) === 1;
      siblings.push(toProofHash(right ? node.left : node.right));
      hash = right ? node.right : node.left;
    }
  }

  /** Drops the in-memory copies of nodes from past updates: call once their batches are written. */
  releasePending(): void {
    this.nodes.releasePending();
  }

  /** Rewrites the subtree at `hash` (depth `depth`) with entries [lo, hi), all routed to it. */
  private async applyAt(hash: Uint8Array, depth: number, entries: readonly Entry[], lo: number, hi: number, created: TreeNode[], pace: Pace): Promise<Sub> {
    if (--pace.untilYield <= 0) {
      pace.untilYield = YIELD_EVERY_NODES;
      await yieldToLoop();
    }
    if (isEmptyHash(hash)) return buildSubtree(depth, entries, lo, hi, null, created);
    const node = await this.nodes.load(hash);
    if (node.kind === 'leaf') return buildSubtree(depth, entries, lo, hi, node, created);
    if (depth >= KEY_BITS) throw new CorruptNodeError('internal node below depth 255');
    const mid = splitIndex(entries, lo, hi, depth);
    const left = mid > lo ? await this.applyAt(node.left, depth + 1, entries, lo, mid, created, pace) : untouched(node.left);
    const right = hi > mid ? await this.applyAt(node.right, depth + 1, entries, mid, hi, created, pace) : untouched(node.right);
    // No-op changes (same value, deleting an absent key) leave the node as it is: no rewrite.
    if (equalHash(left.hash, node.left) && equalHash(right.hash, node.right)) return { hash: node.hash, kind: 'internal' };
    return this.join(left, right, created);
  }

  /** Parent of two rebuilt children, kept canonical: a lone leaf or nothing never gets a parent. */
  private async join(left: Sub, right: Sub, created: TreeNode[]): Promise<Sub> {
    if (left.kind === 'empty' && right.kind === 'empty') return EMPTY_SUB;
    if (left.kind === 'empty' && (await this.kindOf(right)) === 'leaf') return { hash: right.hash, kind: 'leaf' };
    if (right.kind === 'empty' && (await this.kindOf(left)) === 'leaf') return { hash: left.hash, kind: 'leaf' };
    const node = makeInternal(left.hash, right.hash);
    created.push(node);
    return { hash: node.hash, kind: 'internal' };
  }

  private async kindOf(sub: Sub): Promise<SubKind> {
    if (sub.kind !== 'unknown') return sub.kind;
    return (await this.nodes.load(sub.hash)).kind;
  }
}

/** Hashes keys, keeps the last change per key and sorts by key hash (the tree's order). */
function normaliseChanges(changes: ReadonlyArray<StateChange>): Entry[] {
  const byKey = new Map<string, Entry>();
  for (const change of changes) {
    const [key, value] = change;
    if (!(key instanceof Uint8Array)) throw new TypeError('state key must be a Uint8Array');
    if (value !== null && !(value instanceof Uint8Array)) throw new TypeError('state value must be a Uint8Array or null');
    const keyHash = hashKey(key);
    const sortKey = hashKeyString(keyHash);
    // A later change to the same key replaces the earlier one. Values are copied: the caller may
    // reuse its buffers, and the nodes built from them are cached.
    byKey.set(sortKey, { keyHash, sortKey, value: value === null ? null : value.slice() });
  }
  return [...byKey.values()].sort((a, b) => (a.sortKey < b.sortKey ? -1 : a.sortKey > b.sortKey ? 1 : 0));
}

/**
 * Builds the subtree at `depth` holding `existing` (the leaf that was there, if any) merged with
 * entries [lo, hi). Every live entry becomes exactly one leaf, so this is linear in the entries.
 */
function buildSubtree(depth: number, entries: readonly Entry[], lo: number, hi: number, existing: LeafNode | null, created: TreeNode[]): Sub {
  const leaves: LeafNode[] = [];
  let existingPending = existing;
  const existingKey = existing === null ? '' : hashKeyString(existing.keyHash);
  for (let i = lo; i < hi; i++) {
    const entry = entries[i]!;
    if (existingPending !== null) {
      if (existingKey < entry.sortKey) {
        leaves.push(existingPending);
        existingPending = null;
      } else if (existingKey === entry.sortKey) {
        const replaced = existingPending;
        existingPending = null;
        if (entry.value === null) continue;
        const leaf = makeLeaf(entry.keyHash, entry.value);
        // Writing a key's current value again changes nothing and writes nothing.
        if (equalHash(leaf.hash, replaced.hash)) leaves.push(replaced);
        else {
          leaves.push(leaf);
          created.push(leaf);
        }
        continue;
      }
    }
    if (entry.value === null) continue;
    const leaf = makeLeaf(entry.keyHash, entry.value);
    leaves.push(leaf);
    created.push(leaf);
  }
  if (existingPending !== null) leaves.push(existingPending);
  return buildLeaves(depth, leaves, 0, leaves.length, created);
}

function buildLeaves(depth: number, leaves: readonly LeafNode[], lo: number, hi: number, created: TreeNode[]): Sub {
  if (hi === lo) return EMPTY_SUB;
  if (hi - lo === 1) return { hash: leaves[lo]!.hash, kind: 'leaf' };
  // Two distinct 256-bit key hashes differ somewhere, so this recursion ends by depth 256.
  const mid = splitIndex(leaves, lo, hi, depth);
  const left = buildLeaves(depth + 1, leaves, lo, mid, created);
  const right = buildLeaves(depth + 1, leaves, mid, hi, created);
  const node = makeInternal(left.hash, right.hash);
  created.push(node);
  return { hash: node.hash, kind: 'internal' };
}
