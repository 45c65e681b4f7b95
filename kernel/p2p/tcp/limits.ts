/**
 * Time-dependent policy pieces (token buckets, misbehaviour scores, reconnection backoff). They take
 * `now` as an argument instead of reading a clock so tests can drive them deterministically.
 */

export class TokenBucket {
  private tokens: number;
  private last: number;

  constructor(
    private readonly ratePerSecond: number,
    private readonly burst: number,
    now: number,
  ) {
    this.tokens = burst;
    this.last = now;
  }

  /** Takes `n` tokens if available. A clock that goes backwards refills nothing (never negative time). */
  take(n: number, now: number): boolean {
    if (now > this.last) {
      this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) / 1000) * this.ratePerSecond);
      this.last = now;
    }
    if (this.tokens < n) return false;
    this.tokens -= n;
    return true;
  }
}

/** Points that leak away linearly, so an honest peer's occasional hiccup is eventually forgotten. */
export class DecayingScore {
  private points = 0;
  private at: number;

  constructor(private readonly decayPerSecond: number, now: number) {
    this.at = now;
  }

  value(now: number): number {
    if (now > this.at) {
      this.points = Math.max(0, this.points - ((now - this.at) / 1000) * this.decayPerSecond);
      this.at = now;
    }
    return this.points;
  }

  add(points: number, now: number): number {
    this.points = this.value(now) + points;
    return this.points;
  }
}

/**
 * Exponential backoff with "equal jitter": half the delay is fixed, half random. The fixed half
 * keeps a flapping seed from being hammered; the random half de-synchronises nodes that lost the same
 * peer at the same moment.
 */
export function backoffDelay(attempt: number, baseMs: number, maxMs: number, rng: () => number): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.min(attempt, 30));
  return Math.round(ceiling / 2 + rng() * (ceiling / 2));
}

/** Small seeded PRNG (mulberry32): deterministic jitter without pulling in a dependency. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
