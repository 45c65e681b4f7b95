import { RateLimiterMemory } from 'rate-limiter-flexible';
import { flexibleRateLimiter, reply, type RateLimiter, type RpcHandler, type RpcRequest } from '../../kernel/sdk.js';

/**
 * The gateway's request-rate tiers (part 2, Limits → Request rates), all on rate-limiter-flexible:
 * GLOBAL_RL_MAX_RPS per IP for every HTTP request and socket upgrade (enforced by the server
 * before routing), and AI_RL_MAX_RPM per IP on the expensive AI endpoints.
 */
export function globalRateLimiter(rps: number): RateLimiter | undefined {
  if (rps === 0) return undefined;
  return flexibleRateLimiter(new RateLimiterMemory({ keyPrefix: 'gateway-global', points: rps, duration: 1 }));
}

/** Wraps an AI endpoint's handler: over AI_RL_MAX_RPM from one IP answers 429 with Retry-After. */
export function aiRateLimited(rpm: number, handler: RpcHandler): RpcHandler {
  if (rpm === 0) return handler;
  const limiter = flexibleRateLimiter(new RateLimiterMemory({ keyPrefix: 'gateway-ai', points: rpm, duration: 60 }));
  return async (req: RpcRequest) => {
    const d = await limiter.consume(req.ip);
    if (!d.allowed) {
      const secs = Math.max(1, Math.ceil(d.retryAfterMs / 1000));
      return reply(429, { error: 'rate limit exceeded', hint: `AI endpoints allow ${rpm} requests per minute per IP (AI_RL_MAX_RPM)` }, { headers: { 'Retry-After': String(secs) } });
    }
    return handler(req);
  };
}

/** Per-connection socket RPC budget (WS_RPC_MAX_RPS), keyed by connection id. */
export function socketRpcLimiter(rps: number): RateLimiter {
  return flexibleRateLimiter(new RateLimiterMemory({ keyPrefix: 'gateway-ws-rpc', points: rps, duration: 1 }));
}
