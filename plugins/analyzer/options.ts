import { Type, type Static } from '@sinclair/typebox';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { flexibleRateLimiter, reply, type RateLimiter } from '../../kernel/sdk.js';

/** The analyzer's node options (`plugins[].options` in the network's config). */
export const AnalyzerOptionsSchema = Type.Object(
  {
    /**
     * Analyses (`POST /api/v1/contracts/analyze` and `/attest` together) one client IP may ask of
     * this node in any 60 s window (a fixed window per IP); 0 turns the budget off. A gateway
     * asks from its own IP for all its clients (audit, reaudit, generate), which it budgets itself
     * (AI_RL_MAX_RPM), so a node behind a gateway needs room for it.
     */
    analysis_rpm: Type.Integer({ minimum: 0, maximum: 1_000_000, default: 600 }),
  },
  { additionalProperties: false },
);
export type AnalyzerOptions = Static<typeof AnalyzerOptionsSchema>;

const WINDOW_SECONDS = 60;

/**
 * The node's per-IP analysis budget, on the kernel's rate-limit adapter over
 * rate-limiter-flexible (the HTTP server's own limiter is the same machinery). Analysis is a
 * linear pass over at most `contract_max_bytecode_bytes` (tens of milliseconds for 256 KiB, on the
 * main thread); the budget bounds what one client can make the node spend.
 */
export function analysisBudget(rpm: number): RateLimiter | undefined {
  if (rpm === 0) return undefined;
  return flexibleRateLimiter(new RateLimiterMemory({ keyPrefix: 'analyzer-analysis', points: rpm, duration: WINDOW_SECONDS }));
}

/** Runs `handler` when `ip` has analyses left, else answers 429 with Retry-After (part 2's rate-limit answer). */
export async function withinBudget<T>(budget: RateLimiter | undefined, rpm: number, ip: string, handler: () => Promise<T>): Promise<T | unknown> {
  if (budget) {
    const d = await budget.consume(ip);
    if (!d.allowed) {
      const secs = Math.max(1, Math.ceil(d.retryAfterMs / 1000));
      return reply(429, { error: 'rate limit exceeded', hint: `this node answers ${rpm} analyses (analyze and attest) per IP in 60 s (the analyzer's analysis_rpm option); retry in ${secs} s` }, { headers: { 'Retry-After': String(secs) } });
    }
  }
  return handler();
}
