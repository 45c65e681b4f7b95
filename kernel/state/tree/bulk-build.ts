import type { KvBatch, KvOp } from '../kv.js';
import { WriteBatch } from '../kv.js';
import { EMPTY_ROOT, HASH_BYTES, hashKey, internalHash, isEmptyHash } from './hashing.js';
import { encodeNode, makeLeaf } from './node-codec.js';
import { encodeRootRecord, type NodeKeys, type RootRecord } from './node-keys.js';

/** Internal nodes handed to the sink per call while `finish` builds: bounds what waits in memory. */
export const BULK_WRITE_NODES = 2048;

const EMPTY = EMPTY_ROOT;

/**
 * Builds the tree of a whole key set into an empty store, keys in any order: the genesis ranges'
 * accounts, a snapshot's entries. Where a chunked `update` rewrites the upper paths once per chunk
 * (~8 SHA3 and as many node writes per key at 10^6 keys, and the reads of every chunk's paths), this
 * writes each node once: a leaf as its key arrives, the internal nodes in one pass over the key
 * hashes sorted (n − 1 plus the one-child chains above long shared prefixes). About 4 SHA3 per key
 * (key, value, leaf, internal), no store read, and in memory 72 bytes per key (key hash, leaf hash,
 * a sort prefix, an order index) plus one batch of nodes. The root is the tree's root of the key
 * set: the shape depends on the keys alone (state-tree.ts), which the tests compare with `update`.
 *
 * A key added twice keeps its last value (as an update's last change wins); the first leaf stays
 * in the store unreferenced, as a replaced leaf of any update does. The root's record (node-keys.ts)
 * goes with the last nodes, so updates from the root number theirs after the build.
 */
export class TreeBulkBuild {
  private keyHashes: Uint8Array;
  private leafHashes: Uint8Array;
  private count = 0;
  private finished = false;

  constructor(
    private readonly keys: NodeKeys,
    /** The version every node of the build is stored at (a whole tree: its nodes name no older ones). */
    private readonly version: number,
    expectedKeys = 1024,
    /** Told the root's record once it is in the last batch. */
    private readonly onRoot: (root: Uint8Array, record: RootRecord) => void = () => {},
  ) {
    const capacity = Math.max(16, Math.ceil(expectedKeys));
    this.keyHashes = new Uint8Array(capacity * HASH_BYTES);
    this.leafHashes = new Uint8Array(capacity * HASH_BYTES);
  }

  get size(): number {
    return this.count;
  }

  /** Adds a key with its value: its leaf node goes into `batch` now, its place in the tree at `finish`. */
  add(key: Uint8Array, value: Uint8Array, batch: KvBatch): void {
    if (this.finished) throw new Error('the bulk build is finished');
    const leaf = makeLeaf(hashKey(key), value, this.version);
    batch.put(this.keys.nodeKey(leaf.hash, this.version), encodeNode(leaf));
    if (this.count * HASH_BYTES === this.keyHashes.length) this.grow();
    this.keyHashes.set(leaf.keyHash, this.count * HASH_BYTES);
    this.leafHashes.set(leaf.hash, this.count * HASH_BYTES);
    this.count++;
  }

  /**
   * Builds the internal nodes over every key added and returns the root. `write` receives them
   * `every` at a time as store puts (and is awaited before the build goes on, which also lets the
   * event loop in); the caller writes them where the leaves went.
   */
  async finish(write: (ops: readonly KvOp[]) => Promise<void>, every = BULK_WRITE_NODES): Promise<Uint8Array> {
    if (this.finished) throw new Error('the bulk build is finished');
    this.finished = true;
    const order = this.sortedDistinct();
    const keys = this.keyHashes;
    const leaves = this.leafHashes;
    let batch = new WriteBatch();
    const emit = async (left: Uint8Array, right: Uint8Array): Promise<Uint8Array> => {
      const hash = internalHash(left, right);
      const leftVersion = isEmptyHash(left) ? 0 : this.version;
      const rightVersion = isEmptyHash(right) ? 0 : this.version;
      batch.put(this.keys.nodeKey(hash, this.version), encodeNode({ kind: 'internal', hash, version: this.version, left, right, leftVersion, rightVersion }));
      if (batch.ops.length >= every) {
        const full = batch;
        batch = new WriteBatch();
        await write(full.ops);
      }
      return hash;
    };
    // A stack of finished subtrees along the path of the key being placed, deepest on top: their
    // depths, hashes and one key index each (any key of a subtree has its prefix).
    const depths: number[] = [];
    const hashes: Uint8Array[] = [];
    const members: number[] = [];
    /** Closes every node deeper than `shared`: what the next key (sharing `shared` bits) cannot join. */
    const fold = async (shared: number): Promise<void> => {
      for (;;) {
        const top = depths.length - 1;
        const depth = depths[top]!;
        if (depth <= shared + 1) return;
        if (top > 0 && depths[top - 1] === depth) {
          // Two finished siblings under a node at depth − 1: the left one came first in key order.
          const hash = await emit(hashes[top - 1]!, hashes[top]!);
          depths.pop(); hashes.pop(); members.pop();
          depths[top - 1] = depth - 1;
          hashes[top - 1] = hash;
        } else {
          // The other side of the parent holds no key: a node of a one-child chain.
          const right = bitOf(keys, members[top]!, depth - 1) === 1;
          hashes[top] = right ? await emit(EMPTY, hashes[top]!) : await emit(hashes[top]!, EMPTY);
          depths[top] = depth - 1;
        }
      }
    };
    // A leaf sits one below the longest prefix it shares with a neighbour in key order.
    let before = -1;
    for (let i = 0; i < order.length; i++) {
      const at = order[i]!;
      const after = i + 1 < order.length ? sharedBits(keys, at, order[i + 1]!) : -1;
      depths.push(Math.max(before, after) + 1);
      hashes.push(leaves.slice(at * HASH_BYTES, (at + 1) * HASH_BYTES));
      members.push(at);
      await fold(after);
      before = after;
    }
    if (order.length === 0) return EMPTY_ROOT.slice();
    await fold(-1);
    const root = hashes[0]!.slice();
    const record: RootRecord = { nodeVersion: this.version, updateVersion: this.version };
    batch.put(this.keys.rootKey(root), encodeRootRecord(record));
    await write(batch.ops);
    this.onRoot(root, record);
    return root;
  }

  /** By half again, not double: at 10^6 keys a doubling holds 64 MiB that may never be used. */
  private grow(): void {
    const slots = Math.ceil((this.keyHashes.length / HASH_BYTES) * 1.5);
    const keys = new Uint8Array(slots * HASH_BYTES);
    keys.set(this.keyHashes);
    this.keyHashes = keys;
    const leaves = new Uint8Array(slots * HASH_BYTES);
    leaves.set(this.leafHashes);
    this.leafHashes = leaves;
  }

  /** Indexes of the keys in key-hash order, each key hash once (its last addition). */
  private sortedDistinct(): Uint32Array {
    const n = this.count;
    const keys = this.keyHashes;
    const view = new DataView(keys.buffer, keys.byteOffset, keys.byteLength);
    // The first 32 bits decide almost every comparison without touching the rest.
    const prefix = new Uint32Array(n);
    for (let i = 0; i < n; i++) prefix[i] = view.getUint32(i * HASH_BYTES);
    const order = new Uint32Array(n);
    for (let i = 0; i < n; i++) order[i] = i;
    order.sort((a, b) => {
      const pa = prefix[a]!;
      const pb = prefix[b]!;
      if (pa !== pb) return pa < pb ? -1 : 1;
      return compareAt(keys, a, b) || a - b;
    });
    let kept = 0;
    for (let i = 0; i < n; i++) {
      // Of equal key hashes (adjacent, in the order added) the last added wins.
      if (i + 1 < n && compareAt(keys, order[i]!, order[i + 1]!) === 0) continue;
      order[kept++] = order[i]!;
    }
    return order.subarray(0, kept);
  }
}

function compareAt(keys: Uint8Array, a: number, b: number): number {
  const x = a * HASH_BYTES;
  const y = b * HASH_BYTES;
  for (let i = 0; i < HASH_BYTES; i++) {
    const d = keys[x + i]! - keys[y + i]!;
    if (d !== 0) return d;
  }
  return 0;
}

/** How many leading bits the key hashes at indexes `a` and `b` (distinct) share. */
function sharedBits(keys: Uint8Array, a: number, b: number): number {
  const x = a * HASH_BYTES;
  const y = b * HASH_BYTES;
  for (let i = 0; i < HASH_BYTES; i++) {
    const d = keys[x + i]! ^ keys[y + i]!;
    if (d !== 0) return i * 8 + Math.clz32(d) - 24;
  }
  throw new Error('equal key hashes reached the tree build');
}

function bitOf(keys: Uint8Array, index: number, depth: number): 0 | 1 {
  return ((keys[index * HASH_BYTES + (depth >>> 3)]! >>> (7 - (depth & 7))) & 1) as 0 | 1;
}
