import type { Logger } from 'pino';
import { isChainError, stringify, type Hooks, type RateLimiter, type WsConnection, type WsHandlers } from '../../kernel/sdk.js';
import type { GatewayConfig } from './config.js';
import type { EventBus, EventMessage } from './event-bus.js';
import type { GatewayMetrics } from './metrics.js';
import { errorMessageOf, isObject } from './node-client.js';
import type { NodeReads } from './node-reads.js';
import type { NodePoller } from './poller.js';
import { socketRpcLimiter } from './rate-limits.js';
import { withCaller } from './rpc-methods.js';
import type { ShardRouter } from './shard-router.js';

interface Session {
  readonly conn: WsConnection;
  /** Events are held back until `init` went out, so `init` is always a client's first message. */
  ready: boolean;
  readonly initSent: Promise<void>;
  readonly subs: Set<string>;
  /**
   * Subscriptions whose first balance read is in flight, each with the token of the request that
   * reserved it: if that read fails, only the same reservation is given back, never a later
   * subscribe of the same address made after an unsubscribe.
   */
  readonly reserving: Map<string, symbol>;
  lastActivity: number;
  /** Bytes still queued at the previous sweep; a queue that never drains marks a dead peer. */
  lastBuffered: number;
}

/** Socket error texts of part 2, "Socket errors". */
export const SOCKET_ERRORS = {
  tooLarge: 'message too large',
  subscriptionLimit: 'subscription limit exceeded',
  rpcRateLimit: 'rpc rate limit exceeded',
} as const;

const RECENT = 10;

/**
 * The `/ws` endpoint: `init` on connect, every bus event to every client, balance subscriptions
 * (pushed at once and after every block), and `rpc` calls dispatched through the `rpcMethods`
 * hook. Every client mistake is answered with `{type:"error", error}` and the connection stays up.
 */
export class SocketHub {
  private readonly sessions = new Map<number, Session>();
  private readonly rpcLimiter: RateLimiter;
  private sweepTimer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;

  constructor(
    private readonly config: GatewayConfig,
    private readonly hooks: Hooks,
    private readonly events: EventBus,
    private readonly reads: NodeReads,
    private readonly poller: NodePoller,
    private readonly router: ShardRouter,
    private readonly metrics: GatewayMetrics,
    private readonly log: Logger,
  ) {
    this.rpcLimiter = socketRpcLimiter(config.wsRpcMaxRps);
  }

  get clientCount(): number {
    return this.sessions.size;
  }

  start(): void {
    this.unsubscribe = this.events.subscribe((e) => this.broadcast(e));
    this.sweepTimer = setInterval(() => this.sweep(), this.config.wsStaleCheckMs);
    this.sweepTimer.unref();
  }

  stop(): void {
    this.unsubscribe?.();
    if (this.sweepTimer) clearInterval(this.sweepTimer);
  }

  handlers(): WsHandlers {
    return {
      open: (conn) => this.open(conn),
      message: (conn, text) => this.message(conn, text),
      tooLarge: async (conn) => {
        const s = this.sessions.get(conn.id);
        if (s) await s.initSent;
        this.metrics.wsMessages.inc({ kind: 'too_large' });
        this.sendError(conn, SOCKET_ERRORS.tooLarge);
      },
      close: (conn) => {
        this.sessions.delete(conn.id);
        this.metrics.wsConnections.set(this.sessions.size);
      },
    };
  }

  private open(conn: WsConnection): void {
    let resolveInit!: () => void;
    const initSent = new Promise<void>((r) => (resolveInit = r));
    const session: Session = { conn, ready: false, initSent, subs: new Set(), reserving: new Map(), lastActivity: Date.now(), lastBuffered: 0 };
    this.sessions.set(conn.id, session);
    this.metrics.wsConnections.set(this.sessions.size);
    void this.initData()
      .then((data) => {
        conn.send(stringify({ type: 'init', data }));
      })
      .catch((err: unknown) => this.log.warn({ err }, 'init could not be built'))
      .finally(() => {
        session.ready = true;
        resolveInit();
      });
  }

  /** The `init` payload; never fails: with the node down it carries zeros and empty lists. */
  private async initData(): Promise<Record<string, unknown>> {
    const view = await this.poller.current();
    const [blocks, txs] = await Promise.all([this.listOf(`/api/v1/blocks?limit=${RECENT}`, 'blocks'), this.listOf(`/api/v1/transactions?limit=${RECENT}`, 'transactions')]);
    return {
      height: view?.height ?? 0,
      tps: view?.tps ?? 0,
      finality_ms: view?.finality_ms ?? 0,
      shard_count: this.router.shardCount,
      validator_count: view?.validator_count ?? 0,
      blocks,
      txs,
      total_blocks: view?.height ?? 0,
      total_txs: view?.total_txs ?? 0,
    };
  }

  private async listOf(path: string, key: string): Promise<unknown[]> {
    try {
      const a = await this.reads.get(path);
      return a.status === 200 && isObject(a.body) && Array.isArray(a.body[key]) ? (a.body[key] as unknown[]) : [];
    } catch {
      return [];
    }
  }

  private async message(conn: WsConnection, text: string): Promise<void> {
    const s = this.sessions.get(conn.id);
    if (!s) return;
    s.lastActivity = Date.now();
    await s.initSent;
    let msg: unknown;
    try {
      msg = JSON.parse(text);
    } catch {
      this.metrics.wsMessages.inc({ kind: 'malformed' });
      return this.sendError(conn, 'malformed message: not valid JSON');
    }
    if (!isObject(msg) || typeof msg.type !== 'string') {
      this.metrics.wsMessages.inc({ kind: 'malformed' });
      return this.sendError(conn, 'malformed message: expected a JSON object with a string "type"');
    }
    switch (msg.type) {
      case 'subscribe_balance':
        this.metrics.wsMessages.inc({ kind: 'subscribe_balance' });
        return this.subscribe(s, msg.address);
      case 'unsubscribe_balance':
        this.metrics.wsMessages.inc({ kind: 'unsubscribe_balance' });
        if (typeof msg.address === 'string') {
          s.subs.delete(msg.address);
          s.reserving.delete(msg.address);
        }
        return;
      case 'rpc':
        this.metrics.wsMessages.inc({ kind: 'rpc' });
        return this.rpc(s, msg);
      case 'ping':
        conn.send(stringify({ type: 'pong', ts: Date.now() }));
        return;
      default:
        this.metrics.wsMessages.inc({ kind: 'unknown' });
        return this.sendError(conn, `unknown message type "${msg.type.slice(0, 64)}" (expected subscribe_balance, unsubscribe_balance, rpc or ping)`);
    }
  }

  private async subscribe(s: Session, address: unknown): Promise<void> {
    if (typeof address !== 'string' || address.length === 0 || address.length > 128) return this.sendError(s.conn, 'subscribe_balance needs "address" (a chain address)');
    const fresh = !s.subs.has(address);
    const token = Symbol(address);
    if (fresh) {
      if (s.subs.size >= this.config.wsMaxSubsPerClient) return this.sendError(s.conn, SOCKET_ERRORS.subscriptionLimit, { address, limit: this.config.wsMaxSubsPerClient });
      // The slot is taken before the balance read is awaited: a burst of subscriptions all
      // passing the size check while their reads were in flight would exceed the limit.
      s.subs.add(address);
      s.reserving.set(address, token);
    }
    const balance = await this.balanceOf(address);
    const mine = s.reserving.get(address) === token;
    if (mine) s.reserving.delete(address);
    if ('error' in balance) {
      if (mine) s.subs.delete(address);
      return this.sendError(s.conn, balance.error, { address });
    }
    s.conn.send(stringify(balance.message));
  }

  private async balanceOf(address: string): Promise<{ message: Record<string, unknown> } | { error: string }> {
    try {
      const a = await this.reads.get(this.reads.accountPath(address));
      if (a.status !== 200 || !isObject(a.body)) return { error: errorMessageOf(a) };
      return { message: { type: 'balance', address, balance: a.body.balance ?? 0, balance_human: a.body.balance_human ?? '0 COIN', nonce: a.body.nonce ?? 0 } };
    } catch (e: unknown) {
      return { error: isChainError(e) ? e.message : 'balance unavailable' };
    }
  }

  private async rpc(s: Session, msg: Record<string, unknown>): Promise<void> {
    const id = msg.id ?? null;
    const decision = await this.rpcLimiter.consume(String(s.conn.id)).catch(() => ({ allowed: true as const }));
    if (!decision.allowed) return this.sendError(s.conn, SOCKET_ERRORS.rpcRateLimit, { id });
    const reply = (result: unknown, error: string | null): void => {
      s.conn.send(stringify({ type: 'rpc_reply', id, result: error === null ? (result ?? null) : null, error }));
    };
    if (typeof msg.method !== 'string') return reply(null, 'malformed rpc: "method" must be a string');
    const params = msg.params === undefined || msg.params === null ? {} : msg.params;
    if (!isObject(params)) return reply(null, 'malformed rpc: "params" must be an object');
    const hook = this.hooks.rpcMethods.get(msg.method);
    if (!hook || hook.taps.length === 0) return reply(null, `unknown method "${msg.method.slice(0, 64)}"`);
    try {
      reply(await hook.promise(withCaller(params, s.conn.ip)), null);
    } catch (e: unknown) {
      if (isChainError(e)) return reply(null, e.message);
      this.log.error({ err: e, method: msg.method }, 'socket rpc method failed');
      reply(null, 'internal error');
    }
  }

  private broadcast(e: EventMessage): void {
    if (e.type === 'init') return; // per-connection only
    const text = stringify(e);
    for (const s of this.sessions.values()) if (s.ready) s.conn.send(text);
    if (e.type === 'new_block') void this.pushBalances();
  }

  /** After a block: one read per subscribed address (the poller already cleared the stale cache). */
  private async pushBalances(): Promise<void> {
    const byAddress = new Map<string, Session[]>();
    for (const s of this.sessions.values()) {
      if (!s.ready) continue;
      for (const a of s.subs) byAddress.set(a, [...(byAddress.get(a) ?? []), s]);
    }
    await Promise.all(
      [...byAddress].map(async ([address, sessions]) => {
        const b = await this.balanceOf(address);
        if (!('message' in b)) return;
        const text = stringify(b.message);
        for (const s of sessions) s.conn.send(text);
      }),
    );
  }

  /**
   * Dead-connection sweep every WS_STALE_CHECK_MS. The transport already pings idle clients and
   * drops silent ones; this removes what it cannot see: sessions whose socket is closed but whose
   * close never reached us, and peers that stopped reading (send queue not shrinking between sweeps).
   */
  private sweep(): void {
    for (const [id, s] of this.sessions) {
      if (!s.conn.isOpen) {
        this.sessions.delete(id);
        continue;
      }
      const buffered = s.conn.bufferedAmount;
      if (buffered > 0 && buffered >= s.lastBuffered && s.lastBuffered > 0) {
        this.log.info({ conn: id, buffered }, 'closing a socket client that stopped reading');
        s.conn.close(1001, 'stale connection');
        this.sessions.delete(id);
        continue;
      }
      s.lastBuffered = buffered;
    }
    this.metrics.wsConnections.set(this.sessions.size);
  }

  private sendError(conn: WsConnection, error: string, extra: Record<string, unknown> = {}): void {
    conn.send(stringify({ type: 'error', error, ...extra }));
  }
}
