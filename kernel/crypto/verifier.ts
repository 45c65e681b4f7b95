import type { SignatureProvider } from './provider.js';

/**
 * The node's single door for signature verification. It remembers successful verifications by
 * an id (transaction hash + layout), so a transaction verified at mempool admission is not
 * verified again when its block is validated or executed. Counters feed /metrics.
 */
export interface SignatureVerifier {
  verify(id: string, signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): Promise<boolean>;
  /**
   * Whether `id` verified before (counted as a cache hit when it did): lets a block's validation
   * confirm a pending transaction's signature without decoding its key and signature again.
   */
  recall(id: string): boolean;
  readonly stats: { verifications: number; cacheHits: number };
}

/**
 * The verify-once memory shared by the in-thread and the pooled verifier. The id is the hash of
 * the whole signed body, signature included, so a hit proves the same bytes verified before.
 * Only successes are remembered; oldest entries go first when full.
 */
export class VerifyOnceCache {
  private readonly verified = new Map<string, true>();

  constructor(private readonly capacity = 100_000) {}

  has(id: string): boolean {
    return this.verified.has(id);
  }

  add(id: string): void {
    if (this.verified.has(id)) return;
    if (this.verified.size >= this.capacity) this.verified.delete(this.verified.keys().next().value as string);
    this.verified.set(id, true);
  }
}

/**
 * The verify-once policy, whatever does the verifying: a cache hit answers at once and is
 * counted; a miss is verified by `check` and remembered only when valid.
 */
export class VerifyOnce implements SignatureVerifier {
  private readonly cache: VerifyOnceCache;
  readonly stats = { verifications: 0, cacheHits: 0 };

  constructor(
    private readonly check: (signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array) => boolean | Promise<boolean>,
    capacity = 100_000,
  ) {
    this.cache = new VerifyOnceCache(capacity);
  }

  recall(id: string): boolean {
    if (!this.cache.has(id)) return false;
    this.stats.cacheHits++;
    return true;
  }

  async verify(id: string, signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): Promise<boolean> {
    if (this.cache.has(id)) {
      this.stats.cacheHits++;
      return true;
    }
    // The same transaction can be checked twice at once (its relayed copy is being admitted when
    // a proposal carrying it arrives): the second check waits for the first instead of redoing it.
    const running = this.inFlight.get(id);
    if (running) {
      this.stats.cacheHits++;
      return running;
    }
    this.stats.verifications++;
    const run = Promise.resolve(this.check(signature, message, publicKey)).then((ok) => {
      if (ok) this.cache.add(id);
      return ok;
    });
    this.inFlight.set(id, run);
    try {
      return await run;
    } finally {
      this.inFlight.delete(id);
    }
  }

  private readonly inFlight = new Map<string, Promise<boolean>>();
}

/** Verify-once on the calling thread. */
export class CachingVerifier extends VerifyOnce {
  constructor(provider: SignatureProvider, capacity = 100_000) {
    super((s, m, p) => provider.verify(s, m, p), capacity);
  }
}
