/**
 * Per-client rate limiting behind a one-method interface, so the gateway can hand in its own
 * limiters (several tiers, Redis-backed) without the server knowing which store is behind them.
 */
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';

export type RateDecision = { readonly allowed: true } | { readonly allowed: false; readonly retryAfterMs: number };

export interface RateLimiter {
  /**
   * Spend one request for `key` (the client IP). Rejecting means the store failed, not that the
   * client is over its limit; the server then lets the request through and logs, because an
   * unreachable limiter store must not take the whole API down with it.
   */
  consume(key: string): Promise<RateDecision>;
}

const ALLOWED: RateDecision = { allowed: true };

/** Adapts any rate-limiter-flexible limiter (memory, Redis, union-free ones) to RateLimiter. */
export function flexibleRateLimiter(limiter: Pick<RateLimiterAbstract, 'consume'>): RateLimiter {
  // One `then` on the library's promise, no async frame around it: this runs before every request.
  // A limiter that throws instead of rejecting still answers with a rejected promise, as an async function did.
  return {
    consume: (key: string): Promise<RateDecision> => {
      try {
        return limiter.consume(key).then(allowed, refused);
      } catch (e: unknown) {
        return Promise.reject(e);
      }
    },
  };
}

function allowed(): RateDecision {
  return ALLOWED;
}

function refused(e: unknown): RateDecision {
  // rate-limiter-flexible rejects with a RateLimiterRes for "over the limit" and with an Error
  // for a store failure; only the former is a decision.
  if (e instanceof RateLimiterRes) return { allowed: false, retryAfterMs: e.msBeforeNext };
  throw e;
}

/** `pointsPerSecond` requests per key per 1 s window, in process memory. */
export function memoryRateLimiter(pointsPerSecond: number): RateLimiter {
  if (!Number.isInteger(pointsPerSecond) || pointsPerSecond <= 0) {
    throw new RangeError(`rate limit must be a positive integer, got ${pointsPerSecond}`);
  }
  return flexibleRateLimiter(new RateLimiterMemory({ points: pointsPerSecond, duration: 1 }));
}

/** Whole seconds for a Retry-After header; never 0, which clients read as "retry now". */
export function retryAfterSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}
