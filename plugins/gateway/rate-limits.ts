import { RateLimiterMemory } from 'rate-limiter-flexible';
import { flexibleRateLimiter, type RateLimiter } from '../../kernel/sdk.js';

/**
 * The gateway's request-rate tiers (part 2, Limits → Request rates), all on rate-limiter-flexible:
 * GLOBAL_RL_MAX_RPS per IP for every HTTP request and socket upgrade (enforced by the server
 * before routing); AI_RL_MAX_RPM, a sliding window per IP over the AI endpoints, is ai-budget.ts.
 */
export function globalRateLimiter(rps: number): RateLimiter | undefined {
  if (rps === 0) return undefined;
  return flexibleRateLimiter(new RateLimiterMemory({ keyPrefix: 'gateway-global', points: rps, duration: 1 }));
}

/** Per-connection socket RPC budget (WS_RPC_MAX_RPS), keyed by connection id. */
export function socketRpcLimiter(rps: number): RateLimiter {
  return flexibleRateLimiter(new RateLimiterMemory({ keyPrefix: 'gateway-ws-rpc', points: rps, duration: 1 }));
}
