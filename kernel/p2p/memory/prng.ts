/**
 * xoshiro128** (Blackman & Vigna), seeded through splitmix32. Small, fast, and identical on every
 * platform, so a simulation seed replays bit for bit. Not for keys or anything secret.
 */
export class Prng {
  private s0: number;
  private s1: number;
  private s2: number;
  private s3: number;

  constructor(seed: number) {
    let x = seed >>> 0;
    const next = (): number => {
      // splitmix32: spreads any 32-bit seed (0 included) over the 128-bit state.
      x = (x + 0x9e3779b9) >>> 0;
      let z = x;
      z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
      return (z ^ (z >>> 16)) >>> 0;
    };
    this.s0 = next();
    this.s1 = next();
    this.s2 = next();
    this.s3 = next();
  }

  nextU32(): number {
    const result = Math.imul(rotl(Math.imul(this.s1, 5) >>> 0, 7), 9) >>> 0;
    const t = (this.s1 << 9) >>> 0;
    this.s2 = (this.s2 ^ this.s0) >>> 0;
    this.s3 = (this.s3 ^ this.s1) >>> 0;
    this.s1 = (this.s1 ^ this.s2) >>> 0;
    this.s0 = (this.s0 ^ this.s3) >>> 0;
    this.s2 = (this.s2 ^ t) >>> 0;
    this.s3 = rotl(this.s3, 11);
    return result;
  }

  /** Uniform integer in [0, n), by rejection so small ranges carry no modulo bias. */
  int(n: number): number {
    if (!Number.isSafeInteger(n) || n <= 0 || n > 0x1_0000_0000) throw new RangeError(`int(n) needs 0 < n <= 2^32, got ${n}`);
    const limit = 0x1_0000_0000 - (0x1_0000_0000 % n);
    for (;;) {
      const r = this.nextU32();
      if (r < limit) return r % n;
    }
  }

  /** Uniform integer in [min, max]. */
  range(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }

  /** True with probability perMille / 1000 (integers only: no floating point in replayable paths). */
  chance(perMille: number): boolean {
    return perMille > 0 && this.int(1000) < perMille;
  }

  /** An independent stream, so adding draws in one component does not shift another's. */
  fork(): Prng {
    return new Prng(this.nextU32() ^ 0x5bd1e995);
  }

  bytes(n: number): Uint8Array {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i += 4) {
      const r = this.nextU32();
      for (let j = 0; j < 4 && i + j < n; j++) out[i + j] = (r >>> (8 * j)) & 0xff;
    }
    return out;
  }
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}
