import { LRUCache } from 'lru-cache';
import type { KvReader } from '../../store/kv.js';
import { MissingNodeError } from './errors.js';
import { decodeNode, type TreeNode } from './node-codec.js';
import { hashKeyString } from './hashing.js';

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
 */
export class NodeSource {
  private readonly cache: LRUCache<string, TreeNode> | null;
  private readonly pending = new Map<string, PendingEntry>();
  /** Keys of each retained generation, oldest first, for eviction in order. */
  private readonly generations: Array<{ id: number; keys: string[] }> = [];
  private pendingCount = 0;
  private nextGeneration = 0;

  constructor(
    private readonly store: KvReader,
    private readonly prefix: Uint8Array,
    cacheNodes: number,
    private readonly pendingBudget: number,
    private readonly verifyReads: boolean,
  ) {
    // lru-cache refuses max 0; 0 means "no cache" here, which tests use to count real reads.
    this.cache = cacheNodes > 0 ? new LRUCache<string, TreeNode>({ max: cacheNodes }) : null;
  }

  storageKey(hash: Uint8Array): Uint8Array {
    const key = new Uint8Array(this.prefix.length + hash.length);
    key.set(this.prefix, 0);
    key.set(hash, this.prefix.length);
    return key;
  }

  async load(hash: Uint8Array): Promise<TreeNode> {
    const id = hashKeyString(hash);
    const pending = this.pending.get(id);
    if (pending !== undefined) return pending.node;
    const cached = this.cache?.get(id);
    if (cached !== undefined) return cached;
    const bytes = await this.store.get(this.storageKey(hash));
    if (bytes === undefined) throw new MissingNodeError(id);
    const node = decodeNode(bytes, hash, this.verifyReads);
    this.cache?.set(id, node);
    return node;
  }

  /** Records the nodes one `update` wrote, so later reads find them before the batch is applied. */
  addGeneration(nodes: readonly TreeNode[]): void {
    if (nodes.length === 0) return;
    const generation = this.nextGeneration++;
    const keys: string[] = [];
    for (const node of nodes) {
      const id = hashKeyString(node.hash);
      keys.push(id);
      const existing = this.pending.get(id);
      if (existing !== undefined) existing.generation = generation;
      else {
        this.pending.set(id, { node, generation });
        this.pendingCount++;
      }
      // Recently written paths (the top of the tree above all) are what the next block reads.
      this.cache?.set(id, node);
    }
    this.generations.push({ id: generation, keys });
    while (this.generations.length > 1 && this.pendingCount > this.pendingBudget) this.dropOldestGeneration();
  }

  /** Forget every pending node: call once all batches returned by `update` so far are written. */
  releasePending(): void {
    this.pending.clear();
    this.generations.length = 0;
    this.pendingCount = 0;
  }

  get pendingSize(): number {
    return this.pendingCount;
  }

  private dropOldestGeneration(): void {
    const oldest = this.generations.shift();
    if (oldest === undefined) return;
    for (const id of oldest.keys) {
      const entry = this.pending.get(id);
      // A node re-created by a newer update belongs to that newer generation now.
      if (entry !== undefined && entry.generation === oldest.id) {
        this.pending.delete(id);
        this.pendingCount--;
      }
    }
  }
}
