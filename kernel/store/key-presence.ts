/**
 * Which keys a store may hold, as a Bloom filter of two bit positions a key: `mayContain` is false
 * only for a key never added, so an answer of false spares a read whose answer is "absent". Kept
 * here rather than taken from a package: the maintained JavaScript ones (`bloom-filters`) hash
 * through xxhashjs with 64-bit arithmetic emulated in objects, microseconds an operation, where a
 * node adds and tests millions of keys at start and tens a transfer; two 32-bit FNV-1a variants
 * over the key's bytes cost a few tens of nanoseconds. A key an adversary picks to collide only
 * costs the read the filter would have spared, never a wrong answer.
 */
export class KeyPresence {
  private readonly bits: Uint32Array;
  private readonly mask: number;
  private added = 0;

  /**
   * `expectedKeys` sizes it at 32 bits a key, a power of two and at least 2^25 bits (4 MiB, for up
   * to 2^20 keys): ~0.4 % false positives at that many keys, ~5 % at four times as many.
   */
  constructor(expectedKeys: number) {
    let size = 1 << 25;
    while (size < expectedKeys * 32 && size < 1 << 30) size *= 2;
    this.bits = new Uint32Array(size / 32);
    this.mask = size - 1;
  }

  add(key: Uint8Array): void {
    const [a, b] = positions(key, this.mask);
    this.bits[a >>> 5]! |= 1 << (a & 31);
    this.bits[b >>> 5]! |= 1 << (b & 31);
    this.added++;
  }

  mayContain(key: Uint8Array): boolean {
    const [a, b] = positions(key, this.mask);
    return (this.bits[a >>> 5]! & (1 << (a & 31))) !== 0 && (this.bits[b >>> 5]! & (1 << (b & 31))) !== 0;
  }

  /** Keys added (with repeats): against `sizeBits / 32`, how full it is. */
  get count(): number {
    return this.added;
  }

  get sizeBits(): number {
    return this.mask + 1;
  }
}

/** Two positions from FNV-1a, the second with another basis and a final mix so the two do not move together. */
function positions(key: Uint8Array, mask: number): [number, number] {
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193 ^ key.length;
  for (let i = 0; i < key.length; i++) {
    h1 = Math.imul(h1 ^ key[i]!, 0x01000193);
    h2 = Math.imul(h2 ^ key[i]!, 0x5bd1e995);
  }
  h2 ^= h2 >>> 15;
  h2 = Math.imul(h2, 0x2c1b3c6d);
  h2 ^= h2 >>> 12;
  return [(h1 >>> 0) & mask, (h2 >>> 0) & mask];
}
