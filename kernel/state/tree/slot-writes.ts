import { HASH_BYTES } from './hashing.js';
import type { SlotKind } from './upper-levels.js';

/** Writes a rewrite starts with room for; it doubles from there (a 100-key block at 10^6 keys makes ~4,400). */
const INITIAL_WRITES = 1024;

/**
 * The slot writes of one update, in order: heap index, hash, version and kind of each position the upper
 * levels should hold after it. Kept as three flat arrays rather than an object per write: an
 * update records three writes per rewritten internal node in the upper levels (the node and both
 * children), ~45 per changed key at 10^6 keys, and as objects each held a reference to its hash.
 * The hashes are copied in, so the writes stay valid whatever later happens to the arrays they
 * came from.
 */
export class SlotWrites {
  private slots = new Int32Array(INITIAL_WRITES);
  private kinds = new Uint8Array(INITIAL_WRITES);
  private versions = new Float64Array(INITIAL_WRITES);
  private hashes = new Uint8Array(INITIAL_WRITES * HASH_BYTES);
  length = 0;

  push(slot: number, hash: Uint8Array, version: number, kind: SlotKind): void {
    if (this.length === this.slots.length) this.grow();
    const i = this.length++;
    this.slots[i] = slot;
    this.kinds[i] = kind;
    this.versions[i] = version;
    this.hashes.set(hash, i * HASH_BYTES);
  }

  slotAt(i: number): number {
    return this.slots[i]!;
  }

  versionAt(i: number): number {
    return this.versions[i]!;
  }

  kindAt(i: number): SlotKind {
    return this.kinds[i]! as SlotKind;
  }

  /** The flat array of every write's hash (write i at i × 32): read it, never write it. */
  get hashBytes(): Uint8Array {
    return this.hashes;
  }

  private grow(): void {
    const slots = new Int32Array(this.slots.length * 2);
    slots.set(this.slots);
    const kinds = new Uint8Array(this.kinds.length * 2);
    kinds.set(this.kinds);
    const versions = new Float64Array(this.versions.length * 2);
    versions.set(this.versions);
    this.versions = versions;
    const hashes = new Uint8Array(this.hashes.length * 2);
    hashes.set(this.hashes);
    this.slots = slots;
    this.kinds = kinds;
    this.hashes = hashes;
  }
}
