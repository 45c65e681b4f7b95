import { HASH_BYTES, isEmptyHash } from './hashing.js';
import { VERSION_BYTES, readVersion, writeVersion } from './node-codec.js';
import type { SlotWrites } from './slot-writes.js';

/**
 * What the cache knows about one position of the tree. UNKNOWN: only its hash (the node must be
 * read to learn more); INTERNAL: an internal node whose children are not cached; EXPANDED: an
 * internal node whose two children's hashes sit in the next level's slots.
 */
export const SlotKind = { UNKNOWN: 0, EMPTY: 1, LEAF: 2, INTERNAL: 3, EXPANDED: 4 } as const;
export type SlotKind = (typeof SlotKind)[keyof typeof SlotKind];

/** The positions an update from `base` rewrote, to apply if the chain goes on from `root`. */
interface Delta {
  readonly baseVersion: number;
  readonly root: string;
  /** The version the new root's node is stored at: a root is its hash and where its node is. */
  readonly rootVersion: number;
  readonly writes: SlotWrites;
}

/** Deltas of updates not yet built upon: a proposal per round at most, so a few suffice. */
const MAX_DELTAS = 8;
/** A bulk update (genesis, a snapshot) rewrites most of the top; cheaper to let the cache refill. */
export const MAX_DELTA_WRITES = 1 << 16;
/** Bytes one slot costs: its hash, its kind and the version it is stored at. */
const SLOT_BYTES = HASH_BYTES + 1 + VERSION_BYTES;

/**
 * The upper levels of one version of the tree, by position: level d is an array of 2^d slots, slot
 * s (heap order: root 1, children 2s and 2s+1) holding the hash of the node at that position, what
 * it is and the version it is stored at (node-keys.ts). A path through the cached levels is index
 * arithmetic, with no lookup, no decoding and no allocation; a node's hash is a 32-byte window of a flat array the GC never scans. Compared with
 * a cache of decoded nodes keyed by hash, a slot costs 39 bytes instead of ~300, holds exactly one
 * version (a rewritten node replaces its predecessor in place instead of leaving it to age out of
 * an LRU), and keeps the levels every block crosses rather than whatever was touched last.
 *
 * The cached version follows the chain: an update from the cached root records the slots it
 * rewrote; an update (or read) from that update's result applies them and the cache moves on.
 * An update from any other root starts the cache afresh at that root. Levels are allocated one at
 * a time, each once the level above is mostly internal nodes, up to the byte budget, so a small
 * tree costs a few KiB and a large one at most the budget.
 *
 * Every slot reachable from the root through EXPANDED slots holds the hash of the cached version's
 * node at that position. Slots below a leaf or an empty subtree may hold stale data; nothing reads
 * them, since a walk stops there. Filling a slot from a node read from the store is checked against
 * the slot's current hash, so a fill that raced with a version change can never plant a wrong child.
 */
export class UpperLevels {
  private readonly hashes: Uint8Array[] = [];
  private readonly kinds: Uint8Array[] = [];
  /** VERSION_BYTES per slot, big-endian: a Float64Array would take the 10^6-key tree's level 20 past the default budget. */
  private readonly versions: Uint8Array[] = [];
  /** Internal slots per level: a level gets a level below it once it is mostly internal. */
  private readonly internalCount: number[] = [];
  private readonly maxLevels: number;
  private rootHex: string | null = null;
  private rootVersion = 0;
  private deltas: Delta[] = [];
  /** Bumped whenever the cached version changes, so a walk across an await can tell. */
  version = 0;
  /** Bumped when the cache starts afresh at an unrelated root (not when it follows an update): a warm-up of the old root stops. */
  resets = 0;

  /** `budgetBytes` bounds the slot arrays; 0 disables the cache. */
  constructor(budgetBytes: number) {
    // Levels 0..L cost (2^(L+1) − 1) slots.
    let levels = 0;
    while (levels < 31 && (2 ** (levels + 1) - 1) * SLOT_BYTES <= budgetBytes) levels++;
    this.maxLevels = levels;
  }

  get enabled(): boolean {
    return this.maxLevels > 0;
  }

  /** Deepest level an update records slots for (the budget's), allocated or not. */
  get lastLevel(): number {
    return this.maxLevels - 1;
  }

  /** Whether the cache holds some version (it starts empty, and stays so while disabled). */
  get holdsRoot(): boolean {
    return this.rootHex !== null;
  }

  get allocatedLevels(): number {
    return this.hashes.length;
  }

  memoryBytes(): number {
    let bytes = 0;
    for (const h of this.hashes) bytes += (h.length / HASH_BYTES) * SLOT_BYTES;
    return bytes;
  }

  /**
   * Makes the cache hold the version with root `root` if it can: already there, or one recorded
   * update away (applied now). With `restart`, an unrelated root starts the cache afresh (updates
   * do; reads of an old root must not throw away the head's levels). Returns whether the cache now
   * holds `root`.
   */
  moveTo(root: Uint8Array, rootVersion: number, restart: boolean): boolean {
    if (!this.enabled) return false;
    const hex = hexOf(root);
    if (hex === this.rootHex && rootVersion === this.rootVersion) return true;
    const delta = this.deltas.find((d) => d.root === hex && d.rootVersion === rootVersion && d.baseVersion === this.version);
    if (delta !== undefined) {
      for (let i = 0; i < delta.writes.length; i++) this.write(delta.writes, i);
      this.rootHex = hex;
      this.rootVersion = rootVersion;
      this.version++;
      this.deltas = [];
      return true;
    }
    if (!restart) return false;
    this.reset(root, rootVersion, hex);
    return true;
  }

  /** Records what an update from the cached version (at `baseVersion`) would make of the slots. */
  record(baseVersion: number, root: Uint8Array, rootVersion: number, writes: SlotWrites): void {
    if (baseVersion !== this.version || writes.length > MAX_DELTA_WRITES) return;
    const hex = hexOf(root);
    this.deltas = this.deltas.filter((d) => d.baseVersion === this.version && !(d.root === hex && d.rootVersion === rootVersion));
    this.deltas.push({ baseVersion, root: hex, rootVersion, writes });
    if (this.deltas.length > MAX_DELTAS) this.deltas.shift();
  }

  /** The level holding `slot` (heap order), or -1 past the budget. */
  static depthOf(slot: number): number {
    return 31 - Math.clz32(slot);
  }

  isCached(depth: number): boolean {
    return depth < this.hashes.length;
  }

  kindAt(depth: number, slot: number): SlotKind {
    return this.kinds[depth]![slot - (1 << depth)]! as SlotKind;
  }

  /** The slot's hash, as a view: callers copy it if they keep it past the next cache change. */
  hashAt(depth: number, slot: number): Uint8Array {
    const at = (slot - (1 << depth)) * HASH_BYTES;
    return this.hashes[depth]!.subarray(at, at + HASH_BYTES);
  }

  /**
   * Whether the slot holds `hash`, compared in place: an update asks it at every cached position it
   * crosses (~13 a changed key at 10^6 keys), and a view per question was most of its allocation there.
   */
  hashEquals(depth: number, slot: number, hash: Uint8Array): boolean {
    return hash.length === HASH_BYTES && sameBytes(this.hashes[depth]!, (slot - (1 << depth)) * HASH_BYTES, hash, 0);
  }

  /** The version the slot's node is stored at. */
  versionAt(depth: number, slot: number): number {
    return this.versionOfIndex(depth, slot - (1 << depth));
  }

  private versionOfIndex(depth: number, i: number): number {
    return readVersion(this.versions[depth]!, i * VERSION_BYTES);
  }

  /**
   * Puts a node's hash (the 32 bytes of `source` from `from`) and version into slot index `i` of
   * level `depth` (its kind is the caller's). An offset rather than a view: slot writes keep their
   * hashes in one flat array, ~45 of them per changed key at 10^6 keys.
   */
  private place(depth: number, i: number, source: Uint8Array, from: number, version: number): void {
    copyBytes(source, from, this.hashes[depth]!, i * HASH_BYTES, HASH_BYTES);
    writeVersion(this.versions[depth]!, i * VERSION_BYTES, version);
  }

  /** The two children's hashes of an EXPANDED slot (left ‖ right, 64 bytes) copied into `out` at `at`, with no view of the slots. */
  copyChildPair(depth: number, slot: number, out: Uint8Array, at: number): void {
    copyBytes(this.hashes[depth + 1]!, (2 * slot - (1 << (depth + 1))) * HASH_BYTES, out, at, 2 * HASH_BYTES);
  }

  /**
   * What a read of the node with hash `hash` at `slot` taught: its kind and, for an internal node,
   * its children (expanding the slot if the next level is cached or may now be allocated). Ignored
   * unless the slot still holds that hash.
   */
  fill(depth: number, slot: number, hash: Uint8Array, node: { kind: 'leaf' } | { kind: 'internal'; left: Uint8Array; right: Uint8Array; leftVersion: number; rightVersion: number }): void {
    if (!this.isCached(depth) || !this.hashEquals(depth, slot, hash)) return;
    const kinds = this.kinds[depth]!;
    const i = slot - (1 << depth);
    const old = kinds[i]!;
    if (node.kind === 'leaf') {
      this.setKind(depth, i, old, SlotKind.LEAF);
      return;
    }
    if (old === SlotKind.EXPANDED) return;
    // Counted as internal first: the level below is allocated once this level is mostly internal.
    this.setKind(depth, i, old, SlotKind.INTERNAL);
    if (!this.canExpandInto(depth + 1)) return;
    this.setChild(depth + 1, 2 * slot, node.left, node.leftVersion);
    this.setChild(depth + 1, 2 * slot + 1, node.right, node.rightVersion);
    this.setKind(depth, i, SlotKind.INTERNAL, SlotKind.EXPANDED);
  }

  private setChild(depth: number, slot: number, hash: Uint8Array, version: number): void {
    const i = slot - (1 << depth);
    this.place(depth, i, hash, 0, version);
    const kinds = this.kinds[depth]!;
    this.setKind(depth, i, kinds[i]!, isEmptyHash(hash) ? SlotKind.EMPTY : SlotKind.UNKNOWN);
  }

  private setKind(depth: number, i: number, old: number, kind: SlotKind): void {
    const wasInternal = old === SlotKind.INTERNAL || old === SlotKind.EXPANDED;
    const isInternal = kind === SlotKind.INTERNAL || kind === SlotKind.EXPANDED;
    if (wasInternal !== isInternal) this.internalCount[depth]! += isInternal ? 1 : -1;
    this.kinds[depth]![i] = kind;
  }

  /** Whether level `depth` exists or may be allocated now: the level above is mostly internal. */
  private canExpandInto(depth: number): boolean {
    if (depth < this.hashes.length) return true;
    if (depth !== this.hashes.length || depth >= this.maxLevels) return false;
    if (depth > 0 && this.internalCount[depth - 1]! * 2 < 2 ** (depth - 1)) return false;
    this.allocate(depth);
    return true;
  }

  /**
   * Allocates the level below `depth` ahead of filling `depth` (a warm-up that is about to read
   * `reachable` nodes there), if they are enough to make it mostly internal and the budget allows.
   */
  prepareBelow(depth: number, reachable: number): void {
    if (depth + 1 === this.hashes.length && depth + 1 < this.maxLevels && reachable * 2 >= 2 ** depth) this.allocate(depth + 1);
  }

  private allocate(depth: number): void {
    this.hashes.push(new Uint8Array(2 ** depth * HASH_BYTES));
    this.kinds.push(new Uint8Array(2 ** depth));
    this.versions.push(new Uint8Array(2 ** depth * VERSION_BYTES));
    this.internalCount.push(0);
  }

  /** Applies write `w` of `writes`. */
  private write(writes: SlotWrites, w: number): void {
    const slot = writes.slotAt(w);
    const depth = UpperLevels.depthOf(slot);
    if (!this.isCached(depth)) return;
    const i = slot - (1 << depth);
    const kinds = this.kinds[depth]!;
    const old = kinds[i]!;
    const at = i * HASH_BYTES;
    const hashes = this.hashes[depth]!;
    const source = writes.hashBytes;
    const from = w * HASH_BYTES;
    const writeKind = writes.kindAt(w);
    // An untouched child is written as UNKNOWN: if the slot already holds that very record, what is
    // known about it (and below it) stays true.
    const version = writes.versionAt(w);
    if (writeKind === SlotKind.UNKNOWN && sameBytes(hashes, at, source, from) && this.versionOfIndex(depth, i) === version) return;
    this.place(depth, i, source, from, version);
    // EXPANDED promises children in the next level: only where that level exists.
    const kind = writeKind === SlotKind.EXPANDED && !this.isCached(depth + 1) ? SlotKind.INTERNAL : writeKind;
    this.setKind(depth, i, old, kind);
  }

  private reset(root: Uint8Array, rootVersion: number, hex: string): void {
    if (this.hashes.length === 0) this.allocate(0);
    for (let d = 0; d < this.kinds.length; d++) {
      this.kinds[d]!.fill(SlotKind.UNKNOWN);
      this.internalCount[d] = 0;
    }
    this.place(0, 0, root, 0, rootVersion);
    this.kinds[0]![0] = isEmptyHash(root) ? SlotKind.EMPTY : SlotKind.UNKNOWN;
    this.rootHex = hex;
    this.rootVersion = rootVersion;
    this.deltas = [];
    this.version++;
    this.resets++;
  }
}

/** Whether the 32 bytes at `a[i…]` and `b[j…]` are equal, without making views. */
function sameBytes(a: Uint8Array, i: number, b: Uint8Array, j: number): boolean {
  for (let k = 0; k < HASH_BYTES; k++) if (a[i + k] !== b[j + k]) return false;
  return true;
}

/** `length` bytes from `source[from…]` into `target[at…]`, without making views. */
function copyBytes(source: Uint8Array, from: number, target: Uint8Array, at: number, length: number): void {
  for (let k = 0; k < length; k++) target[at + k] = source[from + k]!;
}

function hexOf(hash: Uint8Array): string {
  return Buffer.from(hash.buffer, hash.byteOffset, hash.byteLength).toString('hex');
}
