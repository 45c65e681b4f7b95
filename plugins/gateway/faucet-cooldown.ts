import { LRUCache } from 'lru-cache';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { KvStoreChoice } from './config.js';

export type CooldownDecision = { readonly ok: true } | { readonly ok: false; readonly retryAfterSecs: number };

/** Where cooldowns are kept right now, as /health reports it. */
export type CooldownBackend = 'off' | 'memory' | 'redis' | 'memory (redis unavailable)';

const PREFIX = 'chain:gateway:faucet:';

/** How long the start-up probe of the default store waits for an answer. */
const PROBE_TIMEOUT_MS = 1000;

/**
 * FAUCET_COOLDOWN_SECS per address and per IP. The reservations live in Redis (they survive a
 * gateway restart and are shared by several gateways) when KV_STORE_URL names one, or, with
 * KV_STORE_URL unset, when the local store of part 2's default (port 6379) answers at start;
 * otherwise in process memory. Losing Redis must not take the faucet down, so every Redis
 * failure falls back to memory and is logged once per outage.
 */
export class FaucetCooldown {
  private readonly memory = new LRUCache<string, number>({ max: 100_000 });
  private redis: Redis | undefined;
  private redisFailing = false;
  private everReady = false;
  private firstReady: Promise<void> | undefined;
  /** The default store's address until `start` has tried it. */
  private untriedDefault: string | undefined;
  /** Whether the operator named the store (KV_STORE_URL) rather than the default finding one. */
  readonly configured: boolean;

  constructor(
    private readonly secs: number,
    store: KvStoreChoice,
    private readonly log: Logger,
  ) {
    this.configured = store.kind === 'configured';
    if (secs > 0 && store.kind === 'configured') this.connect(store.url);
    if (secs > 0 && store.kind === 'default') this.untriedDefault = store.url;
  }

  /**
   * KV_STORE_URL unset: tries the local store once, before the gateway listens. One that answers
   * is used as a configured one would be; none, and the cooldowns stay in memory for the life of
   * the process, said in one log line (nothing retries it: the operator asked for no store).
   */
  async start(): Promise<void> {
    const url = this.untriedDefault;
    this.untriedDefault = undefined;
    if (url === undefined) return;
    const problem = await redisProblem(url);
    if (problem !== undefined) {
      this.log.info({ kv_store: url, reason: problem }, `KV_STORE_URL is unset and no key-value store answers at ${url}: faucet cooldowns are kept in memory`);
      return;
    }
    this.connect(url);
    await this.connected();
    this.log.info({ kv_store: url }, `KV_STORE_URL is unset: faucet cooldowns are kept in the local store at ${url}`);
  }

  private connect(url: string): void {
    const redis = new Redis(url, {
      lazyConnect: false,
      // Fail fast instead of queueing: a faucet request must not hang while Redis is away.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: 2000,
      retryStrategy: (times) => Math.min(times * 200, 2000),
    });
    this.redis = redis;
    this.firstReady = new Promise((resolve) => redis.once('ready', () => resolve()));
    redis.on('error', (err: Error) => this.redisDown(err));
    // A dropped connection may not raise 'error' until a reconnect attempt fails; say so at once.
    redis.on('close', () => {
      if (this.everReady) this.redisDown(new Error('connection closed'));
    });
    redis.on('ready', () => {
      this.everReady = true;
      if (this.redisFailing) this.log.info('faucet cooldown store: Redis is back');
      this.redisFailing = false;
    });
  }

  get backend(): CooldownBackend {
    if (this.secs === 0) return 'off';
    if (!this.redis) return 'memory';
    return this.redis.status === 'ready' && !this.redisFailing ? 'redis' : 'memory (redis unavailable)';
  }

  /**
   * Waits (bounded) for the first Redis connection, so a request right after start-up does not
   * take the memory fallback and grant a cooldown Redis already holds.
   */
  async connected(timeoutMs = 2000): Promise<boolean> {
    if (!this.redis || !this.firstReady) return false;
    if (this.isReady()) return true;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.firstReady, new Promise<void>((r) => (timer = setTimeout(r, timeoutMs)))]);
    clearTimeout(timer);
    return this.isReady();
  }

  private isReady(): boolean {
    return this.redis?.status === 'ready';
  }

  /** Reserves every key for the cooldown; if one is taken, reserves none. */
  async acquire(keys: readonly string[]): Promise<CooldownDecision> {
    if (this.secs === 0) return { ok: true };
    // Only the first connection is waited for; after an outage requests go to memory at once.
    if (this.redis && !this.everReady && !this.redisFailing) await this.connected();
    if (this.redis && this.redis.status === 'ready') {
      try {
        return await this.acquireRedis(this.redis, keys);
      } catch (err: unknown) {
        this.redisDown(err);
      }
    }
    return this.acquireMemory(keys);
  }

  /** Gives keys back when the node refused the request, so a failed call does not cost a day. */
  async release(keys: readonly string[]): Promise<void> {
    for (const k of keys) this.memory.delete(k);
    if (this.redis && this.redis.status === 'ready') {
      try {
        await this.redis.del(...keys.map((k) => PREFIX + k));
      } catch (err: unknown) {
        this.redisDown(err);
      }
    }
  }

  async close(): Promise<void> {
    if (!this.redis) return;
    try {
      await this.redis.quit();
    } catch {
      this.redis.disconnect();
    }
  }

  private async acquireRedis(redis: Redis, keys: readonly string[]): Promise<CooldownDecision> {
    const taken: string[] = [];
    for (const k of keys) {
      const ok = await redis.set(PREFIX + k, '1', 'EX', this.secs, 'NX');
      if (ok !== 'OK') {
        const ttl = await redis.ttl(PREFIX + k);
        if (taken.length > 0) await redis.del(...taken);
        return { ok: false, retryAfterSecs: Math.max(1, ttl) };
      }
      taken.push(PREFIX + k);
    }
    return { ok: true };
  }

  private acquireMemory(keys: readonly string[]): CooldownDecision {
    const now = Date.now();
    for (const k of keys) {
      const until = this.memory.get(k);
      if (until !== undefined && until > now) return { ok: false, retryAfterSecs: Math.max(1, Math.ceil((until - now) / 1000)) };
    }
    for (const k of keys) this.memory.set(k, now + this.secs * 1000);
    return { ok: true };
  }

  private redisDown(err: unknown): void {
    if (!this.redisFailing) this.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'faucet cooldown store: Redis unavailable, keeping cooldowns in memory until it returns');
    this.redisFailing = true;
  }
}

/** Why `url` cannot serve as the store (refused, timed out, not Redis), or undefined when it answers PING; one try. */
export async function redisProblem(url: string, timeoutMs = PROBE_TIMEOUT_MS): Promise<string | undefined> {
  const r = new Redis(url, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, connectTimeout: timeoutMs, retryStrategy: () => null });
  r.on('error', () => undefined);
  try {
    await r.connect();
    await r.ping();
    return undefined;
  } catch (err: unknown) {
    return err instanceof Error ? err.message : String(err);
  } finally {
    r.disconnect();
  }
}
