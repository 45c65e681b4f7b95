import { VerifyOnce } from '../verifier.js';
import type { VerifyPool } from './pool.js';

/**
 * Verify-once in front of the worker pool: a cache hit never reaches a worker, and after
 * close() the pool verifies in the calling thread, so late calls still get a correct answer.
 */
export class PooledVerifier extends VerifyOnce {
  constructor(
    readonly pool: VerifyPool,
    capacity = 100_000,
  ) {
    super((s, m, p) => pool.verify(s, m, p), capacity);
  }

  close(): Promise<void> {
    return this.pool.close();
  }
}
