import { LRUCache } from 'lru-cache';
import type { KvBatch, KvReader } from '../kv.js';
import { CorruptNodeError } from './errors.js';
import { KEY_BITS, HASH_BYTES, bitAt, equalHash, hashKey, hashKeyString, hashValue, isEmptyHash } from './hashing.js';
import { MAX_VERSION, encodeNodeInto, encodedLength, type TreeNode } from './node-codec.js';
import { NodeKeys, decodeRootRecord, encodeRootRecord, type RootRecord } from './node-keys.js';
import { NodeSource } from './node-source.js';
import { toProofHash, type StateProof } from './proof.js';
import { Rewrite, type Entry } from './rewrite.js';
import { SlotKind, UpperLevels } from './upper-levels.js';
import { TreeBulkBuild } from './bulk-build.js';

export interface StateTreeOptions {
  /** Prepended to every node's storage key, so the tree can share a database with other data. */
  prefix?: Uint8Array;
  /**
   * Byte budget of the upper levels of the tree kept by position (see UpperLevels): levels 0..L
   * cost (2^(L+1) − 1) × 39 bytes, allocated only as the tree fills them. 0 disables them.
   */
  upperLevelsBytes?: number;
  /** Capacity of the LRU of decoded nodes below the upper levels; 0 disables it. */
  cacheNodes?: number;
  /**
   * How many nodes of updates whose batches may not be written yet are kept in memory (the newest
   * update's nodes are always kept, whatever their number). See NodeSource.
   */
  pendingNodes?: number;
  /**
   * Rehash every node that `get` and `prove` read from the store, and what fills the upper levels,
   * and refuse one that does not match its address (default true). `update` never rehashes the
   * other nodes it reads: they only feed the new root, which consensus compares across validators.
   * Off, nothing is rehashed; only for stores whose integrity is checked some other way.
   */
  verifyReads?: boolean;
}

/**
 * A change to one key: its new value (null = delete) and, optionally, what the caller knows of the
 * old one: `oldValue` = the key's value committed under the root being updated. The tree needs no
 * such hint and never trusts one: only where memory cannot answer a position on the key's path does
 * it hash the hint, and a position whose hash equals the leaf H(0x00 ‖ keyHash ‖ SHA3(oldValue)) is
 * this key's leaf (by the hash's collision resistance and the leaf/internal tags), so that leaf
 * need not be read; a wrong old value matches no position and the update reads as it would without
 * it. The chain's commit path, which read the old values while executing, can pass them; see
 * README.md ("Hints").
 */
export type StateChange = readonly [key: Uint8Array, value: Uint8Array | null, oldValue?: Uint8Array];

/** The default namespace of tree nodes in a shared store. */
export const DEFAULT_NODE_PREFIX: Uint8Array = new TextEncoder().encode('smt/');
/** Levels 0..20 (2^21 − 1 slots, 78 MiB): the internal nodes of a 10^6-key tree but the lowest. */
const DEFAULT_UPPER_LEVELS_BYTES = 80 * 2 ** 20;
/**
 * Leaves and nodes below the upper levels (~300 bytes each decoded, ~5 MiB). A small tree's lower
 * part fits (at 10^3 keys a few thousand nodes, rewritten every few blocks); in a big tree
 * reads below the upper levels spread over millions of nodes, so more entries buy almost nothing
 * while each entry is a long-lived object: at 10^6 keys 50,000 entries saved 0.04 store reads a
 * changed key against 16,384 and cost more main-thread CPU a key in 2 rounds of 3 (as much in the
 * third); 5,000 was as cheap at 10^6 but missed at 10^3 (0.01 → 0.30 reads a key). Figures:
 * docs/performance.md, "The tree's node LRU".
 */
const DEFAULT_CACHE_NODES = 16_384;
const DEFAULT_PENDING_NODES = 250_000;
/** Nodes read per store call when filling the upper levels ahead of need. */
const WARM_BATCH = 2048;
/** Slots of a level the warm-up scans between yields to the event loop (a power of two). */
const WARM_SCAN_YIELD = 65_536;

/** What `warmUpperLevels` did: the nodes it read, and whether it read every level the cache keeps. */
export interface UpperLevelsWarmUp {
  readonly nodes: number;
  readonly complete: boolean;
}
/** Rough decoded size of a cached node (object, three arrays, LRU entry), for memoryBytes. */
const CACHED_NODE_BYTES = 300;
/** Roots whose records this process wrote or read: a chain needs the last few, a proven read one more. */
const ROOT_RECORDS_CACHED = 1024;
/** What a root stored before versions is: its node keyed by hash alone, and no update numbered. */
const LEGACY_ROOT: RootRecord = { nodeVersion: 0, updateVersion: 0 };

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
  private readonly keys: NodeKeys;
  private readonly store: KvReader;
  /** Root records read from the store, by root hex: written, so whatever they name is stored. */
  private readonly storedRoots = new LRUCache<string, RootRecord>({ max: ROOT_RECORDS_CACHED });
  /**
   * Root records of this process's updates since `releasePending`, whose batches may or may not be
   * written: consulted only for a root the store has no record of, and dropped with the pending nodes.
   */
  private readonly pendingRoots = new Map<string, RootRecord>();
  /** The highest version this process has stored nodes at or read as a root's update. */
  private lastVersion = 0;
  private readonly upper: UpperLevels;
  private readonly cacheNodes: number;
  private hinted = 0;

  constructor(store: KvReader, options: StateTreeOptions = {}) {
    const prefix = (options.prefix ?? DEFAULT_NODE_PREFIX).slice();
    const cacheNodes = options.cacheNodes ?? DEFAULT_CACHE_NODES;
    const pendingNodes = options.pendingNodes ?? DEFAULT_PENDING_NODES;
    const upperBytes = options.upperLevelsBytes ?? DEFAULT_UPPER_LEVELS_BYTES;
    if (!Number.isSafeInteger(cacheNodes) || cacheNodes < 0) throw new RangeError('cacheNodes must be a non-negative integer');
    if (!Number.isSafeInteger(pendingNodes) || pendingNodes < 0) throw new RangeError('pendingNodes must be a non-negative integer');
    if (!Number.isSafeInteger(upperBytes) || upperBytes < 0) throw new RangeError('upperLevelsBytes must be a non-negative integer');
    this.store = store;
    this.keys = new NodeKeys(prefix);
    this.nodes = new NodeSource(store, this.keys, cacheNodes, pendingNodes, options.verifyReads ?? true);
    this.upper = new UpperLevels(upperBytes);
    this.cacheNodes = cacheNodes;
  }

  /**
   * Applies a set of changes (value null = delete) to the tree with root `root`; writes every new
   * node into `batch` (under the prefix) and returns the new root. The same root and the same set
   * of changes give the same new root regardless of the order of `changes`; for a key given twice
   * the last change wins. Only the paths to changed keys are read and rewritten: O(k log n) nodes,
   * of which those in the upper levels cost no read. Nothing is put into `batch` if the update fails.
   *
   * The new nodes are stored at a version above both the update that made `root` (0 for an empty
   * root or one stored before versions) and every version this process used before, so keys grow
   * with each block and no two updates of one process share a version: a node object in memory then
   * stands for one update's record only, and one whose batch was dropped (a proposal that did not
   * commit) can never be taken for another update's, even where both made the same node.
   */
  async update(root: Uint8Array, changes: ReadonlyArray<StateChange>, batch: KvBatch): Promise<Uint8Array> {
    checkRoot(root);
    const entries = normaliseChanges(changes);
    if (entries.length === 0) return root.slice();
    const base = await this.rootRecord(root);
    const version = this.nextVersion(base.updateVersion);
    // The upper levels follow the chain: an update goes on from the latest one's root.
    const positional = this.upper.moveTo(root, base.nodeVersion, true);
    const rewrite = new Rewrite(this.nodes, this.upper, entries, positional, version);
    const baseVersion = this.upper.version;
    const next = await rewrite.run(root, base.nodeVersion);
    this.hinted += rewrite.hintedLeaves;
    this.putNodes(rewrite.created, batch);
    this.nodes.addGeneration(rewrite.created, (i) => rewrite.createdInUpper(i));
    if (!equalHash(next.hash, root) && !isEmptyHash(next.hash)) this.putRoot(next.hash, { nodeVersion: next.version, updateVersion: version }, batch);
    if (rewrite.recordable && !equalHash(next.hash, root)) this.upper.record(baseVersion, next.hash, next.version, rewrite.writes);
    return next.hash.slice();
  }

  private nextVersion(after: number): number {
    const version = Math.max(after, this.lastVersion) + 1;
    if (version > MAX_VERSION) throw new RangeError('the state tree has used every node version');
    this.lastVersion = version;
    return version;
  }

  /**
   * Where the node of `root` is stored and which update made it. The store's record first: it was
   * written with the nodes it names. Else this process's record of an update whose batch may not be
   * written yet (its nodes are then in the pending set). A root with neither was stored before
   * versions (or is unknown, and its first read reports it missing).
   */
  private async rootRecord(root: Uint8Array): Promise<RootRecord> {
    if (isEmptyHash(root)) return LEGACY_ROOT;
    const hex = hashKeyString(root);
    const stored = this.storedRoots.get(hex);
    if (stored !== undefined) return stored;
    const bytes = await this.store.get(this.keys.rootKey(root));
    if (bytes === undefined) return this.pendingRoots.get(hex) ?? LEGACY_ROOT;
    const record = decodeRootRecord(bytes);
    if (record === undefined) throw new CorruptNodeError(`root record of ${bytes.length} bytes`);
    this.storedRoots.set(hex, record);
    this.lastVersion = Math.max(this.lastVersion, record.updateVersion);
    return record;
  }

  private putRoot(root: Uint8Array, record: RootRecord, batch: KvBatch): void {
    this.pendingRoots.set(hashKeyString(root), record);
    batch.put(this.keys.rootKey(root), encodeRootRecord(record));
  }

  /**
   * Puts the nodes' storage keys and stored forms into the batch as views of one array: two
   * allocations per node (a 100-key block at 10^6 keys writes ~1,550 nodes: ~3,100 allocations)
   * become one per update, and the GC tracks one buffer instead of thousands. The views are never
   * written after this.
   */
  private putNodes(nodes: readonly TreeNode[], batch: KvBatch): void {
    let total = 0;
    for (const node of nodes) total += this.keys.nodeKeyLength(node.version) + encodedLength(node);
    const slab = new Uint8Array(total);
    let at = 0;
    for (const node of nodes) {
      const keyBytes = this.keys.nodeKeyLength(node.version);
      const key = slab.subarray(at, at + keyBytes);
      this.keys.nodeKeyInto(node.hash, node.version, key);
      at += keyBytes;
      const value = slab.subarray(at, at + encodedLength(node));
      encodeNodeInto(node, value);
      at += value.length;
      batch.put(key, value);
    }
  }

  async get(root: Uint8Array, key: Uint8Array): Promise<Uint8Array | undefined> {
    checkRoot(root);
    const keyHash = hashKey(key);
    let found: Uint8Array | undefined;
    await this.walk(root, keyHash, (node) => {
      if (node !== null && equalHash(node.keyHash, keyHash)) found = node.value.slice();
    });
    return found;
  }

  /** Membership proof if `key` is in the tree under `root`, non-membership proof otherwise. */
  async prove(root: Uint8Array, key: Uint8Array): Promise<StateProof> {
    checkRoot(root);
    const keyHash = hashKey(key);
    const siblings: string[] = [];
    let leaf: StateProof['leaf'] = null;
    await this.walk(root, keyHash, (node) => {
      if (node !== null) leaf = { keyHash: toProofHash(node.keyHash), valueHash: toProofHash(hashValue(node.value)) };
    }, (sibling) => siblings.push(toProofHash(sibling)));
    return { leaf, siblings };
  }

  /**
   * Reads the upper levels of `root` ahead of need, breadth first, a few thousand nodes per store
   * call, so the blocks after a start do not pay for them one path at a time. Safe to run beside
   * updates and reads: each fill is checked against the slot's current hash, and the cache follows
   * the updates meanwhile. Only an empty cache is started at `root`; one that holds another version
   * (the chain moved on before this began) is left alone, since throwing the head's levels away would
   * cost the blocks more than this saves: the warm-up then reads nothing and is not `complete`, and
   * the caller may start it again at the new head. It also stops, not `complete`, once the cache
   * starts afresh at an unrelated root or between store calls once `signal` is aborted.
   */
  async warmUpperLevels(root: Uint8Array, signal?: AbortSignal): Promise<UpperLevelsWarmUp> {
    checkRoot(root);
    if (!this.upper.enabled) return { nodes: 0, complete: true };
    const stopped = (): boolean => signal?.aborted === true;
    if (stopped()) return { nodes: 0, complete: false };
    const base = await this.rootRecord(root);
    if (!this.upper.moveTo(root, base.nodeVersion, !this.upper.holdsRoot)) return { nodes: 0, complete: false };
    const resets = this.upper.resets;
    let read = 0;
    for (let depth = 0; depth <= this.upper.lastLevel && this.upper.isCached(depth); depth++) {
      const slots: number[] = [];
      const first = 2 ** depth;
      for (let slot = first; slot < 2 * first; slot++) {
        // A level of 2^20 slots is a long scan for an event loop that also votes.
        if ((slot & (WARM_SCAN_YIELD - 1)) === 0 && slot > first) {
          await new Promise<void>((resolve) => setImmediate(resolve));
          if (this.upper.resets !== resets || stopped()) return { nodes: read, complete: false };
        }
        const kind = this.upper.kindAt(depth, slot);
        // An INTERNAL slot is worth reading again only if the level below now exists to expand into.
        if (kind !== SlotKind.UNKNOWN && !(kind === SlotKind.INTERNAL && this.upper.isCached(depth + 1))) continue;
        // Only positions the root reaches: their parent is expanded.
        if (depth > 0 && this.upper.kindAt(depth - 1, slot >>> 1) !== SlotKind.EXPANDED) continue;
        slots.push(slot);
      }
      this.upper.prepareBelow(depth, slots.length);
      for (let i = 0; i < slots.length; i += WARM_BATCH) {
        if (this.upper.resets !== resets || stopped()) return { nodes: read, complete: false };
        const chunk = slots.slice(i, i + WARM_BATCH).filter((slot) => this.upper.isCached(depth));
        const hashes = chunk.map((slot) => this.upper.hashAt(depth, slot).slice());
        const versions = chunk.map((slot) => this.upper.versionAt(depth, slot));
        const nodes = await this.nodes.loadMany(hashes, versions, true);
        read += nodes.length;
        chunk.forEach((slot, j) => this.upper.fill(depth, slot, hashes[j]!, nodes[j]!));
      }
    }
    return { nodes: read, complete: true };
  }

  /**
   * A build of a whole tree from scratch into this tree's store (genesis ranges, a snapshot), each
   * node written once: see TreeBulkBuild. Its root is what `update` from EMPTY_ROOT with the same
   * keys would give. `expectedKeys` sizes its arrays (they grow past it).
   */
  bulkBuild(expectedKeys?: number): TreeBulkBuild {
    return new TreeBulkBuild(this.keys, this.nextVersion(0), expectedKeys, (root, record) => this.pendingRoots.set(hashKeyString(root), record));
  }

  /**
   * Old leaves that updates recognised by their old-value hint instead of reading them, since this
   * tree was made: what tells a test that a hint was used, not only harmless.
   */
  get hintedLeaves(): number {
    return this.hinted;
  }

  /**
   * Drops the in-memory copies of nodes and root records from past updates: call once the batches
   * to keep are written (those dropped instead, a proposal that did not commit, are then gone).
   */
  releasePending(): void {
    this.nodes.releasePending();
    this.pendingRoots.clear();
  }

  /** What the tree's caches hold, roughly, in bytes: the upper levels exactly, the LRU estimated. */
  memoryBytes(): number {
    return this.upper.memoryBytes() + Math.min(this.cacheNodes, this.nodes.cachedCount) * CACHED_NODE_BYTES + this.nodes.pendingSize * CACHED_NODE_BYTES;
  }

  /**
   * Follows `keyHash`'s path from `root` to where it ends, through the upper levels while they
   * hold `root` and by node reads below; `sibling` sees each sibling hash root side first, `end`
   * the leaf found (or null for an empty subtree).
   */
  private async walk(root: Uint8Array, keyHash: Uint8Array, end: (leaf: Extract<TreeNode, { kind: 'leaf' }> | null) => void, sibling?: (hash: Uint8Array) => void): Promise<void> {
    const base = await this.rootRecord(root);
    const positional = this.upper.moveTo(root, base.nodeVersion, false);
    const version = this.upper.version;
    let hash = root;
    let nodeVersion = base.nodeVersion;
    let slot = 1;
    for (let depth = 0; ; depth++) {
      if (isEmptyHash(hash)) return end(null);
      const byPosition = positional && this.upper.version === version && this.upper.isCached(depth);
      if (byPosition && this.upper.kindAt(depth, slot) === SlotKind.EXPANDED) {
        if (depth >= KEY_BITS) throw new CorruptNodeError('internal node below depth 255');
        const right = bitAt(keyHash, depth) === 1;
        const child = 2 * slot + (right ? 1 : 0);
        if (sibling !== undefined) sibling(this.upper.hashAt(depth + 1, child ^ 1).slice());
        hash = this.upper.hashAt(depth + 1, child).slice();
        nodeVersion = this.upper.versionAt(depth + 1, child);
        slot = child;
        continue;
      }
      const node = await this.nodes.load(hash, nodeVersion);
      if (byPosition && this.upper.version === version) this.upper.fill(depth, slot, hash, node);
      if (node.kind === 'leaf') return end(node);
      if (depth >= KEY_BITS) throw new CorruptNodeError('internal node below depth 255');
      const right = bitAt(keyHash, depth) === 1;
      if (sibling !== undefined) sibling(right ? node.left : node.right);
      hash = right ? node.right : node.left;
      nodeVersion = right ? node.rightVersion : node.leftVersion;
      slot = 2 * slot + (right ? 1 : 0);
    }
  }
}

/** Hashes keys, keeps the last change per key and sorts by key hash (the tree's order). */
function normaliseChanges(changes: ReadonlyArray<StateChange>): Entry[] {
  const byKey = new Map<string, Entry>();
  for (const change of changes) {
    const [key, value, oldValue] = change;
    if (!(key instanceof Uint8Array)) throw new TypeError('state key must be a Uint8Array');
    if (value !== null && !(value instanceof Uint8Array)) throw new TypeError('state value must be a Uint8Array or null');
    if (oldValue !== undefined && !(oldValue instanceof Uint8Array)) throw new TypeError('old value must be a Uint8Array');
    const keyHash = hashKey(key);
    const sortKey = hashKeyString(keyHash);
    // Every change to one key describes the same old value, so an earlier change's hint still holds.
    const hint = oldValue ?? byKey.get(sortKey)?.oldValue ?? null;
    // A later change to the same key replaces the earlier one. Values are copied: the caller may
    // reuse its buffers, and the nodes built from them are cached. The old value is not: it is
    // only hashed during this update and dropped with it, and whatever bytes it holds when hashed,
    // a match still proves the leaf (a changed buffer can only cost the read the hint would save).
    byKey.set(sortKey, { keyHash, sortKey, value: value === null ? null : value.slice(), oldValue: hint });
  }
  return [...byKey.values()].sort((a, b) => (a.sortKey < b.sortKey ? -1 : a.sortKey > b.sortKey ? 1 : 0));
}
