import { LRUCache } from 'lru-cache';
import type { KvReader } from '../kv.js';
import { MissingNodeError } from './errors.js';
import { decodeNode, type TreeNode } from './node-codec.js';
import { equalHash, hashKeyString } from './hashing.js';
import type { NodeKeys } from './node-keys.js';

interface PendingEntry {
  readonly node: TreeNode;
  generation: number;
}

/**
 * Where the tree reads nodes from: nodes written by recent `update` calls (whose batches may not
 * have reached the store yet), then an LRU of decoded nodes, then the store.
 *
 * The pending set is what lets a second `update` build on the root of a first one before the
 * first batch is written. It is kept per update ("generation"); the newest generation is always
 * kept whole, older ones are dropped oldest first once the set exceeds its budget, and
 * `releasePending` drops all of them once the caller knows its batches are on disk. Dropping is
 * only ever a performance matter for written nodes; for never-written ones a read then fails with
 * MissingNodeError rather than producing a wrong answer, because every node is addressed by hash.
 *
 * Memory is keyed like the store, by hash and version: a node object names where its children are
 * stored, and two updates that made the same node (same hash) may name different places, one of
 * them perhaps never written (a proposal that did not commit). A lookup therefore only finds the
 * object made for the very record asked for, never another version's.
 */
export class NodeSource {
  private readonly cache: LRUCache<number, TreeNode> | null;
  /**
   * Keyed by 32 bits of the hash (cacheId), which a Map hashes far faster than a 64-character hex
   * string and which costs no string per node; a second pending node under an id already taken
   * goes to `pendingClash` under its full hex, so no node is ever shadowed (with ~1,550 pending
   * nodes a block at 10^6 keys, ~3·10^-4 clashes a block).
   */
  private readonly pending = new Map<number, PendingEntry>();
  private readonly pendingClash = new Map<string, PendingEntry>();
  /** The nodes of each retained generation, oldest first, for eviction in order. */
  private readonly generations: Array<{ id: number; nodes: readonly TreeNode[] }> = [];
  private pendingCount = 0;
  private nextGeneration = 0;

  constructor(
    private readonly store: KvReader,
    readonly keys: NodeKeys,
    cacheNodes: number,
    private readonly pendingBudget: number,
    private readonly verifyReads: boolean,
  ) {
    // lru-cache refuses max 0; 0 means "no cache" here, which tests use to count real reads.
    this.cache = cacheNodes > 0 ? new LRUCache<number, TreeNode>({ max: cacheNodes }) : null;
  }

  /**
   * The node with hash `hash` stored at `version`. `verify` rehashes a node read from the store (see
   * StateTree's verifyReads); nodes from memory were built or checked by this process already.
   */
  async load(hash: Uint8Array, version: number, verify = this.verifyReads): Promise<TreeNode> {
    return this.inMemory(hash, version) ?? this.decodeRead(hash, version, await this.store.get(this.keys.nodeKey(hash, version)), verify);
  }

  /** A node this process holds (pending or cached), without touching the store. */
  inMemory(hash: Uint8Array, version: number): TreeNode | undefined {
    // pendingCount, not pending.size: a clash entry can outlive the entry that took its id.
    const pending = this.pendingCount === 0 ? undefined : this.pendingEntry(hash, version);
    if (pending !== undefined) return pending.node;
    if (this.cache === null) return undefined;
    const cached = this.cache.get(cacheId(hash));
    // The id is 32 bits of the hash: a different node (or version) under the same id is a miss, never a hit.
    return cached !== undefined && cached.version === version && equalHash(cached.hash, hash) ? cached : undefined;
  }

  /**
   * Several nodes at once, in the order asked: what memory lacks is read in one store call when the
   * store can (LevelDB's getMany), so a level of a block's paths costs one trip, not one per node.
   */
  async loadMany(hashes: readonly Uint8Array[], versions: readonly number[], verify = this.verifyReads): Promise<TreeNode[]> {
    const out = new Array<TreeNode>(hashes.length);
    const missing: number[] = [];
    for (let i = 0; i < hashes.length; i++) {
      const node = this.inMemory(hashes[i]!, versions[i]!);
      if (node !== undefined) out[i] = node;
      else missing.push(i);
    }
    if (missing.length === 0) return out;
    const keys = missing.map((i) => this.keys.nodeKey(hashes[i]!, versions[i]!));
    const values = this.store.getMany !== undefined && keys.length > 1 ? await this.store.getMany(keys) : await Promise.all(keys.map((k) => this.store.get(k)));
    for (let j = 0; j < missing.length; j++) {
      const i = missing[j]!;
      out[i] = this.decodeRead(hashes[i]!, versions[i]!, values[j], verify);
    }
    return out;
  }

  private decodeRead(hash: Uint8Array, version: number, bytes: Uint8Array | undefined, verify: boolean): TreeNode {
    if (bytes === undefined) throw new MissingNodeError(version === 0 ? hashKeyString(hash) : `${hashKeyString(hash)} at version ${version}`);
    const node = decodeNode(bytes, hash, verify, version);
    // Unverified nodes are kept too: each caller that wants verification rehashes what it reads
    // from the store, and a cached node was either verified or written by this process.
    if (verify || !this.verifyReads) this.cache?.set(cacheId(hash), node);
    return node;
  }

  /**
   * Records the nodes one `update` wrote, so later reads find them before the batch is applied.
   * `inUpperLevels(i)`: node i sits where the upper levels will hold it, so the LRU need not; the
   * LRU is kept for leaves and the nodes below.
   */
  addGeneration(nodes: readonly TreeNode[], inUpperLevels: (index: number) => boolean = () => false): void {
    if (nodes.length === 0) return;
    const generation = this.nextGeneration++;
    for (let i = 0; i < nodes.length; i++) {
      const node = nodes[i]!;
      const existing = this.pendingEntry(node.hash, node.version);
      if (existing !== undefined) existing.generation = generation;
      else {
        const id = cacheId(node.hash);
        if (this.pending.has(id)) this.pendingClash.set(clashKey(node.hash, node.version), { node, generation });
        else this.pending.set(id, { node, generation });
        this.pendingCount++;
      }
      // Recently written paths are what the next block reads.
      if (!inUpperLevels(i)) this.cache?.set(cacheId(node.hash), node);
    }
    this.generations.push({ id: generation, nodes });
    while (this.generations.length > 1 && this.pendingCount > this.pendingBudget) this.dropOldestGeneration();
  }

  /** Forget every pending node: call once all batches returned by `update` so far are written. */
  releasePending(): void {
    this.pending.clear();
    this.pendingClash.clear();
    this.generations.length = 0;
    this.pendingCount = 0;
  }

  get cachedCount(): number {
    return this.cache?.size ?? 0;
  }

  get pendingSize(): number {
    return this.pendingCount;
  }

  private dropOldestGeneration(): void {
    const oldest = this.generations.shift();
    if (oldest === undefined) return;
    for (const node of oldest.nodes) {
      const id = cacheId(node.hash);
      const entry = this.pending.get(id);
      // A node re-created by a newer update belongs to that newer generation now.
      if (entry !== undefined && entry.node.version === node.version && equalHash(entry.node.hash, node.hash)) {
        if (entry.generation !== oldest.id) continue;
        this.pending.delete(id);
        this.pendingCount--;
        continue;
      }
      const hex = clashKey(node.hash, node.version);
      const clash = this.pendingClash.get(hex);
      if (clash !== undefined && clash.generation === oldest.id) {
        this.pendingClash.delete(hex);
        this.pendingCount--;
      }
    }
  }

  /** The pending entry of the node with this hash and version, if any. */
  private pendingEntry(hash: Uint8Array, version: number): PendingEntry | undefined {
    const entry = this.pending.get(cacheId(hash));
    if (entry !== undefined && entry.node.version === version && equalHash(entry.node.hash, hash)) return entry;
    return this.pendingClash.size === 0 ? undefined : this.pendingClash.get(clashKey(hash, version));
  }
}

/** A pending node's key in the clash map: its whole hash and its version. */
function clashKey(hash: Uint8Array, version: number): string {
  return `${hashKeyString(hash)}@${version}`;
}

/**
 * The key of a node in the LRU and the pending set: the hash's first 32 bits as a signed 32-bit
 * integer, which V8 keeps as a small integer. 48 bits, as until 2026-11-30, are a heap number, one
 * allocation per Map lookup or entry (`state-tree.bench.js --alloc`). Hashes are uniform, so two
 * cached nodes share an id with probability ~(cached nodes)/2^32; `inMemory` compares the whole
 * hash, so a shared id is a miss, and a pending clash is kept beside it (`pendingClash`).
 */
function cacheId(hash: Uint8Array): number {
  return (hash[0]! << 24) | (hash[1]! << 16) | (hash[2]! << 8) | hash[3]!;
}
