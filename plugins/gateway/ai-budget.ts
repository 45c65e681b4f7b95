import { reply, type RateLimiter, type RpcRequest } from '../../kernel/sdk.js';

/** The window of AI_RL_MAX_RPM (decisions.md §52): any 60 s, not calendar minutes. */
export const AI_WINDOW_SECONDS = 60;
const WINDOW_MS = AI_WINDOW_SECONDS * 1000;

type Decision = Awaited<ReturnType<RateLimiter['consume']>>;

/** One IP's admitted requests of the last 60 s: a ring of their times, oldest at `head` once full. */
interface Ring {
  readonly times: number[];
  head: number;
  /** The last admitted request's time (when the IP may be forgotten: 60 s after it). */
  last: number;
}

/**
 * The one AI request budget of a gateway (decisions.md §52): a client IP may make at most
 * AI_RL_MAX_RPM requests in any 60 s, shared by audit, reaudit, generate and assistant/ask.
 *
 * An exact sliding window in constant time per request: each IP keeps the times of its last
 * `rpm` admitted requests in a ring. A request is admitted when the ring is not full or its
 * oldest entry is 60 s old or more (that entry is overwritten); otherwise it is refused until the
 * oldest leaves the window (Retry-After). A refused request spends nothing. rate-limiter-flexible
 * (the gateway's other limits) counts fixed windows, which would let a client send 2 × the limit
 * across a window's end, and a sliding window built of its keys took up to `rpm` lookups per
 * request; this ring is the counter that needs neither. IPs are kept in the order they last
 * spent (a Map re-inserted on use), so those idle for 60 s are dropped from the front as
 * requests come: memory is bounded by the IPs active in the last minute.
 */
export class AiBudget {
  private readonly rings = new Map<string, Ring>();

  /** `rpm` 0 turns the budget off. */
  constructor(readonly rpm: number) {}

  get enabled(): boolean {
    return this.rpm > 0;
  }

  /** How many IPs the budget holds now (those that spent in the last 60 s, and possibly a few more). */
  get tracked(): number {
    return this.rings.size;
  }

  /**
   * Spends one request of `ip`'s budget when one is left. A refused request spends nothing: a
   * client that keeps asking while refused is let in again once its oldest request is 60 s old.
   */
  consume(ip: string): Promise<Decision> {
    if (!this.enabled) return Promise.resolve({ allowed: true });
    const now = Date.now();
    this.forgetIdle(now);
    const ring = this.rings.get(ip) ?? { times: [], head: 0, last: now };
    if (ring.times.length < this.rpm) {
      ring.times.push(now);
    } else {
      const oldest = ring.times[ring.head]!;
      if (now - oldest < WINDOW_MS) return Promise.resolve({ allowed: false, retryAfterMs: oldest + WINDOW_MS - now });
      ring.times[ring.head] = now;
      ring.head = (ring.head + 1) % this.rpm;
    }
    ring.last = now;
    this.rings.delete(ip);
    this.rings.set(ip, ring);
    return Promise.resolve({ allowed: true });
  }

  /** Drops, from the least recently spending, the IPs whose last request left the window (amortised constant time). */
  private forgetIdle(now: number): void {
    for (const [ip, ring] of this.rings) {
      if (now - ring.last < WINDOW_MS) return;
      this.rings.delete(ip);
    }
  }
}

/** The 429 of decisions.md §52: `{error}` with Retry-After in whole seconds (never 0). */
export function aiBudgetRefusal(budget: AiBudget, retryAfterMs: number): unknown {
  const secs = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return reply(429, { error: 'rate limit exceeded', hint: `the AI endpoints (audit, reaudit, generate, assistant/ask) allow ${budget.rpm} requests per IP in any 60 s (AI_RL_MAX_RPM); retry in ${secs} s` }, { headers: { 'Retry-After': String(secs) } });
}

/**
 * Wraps an AI endpoint's handler (a route table's, or a declared route's, whose request carries
 * the raw one): the request spends the caller's budget before anything else (every request
 * counts, whatever its answer: a refused body as much as a served one).
 */
export function aiRateLimited<R extends { readonly raw: RpcRequest } | RpcRequest>(budget: AiBudget, handler: (req: R) => Promise<unknown> | unknown): (req: R) => Promise<unknown> {
  return async (req: R) => {
    const ip = 'raw' in req ? req.raw.ip : req.ip;
    const d = await budget.consume(ip);
    if (!d.allowed) return aiBudgetRefusal(budget, d.retryAfterMs);
    return handler(req);
  };
}
