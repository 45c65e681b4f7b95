import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
import { reply, type RateLimiter, type RpcHandler, type RpcRequest } from '../../kernel/sdk.js';

/** The window of AI_RL_MAX_RPM (decisions.md §52): any 60 s, not calendar minutes. */
export const AI_WINDOW_SECONDS = 60;

type Decision = Awaited<ReturnType<RateLimiter['consume']>>;

/**
 * The one AI request budget of a gateway (decisions.md §52): a client IP may make at most
 * AI_RL_MAX_RPM requests in any 60 s, shared by audit, reaudit, generate and assistant/ask.
 *
 * rate-limiter-flexible counts fixed windows (a window opens at a key's first request and the
 * whole count expires together), which would let a client send 2 × the limit across a window's
 * end. A sliding window is built from it instead: each IP has `rpm` slots, each a key of one
 * point that expires 60 s after the request that took it. A request takes any free slot; when
 * none is free, `rpm` requests were admitted in the last 60 s, and the first slot to expire says
 * when the next is (Retry-After). The store stays the library's, so a Redis-backed limiter could
 * stand in for the memory one.
 */
export class AiBudget {
  private readonly slots: RateLimiterMemory;

  /** `rpm` 0 turns the budget off. */
  constructor(readonly rpm: number) {
    this.slots = new RateLimiterMemory({ keyPrefix: 'gateway-ai', points: 1, duration: AI_WINDOW_SECONDS });
  }

  get enabled(): boolean {
    return this.rpm > 0;
  }

  /**
   * Spends one request of `ip`'s budget when one is left. A refused request spends nothing: a
   * client that keeps asking while refused is let in again once its oldest request is 60 s old.
   */
  async consume(ip: string): Promise<Decision> {
    if (!this.enabled) return { allowed: true };
    let soonest = Number.POSITIVE_INFINITY;
    for (let slot = 0; slot < this.rpm; slot++) {
      const key = `${ip}#${slot}`;
      const held = await this.slots.get(key);
      if (held !== null && held.consumedPoints >= 1 && held.msBeforeNext > 0) {
        soonest = Math.min(soonest, held.msBeforeNext);
        continue;
      }
      try {
        await this.slots.consume(key);
        return { allowed: true };
      } catch (e: unknown) {
        // Taken between the look and the take by a concurrent request of the same IP: try the next.
        if (!(e instanceof RateLimiterRes)) throw e;
        soonest = Math.min(soonest, e.msBeforeNext);
      }
    }
    return { allowed: false, retryAfterMs: Number.isFinite(soonest) ? soonest : AI_WINDOW_SECONDS * 1000 };
  }
}

/** The 429 of decisions.md §52: `{error}` with Retry-After in whole seconds (never 0). */
export function aiBudgetRefusal(budget: AiBudget, retryAfterMs: number): unknown {
  const secs = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return reply(429, { error: 'rate limit exceeded', hint: `the AI endpoints (audit, reaudit, generate, assistant/ask) allow ${budget.rpm} requests per IP in any 60 s (AI_RL_MAX_RPM); retry in ${secs} s` }, { headers: { 'Retry-After': String(secs) } });
}

/**
 * Wraps an AI endpoint's handler: the request spends the caller's budget before anything else
 * (every request counts, whatever its answer: a refused body as much as a served one).
 */
export function aiRateLimited(budget: AiBudget, handler: RpcHandler): RpcHandler {
  return async (req: RpcRequest) => {
    const d = await budget.consume(req.ip);
    if (!d.allowed) return aiBudgetRefusal(budget, d.retryAfterMs);
    return handler(req);
  };
}
