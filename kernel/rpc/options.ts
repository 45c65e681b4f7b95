/**
 * ServerOptions with every default filled in and every value checked once, before a backend is
 * built, so both backends start from the same settings and a bad value fails at startup.
 */
import { readFileSync } from 'node:fs';
import { pino } from 'pino';
import type { Logger } from 'pino';
import { CorsPolicy } from './cors.js';
import { addressMatcher } from './ip.js';
import { memoryRateLimiter } from './rate-limit.js';
import type { RateLimiter } from './rate-limit.js';
import { DEFAULT_MAX_BODY_BYTES } from './server.js';
import type { ServerOptions, WsHandlers } from './server.js';

export interface ResolvedWsOptions {
  readonly path: string;
  readonly maxMessageBytes: number;
  readonly transportMaxMessageBytes: number;
  readonly idleTimeoutSeconds: number;
  readonly maxBackpressureBytes: number;
  readonly handlers: WsHandlers;
}

export interface ResolvedTls {
  readonly certFile: string;
  readonly keyFile: string;
  /** Read at startup by both backends, so a missing or unreadable file fails the same way in each. */
  readonly cert: Buffer;
  readonly key: Buffer;
}

export interface ResolvedOptions {
  readonly host: string;
  readonly port: number;
  readonly cors: CorsPolicy;
  readonly rateLimiter: RateLimiter | undefined;
  /** Whether a client IP skips the rate limiter. */
  readonly rateLimitExempt: (ip: string) => boolean;
  readonly maxBodyBytes: number;
  readonly trustProxy: boolean | number;
  readonly tls: ResolvedTls | undefined;
  readonly ws: ResolvedWsOptions | undefined;
  readonly log: Logger;
}

export const DEFAULT_WS_IDLE_TIMEOUT_SECONDS = 120;
export const DEFAULT_WS_MAX_BACKPRESSURE_BYTES = 1024 * 1024;
/** Transport cap as a multiple of maxMessageBytes: room to see (and report) an oversize message without accepting unbounded frames. */
export const WS_TRANSPORT_CAP_FACTOR = 16;

export function resolveOptions(opts: ServerOptions): ResolvedOptions {
  if (!Number.isInteger(opts.port) || opts.port < 0 || opts.port > 65535) throw new RangeError(`bad port ${opts.port}`);
  const maxBodyBytes = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  positiveInt('maxBodyBytes', maxBodyBytes);
  if (!Number.isInteger(opts.rateLimitPerSecond) || opts.rateLimitPerSecond < 0) {
    throw new RangeError(`rateLimitPerSecond must be a non-negative integer, got ${opts.rateLimitPerSecond}`);
  }
  const trustProxy = opts.trustProxy ?? false;
  if (typeof trustProxy === 'number' && (!Number.isInteger(trustProxy) || trustProxy < 0)) {
    throw new RangeError(`trustProxy must be a boolean or a non-negative hop count, got ${trustProxy}`);
  }
  const rateLimiter = opts.rateLimiter ?? (opts.rateLimitPerSecond > 0 ? memoryRateLimiter(opts.rateLimitPerSecond) : undefined);
  const rateLimitExempt = addressMatcher('rateLimitExempt', opts.rateLimitExempt ?? []);
  const tls = opts.tls === undefined ? undefined : { ...opts.tls, cert: readFileSync(opts.tls.certFile), key: readFileSync(opts.tls.keyFile) };

  let ws: ResolvedWsOptions | undefined;
  if (opts.ws !== undefined) {
    const w = opts.ws;
    if (!w.path.startsWith('/')) throw new Error(`WebSocket path must start with '/': ${w.path}`);
    if (w.path.includes(':') || w.path.includes('*')) throw new Error(`WebSocket path must be literal: ${w.path}`);
    positiveInt('ws.maxMessageBytes', w.maxMessageBytes);
    const transportMaxMessageBytes = w.transportMaxMessageBytes ?? w.maxMessageBytes * WS_TRANSPORT_CAP_FACTOR;
    positiveInt('ws.transportMaxMessageBytes', transportMaxMessageBytes);
    if (transportMaxMessageBytes < w.maxMessageBytes) throw new RangeError('ws.transportMaxMessageBytes must be ≥ ws.maxMessageBytes');
    const idleTimeoutSeconds = w.idleTimeoutSeconds ?? DEFAULT_WS_IDLE_TIMEOUT_SECONDS;
    // uWS refuses 1..8 and works in ~4 s steps; holding node to the same rule keeps the backends interchangeable.
    if (!Number.isInteger(idleTimeoutSeconds) || (idleTimeoutSeconds !== 0 && idleTimeoutSeconds < 8)) {
      throw new RangeError(`ws.idleTimeoutSeconds must be 0 or an integer ≥ 8, got ${idleTimeoutSeconds}`);
    }
    const maxBackpressureBytes = w.maxBackpressureBytes ?? DEFAULT_WS_MAX_BACKPRESSURE_BYTES;
    positiveInt('ws.maxBackpressureBytes', maxBackpressureBytes);
    ws = { path: w.path, maxMessageBytes: w.maxMessageBytes, transportMaxMessageBytes, idleTimeoutSeconds, maxBackpressureBytes, handlers: w.handlers };
  }

  return {
    host: opts.host,
    port: opts.port,
    cors: new CorsPolicy(opts.corsAllowedOrigins),
    rateLimiter,
    rateLimitExempt,
    maxBodyBytes,
    trustProxy,
    tls,
    ws,
    log: opts.logger ?? pino({ name: 'http' }),
  };
}

function positiveInt(name: string, v: number): void {
  if (!Number.isSafeInteger(v) || v <= 0) throw new RangeError(`${name} must be a positive integer, got ${v}`);
}
