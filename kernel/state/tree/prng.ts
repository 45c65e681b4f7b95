/**
 * mulberry32: a tiny seeded PRNG so tests and the bench are reproducible (Math.random is not).
 * Integer-only output; not for anything security related.
 */
export class Prng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** Next 32-bit unsigned integer. */
  nextU32(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  }

  /** Uniform integer in [0, bound), bound ≤ 2^32, by rejection so there is no modulo bias. */
  below(bound: number): number {
    if (!Number.isSafeInteger(bound) || bound <= 0 || bound > 0x1_0000_0000) throw new RangeError('bound must be in 1..2^32');
    const limit = 0x1_0000_0000 - (0x1_0000_0000 % bound);
    for (;;) {
      const x = this.nextU32();
      if (x < limit) return x % bound;
    }
  }

  bytes(length: number): Uint8Array {
    const out = new Uint8Array(length);
    for (let i = 0; i < length; i += 4) {
      let x = this.nextU32();
      for (let j = i; j < Math.min(i + 4, length); j++) {
        out[j] = x & 0xff;
        x >>>= 8;
      }
    }
    return out;
  }

  /** Fisher–Yates shuffle of a copy. */
  shuffled<T>(items: readonly T[]): T[] {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = this.below(i + 1);
      const tmp = out[i]!;
      out[i] = out[j]!;
      out[j] = tmp;
    }
    return out;
  }
}
