import { VerifyOnceCache, type SignatureVerifier } from '../verifier.js';
import type { VerifyPool } from './pool.js';

/**
 * CachingVerifier's contract (verify-once cache, same stats for /metrics) with the work done on
 * the pool's worker threads: a cache hit never reaches a worker, and after close() the pool
 * verifies in-thread, so the node keeps working through shutdown.
 */
export class PooledVerifier implements SignatureVerifier {
  private readonly cache: VerifyOnceCache;
  readonly stats = { verifications: 0, cacheHits: 0 };

  constructor(
    readonly pool: VerifyPool,
    capacity = 100_000,
  ) {
    this.cache = new VerifyOnceCache(capacity);
  }

  async verify(id: string, signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): Promise<boolean> {
    if (this.cache.has(id)) {
      this.stats.cacheHits++;
      return true;
    }
    this.stats.verifications++;
    const ok = await this.pool.verify(signature, message, publicKey);
    if (ok) this.cache.add(id);
    return ok;
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
