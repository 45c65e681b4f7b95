import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { CorruptNodeError } from './errors.js';
import { HASH_BYTES, KEY_BITS, bitAt, emptyHash, equalHash, hashValue, isEmptyHash, leafHash } from './hashing.js';
import { makeInternal, makeLeaf, type LeafNode, type TreeNode } from './node-codec.js';
import type { NodeSource } from './node-source.js';
import { SlotWrites } from './slot-writes.js';
import { SmallChunks } from './small-chunks.js';
import { SlotKind, type UpperLevels } from './upper-levels.js';

/** A change after hashing its key, sorted by key hash; `value` is the tree's own copy. */
export interface Entry {
  readonly keyHash: Uint8Array;
  readonly sortKey: string;
  readonly value: Uint8Array | null;
  /** The caller's claim of this key's value under the old root (see StateChange); null if none. Not a copy. */
  readonly oldValue: Uint8Array | null;
}

/**
 * What the rebuild needs of a leaf that was there: its hash, key hash and version (never its
 * value). With its kind, a leaf is its own `Sub`: no object of its own per leaf rebuilt.
 */
type LeafRef = Pick<LeafNode, 'kind' | 'hash' | 'keyHash' | 'version'>;

/**
 * Visits or nodes built between two yields to the event loop. With its nodes in memory an update
 * would otherwise run without letting a timer, vote or RPC in (a 360-key block held a node's loop
 * 30–60 ms before it yielded). The result does not depend on where it yields: an update only reads
 * and collects, and publishes when it returns.
 */
const YIELD_EVERY = 256;

/**
 * Child pairs per chunk of `pairs` (Rewrite). The pairs feed rebuilt nodes (their untouched children),
 * and those nodes live on in the pending set and the LRU, so a chunk can outlive the update: kept
 * small, as the tree's hash chunks are (hashing.ts).
 */
const PAIR_CHUNK_BYTES = 16 * 2 * HASH_BYTES;

type Kind = 'empty' | 'leaf' | 'internal' | 'unknown';

/**
 * A rebuilt subtree: the node itself where the rebuild made or kept one (`internal`, a leaf), an
 * object of its own only for an untouched child. Leaves are position independent (their hash has
 * no depth in it), so a lone leaf moves up when its sibling subtree empties; 'unknown' marks an
 * untouched child whose kind was not needed.
 */
interface Sub {
  readonly hash: Uint8Array;
  readonly kind: Kind;
  /** Where its node is stored: this update's version if it made the node, the old one otherwise. */
  readonly version: number;
}

const EMPTY_SUB: Sub = { hash: emptyHash(), kind: 'empty', version: 0 };

/**
 * A position of the old tree on some changed key's path (or, with no entries, the untouched
 * sibling of one whose kind the rebuild may need). Filled top-down by `descend`, rebuilt bottom-up.
 */
class Visit {
  kind: Kind = 'unknown';
  leaf: LeafRef | null = null;
  leftHash: Uint8Array = EMPTY_SUB.hash;
  rightHash: Uint8Array = EMPTY_SUB.hash;
  leftKind: Kind = 'unknown';
  rightKind: Kind = 'unknown';
  leftVersion = 0;
  rightVersion = 0;
  left: Visit | null = null;
  right: Visit | null = null;
  result: Sub | null = null;
  constructor(
    readonly depth: number,
    /** Heap index in the upper levels, or -1 when the update does not go by position there. */
    readonly slot: number,
    readonly hash: Uint8Array,
    /** Where the old node at this position is stored. */
    readonly version: number,
    readonly lo: number,
    readonly hi: number,
    /** For a probe: the visit whose child this is, and which one. */
    readonly parent: Visit | null = null,
    readonly side: 0 | 1 = 0,
  ) {}

  get probe(): boolean {
    return this.parent !== null;
  }
}

function kindOfSlot(kind: SlotKind): Kind {
  if (kind === SlotKind.EMPTY) return 'empty';
  if (kind === SlotKind.LEAF) return 'leaf';
  if (kind === SlotKind.INTERNAL || kind === SlotKind.EXPANDED) return 'internal';
  return 'unknown';
}

function slotKindOf(sub: Sub): SlotKind {
  if (sub.kind === 'empty') return SlotKind.EMPTY;
  if (sub.kind === 'leaf') return SlotKind.LEAF;
  // A rebuilt internal node gets both children written (see `record`), so it is expanded.
  if (sub.kind === 'internal') return SlotKind.EXPANDED;
  return SlotKind.UNKNOWN;
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

/**
 * One update, in two passes. `descend` walks the changed keys' paths top-down a level at a time,
 * answering each position from the upper levels (no read at all), from memory, or from the store,
 * with one batched store read per level. `rebuild` then rehashes bottom-up, a level at a time,
 * synchronously but for a yield every few hundred nodes. Reads of the old tree below the upper
 * levels are not rehashed: their only use is the new root, which consensus checks against every
 * other validator's; what is cached for serving (the upper levels) is checked when it is filled.
 */
export class Rewrite {
  readonly created: TreeNode[] = [];
  /**
   * Per node of `created`, 1 if it is an internal node at a position the upper levels hold. Bytes
   * rather than a Set of indexes: a Set entry per node was allocation the sampling profile saw.
   */
  private inUpper = new Uint8Array(256);
  readonly writes = new SlotWrites();
  private readonly levels: Visit[][] = [];
  private readonly deletesBefore: Int32Array;
  private positional: boolean;
  private readonly baseVersion: number;
  private work = 0;
  /** Leaves found by a hint instead of a read (StateTree.hintedLeaves adds them up for tests). */
  hintedLeaves = 0;
  /** The old leaf hash each hinted entry's old value names, by entry index, hashed once when first needed. */
  private readonly hintLeafHashes = new Map<number, Uint8Array>();
  /**
   * Where child pairs read from the upper levels are copied, two views (the hashes) per pair. A
   * `slice()` of its own per pair is a small array V8 keeps inside its object, and the two views
   * of it then force that out into an ArrayBuffer of its own: one native allocation per visited
   * upper-level node.
   */
  private readonly pairs = new SmallChunks(PAIR_CHUNK_BYTES);

  constructor(
    private readonly nodes: NodeSource,
    private readonly upper: UpperLevels,
    private readonly entries: readonly Entry[],
    positional: boolean,
    /** The version this update stores its new nodes at (node-keys.ts). */
    private readonly version: number,
  ) {
    this.positional = positional;
    this.baseVersion = upper.version;
    this.deletesBefore = new Int32Array(entries.length + 1);
    for (let i = 0; i < entries.length; i++) this.deletesBefore[i + 1] = this.deletesBefore[i]! + (entries[i]!.value === null ? 1 : 0);
  }

  /** Whether node `index` of `created` sits where the upper levels will hold it (so the LRU need not). */
  createdInUpper(index: number): boolean {
    return index < this.inUpper.length && this.inUpper[index] === 1;
  }

  private markInUpper(index: number): void {
    if (index >= this.inUpper.length) {
      const grown = new Uint8Array(Math.max(2 * this.inUpper.length, index + 1));
      grown.set(this.inUpper);
      this.inUpper = grown;
    }
    this.inUpper[index] = 1;
  }

  /** Whether the slot writes describe the new version exactly (the whole update went by position). */
  get recordable(): boolean {
    return this.positional && this.upper.version === this.baseVersion;
  }

  /** The new root's hash and the version its node is stored at (a leaf that moved up keeps its own). */
  async run(root: Uint8Array, rootVersion: number): Promise<Pick<Sub, 'hash' | 'version'>> {
    await this.descend(root, rootVersion);
    return this.rebuild();
  }

  private async pace(amount: number): Promise<void> {
    this.work += amount;
    if (this.work >= YIELD_EVERY) {
      this.work = 0;
      await yieldToLoop();
    }
  }

  private async descend(root: Uint8Array, rootVersion: number): Promise<void> {
    let level = [new Visit(0, this.positional ? 1 : -1, root, rootVersion, 0, this.entries.length)];
    while (level.length > 0) {
      this.levels.push(level);
      // A walk by position is only sound within one cached version.
      if (this.upper.version !== this.baseVersion) this.positional = false;
      const verified: Visit[] = [];
      const trusted: Visit[] = [];
      // Indexed loops here and in `rebuild`: these async functions run mostly unoptimised (an
      // update calls each once), where a for-of makes an iterator result per visit.
      for (let i = 0; i < level.length; i++) {
        const v = level[i]!;
        if (!this.resolveInMemory(v)) (this.fillsUpperLevels(v) ? verified : trusted).push(v);
      }
      if (verified.length + trusted.length > 0) {
        // What fills the upper levels is served to clients later, so it is checked; the rest only
        // feeds the new root.
        const [a, b] = await Promise.all([
          verified.length > 0 ? this.nodes.loadMany(verified.map((v) => v.hash), verified.map((v) => v.version), true) : [],
          trusted.length > 0 ? this.nodes.loadMany(trusted.map((v) => v.hash), trusted.map((v) => v.version), false) : [],
        ]);
        verified.forEach((v, i) => this.adopt(v, a[i]!, true));
        trusted.forEach((v, i) => this.adopt(v, b[i]!, false));
      }
      const next: Visit[] = [];
      for (let i = 0; i < level.length; i++) {
        const v = level[i]!;
        if (v.probe) {
          if (v.side === 0) v.parent!.leftKind = v.kind;
          else v.parent!.rightKind = v.kind;
          continue;
        }
        if (v.kind !== 'internal') continue;
        if (v.depth >= KEY_BITS) throw new CorruptNodeError('internal node below depth 255');
        this.expand(v, next);
      }
      await this.pace(level.length);
      level = next;
    }
  }

  /** Children visits of an internal position, and probes of untouched siblings that may matter. */
  private expand(v: Visit, next: Visit[]): void {
    const depth = v.depth + 1;
    const slot = v.slot >= 0 && depth <= this.upper.lastLevel ? 2 * v.slot : -1;
    const mid = splitIndex(this.entries, v.lo, v.hi, v.depth);
    if (mid > v.lo) {
      v.left = new Visit(depth, slot, v.leftHash, v.leftVersion, v.lo, mid);
      next.push(v.left);
    }
    if (v.hi > mid) {
      v.right = new Visit(depth, slot < 0 ? -1 : slot + 1, v.rightHash, v.rightVersion, mid, v.hi);
      next.push(v.right);
    }
    // If one side may empty (it has a deletion), the other side's kind decides whether a lone
    // leaf moves up: learn it now, in this level's batch, rather than with a read of its own.
    if (v.left === null && v.leftKind === 'unknown' && this.hasDeletes(mid, v.hi)) next.push(new Visit(depth, slot, v.leftHash, v.leftVersion, mid, mid, v, 0));
    if (v.right === null && v.rightKind === 'unknown' && this.hasDeletes(v.lo, mid)) next.push(new Visit(depth, slot < 0 ? -1 : slot + 1, v.rightHash, v.rightVersion, mid, mid, v, 1));
  }

  /** Whether reading this visit's node teaches the upper levels something (its kind, its children). */
  private fillsUpperLevels(v: Visit): boolean {
    return v.slot >= 0 && this.upper.isCached(v.depth) && this.upper.kindAt(v.depth, v.slot) !== SlotKind.LEAF;
  }

  private hasDeletes(lo: number, hi: number): boolean {
    return this.deletesBefore[hi]! > this.deletesBefore[lo]!;
  }

  /** Answers a visit without the store if a hint, the upper levels or memory can. */
  private resolveInMemory(v: Visit): boolean {
    if (isEmptyHash(v.hash)) {
      v.kind = 'empty';
      return true;
    }
    if (this.positional && v.slot >= 0 && this.upper.isCached(v.depth) && this.upper.hashEquals(v.depth, v.slot, v.hash)) {
      const kind = this.upper.kindAt(v.depth, v.slot);
      if (kind === SlotKind.EXPANDED) {
        v.kind = 'internal';
        // Copies: the slots may change while this update waits for the store.
        const at = this.pairs.reserve(2 * HASH_BYTES);
        const pairs = this.pairs.current;
        this.upper.copyChildPair(v.depth, v.slot, pairs, at);
        v.leftHash = pairs.subarray(at, at + HASH_BYTES);
        v.rightHash = pairs.subarray(at + HASH_BYTES, at + 2 * HASH_BYTES);
        v.leftVersion = this.upper.versionAt(v.depth + 1, 2 * v.slot);
        v.rightVersion = this.upper.versionAt(v.depth + 1, 2 * v.slot + 1);
        v.leftKind = kindOfSlot(this.upper.kindAt(v.depth + 1, 2 * v.slot));
        v.rightKind = kindOfSlot(this.upper.kindAt(v.depth + 1, 2 * v.slot + 1));
        return true;
      }
      if (kind === SlotKind.LEAF && v.probe) {
        v.kind = 'leaf';
        return true;
      }
      if (kind === SlotKind.INTERNAL && v.probe) {
        v.kind = 'internal';
        return true;
      }
    }
    const node = this.nodes.inMemory(v.hash, v.version);
    if (node !== undefined) {
      this.adopt(v, node, true);
      return true;
    }
    // Last, since it costs two SHA3s: only a position memory cannot answer is worth the hint's hashes.
    return this.hintedLeaf(v);
  }

  /**
   * A visit whose only entry's old value names its hash: the node there is that key's old leaf, since a
   * leaf hash commits to the key hash and no internal node hashes like a leaf (the tags). Its value
   * is never needed (the rebuild keeps or replaces the leaf by hash and key hash), so nothing is read.
   */
  private hintedLeaf(v: Visit): boolean {
    if (v.probe || v.hi - v.lo !== 1) return false;
    const entry = this.entries[v.lo]!;
    if (entry.oldValue === null) return false;
    let expected = this.hintLeafHashes.get(v.lo);
    if (expected === undefined) {
      expected = leafHash(entry.keyHash, hashValue(entry.oldValue));
      this.hintLeafHashes.set(v.lo, expected);
    }
    if (!equalHash(expected, v.hash)) return false;
    v.kind = 'leaf';
    v.leaf = { kind: 'leaf', hash: v.hash, keyHash: entry.keyHash, version: v.version };
    if (v.slot >= 0) this.upper.fill(v.depth, v.slot, v.hash, { kind: 'leaf' });
    this.hintedLeaves++;
    return true;
  }

  /** Takes what the node at a visit is; fills the upper levels with it if it is trustworthy. */
  private adopt(v: Visit, node: TreeNode, trustworthy: boolean): void {
    if (node.kind === 'leaf') {
      v.kind = 'leaf';
      v.leaf = node;
    } else {
      v.kind = 'internal';
      v.leftHash = node.left;
      v.rightHash = node.right;
      v.leftVersion = node.leftVersion;
      v.rightVersion = node.rightVersion;
      if (isEmptyHash(node.left)) v.leftKind = 'empty';
      if (isEmptyHash(node.right)) v.rightKind = 'empty';
    }
    if (trustworthy && v.slot >= 0) this.upper.fill(v.depth, v.slot, v.hash, node);
  }

  private async rebuild(): Promise<Sub> {
    for (let d = this.levels.length - 1; d >= 0; d--) {
      const level = this.levels[d]!;
      for (let i = 0; i < level.length; i++) {
        const v = level[i]!;
        if (v.probe) continue;
        const result = v.kind === 'internal' ? this.rejoin(v) : this.buildAt(v);
        // Awaited only in the rare case that needed a read (rejoin): an await per node allocates
        // a promise and a microtask for each of the ~15.5 nodes a key rewrites at 10^6 keys
        // (~14.5 of them internal nodes, i.e. rejoins).
        v.result = result instanceof Promise ? await result : result;
      }
      await this.pace(level.length);
    }
    return this.levels[0]![0]!.result!;
  }

  /**
   * New subtree at an internal position from its children, rebuilt or untouched. Synchronous unless
   * one side emptied and the other's kind is unknown (`descend` probes those, so rarely).
   */
  private rejoin(v: Visit): Sub | Promise<Sub> {
    const left: Sub = v.left?.result ?? (isEmptyHash(v.leftHash) ? EMPTY_SUB : { hash: v.leftHash, kind: v.leftKind, version: v.leftVersion });
    const right: Sub = v.right?.result ?? (isEmptyHash(v.rightHash) ? EMPTY_SUB : { hash: v.rightHash, kind: v.rightKind, version: v.rightVersion });
    // No-op changes (same value, deleting an absent key) leave the node as it is: no rewrite.
    if (equalHash(left.hash, v.leftHash) && equalHash(right.hash, v.rightHash)) return { hash: v.hash, kind: 'internal', version: v.version };
    if (left.kind === 'empty' && right.kind === 'unknown') return this.kindOf(right).then((kind) => this.join(v, left, { ...right, kind }));
    if (right.kind === 'empty' && left.kind === 'unknown') return this.kindOf(left).then((kind) => this.join(v, { ...left, kind }, right));
    return this.join(v, left, right);
  }

  /** `rejoin` once the kind of a child beside an empty one is known. */
  private join(v: Visit, left: Sub, right: Sub): Sub {
    let sub: Sub;
    if (left.kind === 'empty' && right.kind === 'empty') sub = EMPTY_SUB;
    // A lone leaf moves up and keeps its record: its hash has no position in it.
    else if (left.kind === 'empty' && right.kind === 'leaf') sub = right;
    else if (right.kind === 'empty' && left.kind === 'leaf') sub = left;
    else sub = this.internal(left, right, v.slot);
    this.record(v.slot, sub, left, right);
    return sub;
  }

  /** The kind of an untouched child, read from the store (rejoin asks only when it must). */
  private async kindOf(sub: Sub): Promise<Kind> {
    return (await this.nodes.load(sub.hash, sub.version, false)).kind;
  }

  private internal(left: Sub, right: Sub, slot: number): Sub {
    const node = makeInternal(left.hash, left.version, right.hash, right.version, this.version);
    if (slot >= 0 && this.upper.isCached(31 - Math.clz32(slot) + 1)) this.markInUpper(this.created.length);
    this.created.push(node);
    return node;
  }

  /**
   * Slot writes for a position's new subtree. A new internal node gets both children written, the
   * untouched one as UNKNOWN, which keeps whatever the cache knows of that very node. Children
   * are written before parents (bottom-up), so a child's own, more precise write is not undone.
   */
  private record(slot: number, sub: Sub, left: Sub | null, right: Sub | null): void {
    if (slot < 0) return;
    this.writes.push(slot, sub.hash, sub.version, slotKindOf(sub));
    if (sub.kind !== 'internal' || left === null || right === null) return;
    const depth = 31 - Math.clz32(slot);
    if (depth + 1 > this.upper.lastLevel) return;
    this.writes.push(2 * slot, left.hash, left.version, left.kind === 'empty' ? SlotKind.EMPTY : SlotKind.UNKNOWN);
    this.writes.push(2 * slot + 1, right.hash, right.version, right.kind === 'empty' ? SlotKind.EMPTY : SlotKind.UNKNOWN);
  }

  /**
   * Builds the subtree at an empty or leaf position holding the leaf that was there (if any) merged
   * with the visit's entries. Every live entry becomes exactly one leaf: linear in the entries.
   */
  private buildAt(v: Visit): Sub {
    const leaves: LeafRef[] = [];
    let existing = v.leaf;
    for (let i = v.lo; i < v.hi; i++) {
      const entry = this.entries[i]!;
      if (existing !== null) {
        const order = compareHash(existing.keyHash, entry.keyHash);
        if (order < 0) {
          leaves.push(existing);
          existing = null;
        } else if (order === 0) {
          const replaced = existing;
          existing = null;
          if (entry.value === null) continue;
          const leaf = makeLeaf(entry.keyHash, entry.value, this.version);
          // Writing a key's current value again changes nothing and writes nothing.
          if (equalHash(leaf.hash, replaced.hash)) leaves.push(replaced);
          else {
            leaves.push(leaf);
            this.created.push(leaf);
          }
          continue;
        }
      }
      if (entry.value === null) continue;
      const leaf = makeLeaf(entry.keyHash, entry.value, this.version);
      leaves.push(leaf);
      this.created.push(leaf);
    }
    if (existing !== null) leaves.push(existing);
    return this.buildLeaves(v.depth, v.slot, leaves, 0, leaves.length);
  }

  private buildLeaves(depth: number, slot: number, leaves: readonly LeafRef[], lo: number, hi: number): Sub {
    let sub: Sub;
    let left: Sub | null = null;
    let right: Sub | null = null;
    if (hi === lo) sub = EMPTY_SUB;
    else if (hi - lo === 1) sub = leaves[lo]!;
    else {
      // Two distinct 256-bit key hashes differ somewhere, so this recursion ends by depth 256.
      const mid = splitIndex(leaves, lo, hi, depth);
      const childSlot = slot >= 0 && depth + 1 <= this.upper.lastLevel ? 2 * slot : -1;
      left = this.buildLeaves(depth + 1, childSlot, leaves, lo, mid);
      right = this.buildLeaves(depth + 1, childSlot < 0 ? -1 : childSlot + 1, leaves, mid, hi);
      sub = this.internal(left, right, slot);
    }
    this.record(slot, sub, left, right);
    return sub;
  }
}

/** Byte order of two key hashes (the tree's order): negative, zero or positive. */
function compareHash(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < HASH_BYTES; i++) {
    const d = a[i]! - b[i]!;
    if (d !== 0) return d;
  }
  return 0;
}
