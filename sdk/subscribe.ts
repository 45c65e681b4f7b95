import { SdkError } from './errors.js';

/**
 * `/ws` subscriptions (part 2, Events): the gateway's events and balance pushes, kept alive
 * across closes by reconnecting "with exponentially growing delay" (part 2, Message format):
 * `minDelayMs` × 2^n up to `maxDelayMs`, back to `minDelayMs` once a connection delivered its
 * `init`. Balance subscriptions end with their socket, so each reconnection sends them again.
 * Browser-safe: it takes whatever WebSocket the platform has.
 */

/** The part of the WebSocket API used here (browsers' WebSocket and the `ws` package both have it). */
export interface SocketLike {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: unknown) => void) | null;
  onerror: ((ev: unknown) => void) | null;
}

export type SocketFactory = (url: string) => SocketLike;

/** A gateway event: `init`, `new_block`, `tx`, `faucet`, … with its `data` (part 2, Events from the gateway). */
export interface ChainEvent {
  readonly type: string;
  readonly data: unknown;
}

/** A `balance` push: at once on subscribing and after every block. */
export interface BalanceUpdate {
  readonly address: string;
  readonly balance: number;
  readonly balance_human: string;
  readonly nonce: number;
}

export interface SubscribeOptions {
  /** Addresses whose balance is pushed. */
  readonly balances?: readonly string[];
  /** Event types delivered to `onEvent`; all when absent. */
  readonly events?: readonly string[];
  onEvent?(event: ChainEvent): void;
  onBalance?(update: BalanceUpdate): void;
  /** `{type: "error"}` messages of the gateway (a refused subscription, a rate limit). */
  onError?(message: string): void;
  /** Each connection opened, and each close with the delay before the next attempt. */
  onConnection?(state: { readonly open: boolean; readonly attempt: number; readonly retryInMs?: number }): void;
  readonly minDelayMs?: number;
  readonly maxDelayMs?: number;
}

const OPEN = 1;

export class Subscription {
  private socket: SocketLike | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private attempt = 0;
  private closed = false;
  private readonly balances: Set<string>;
  private readonly minDelay: number;
  private readonly maxDelay: number;

  constructor(
    private readonly url: string,
    private readonly factory: SocketFactory,
    private readonly options: SubscribeOptions,
  ) {
    this.balances = new Set(options.balances ?? []);
    this.minDelay = options.minDelayMs ?? 500;
    this.maxDelay = options.maxDelayMs ?? 30_000;
    if (!(this.minDelay > 0 && this.maxDelay >= this.minDelay)) throw new SdkError('input', 'reconnect delays need 0 < minDelayMs <= maxDelayMs');
    this.connect();
  }

  /** The delay before reconnection attempt `n` (0-based): min × 2^n, capped. */
  static delayOf(n: number, minDelayMs: number, maxDelayMs: number): number {
    return Math.min(maxDelayMs, minDelayMs * 2 ** Math.min(n, 30));
  }

  /** Adds a balance subscription, now and on every reconnection. */
  watchBalance(address: string): void {
    this.balances.add(address);
    if (this.socket?.readyState === OPEN) this.socket.send(JSON.stringify({ type: 'subscribe_balance', address }));
  }

  /** Ends the subscription for good: no reconnection. */
  close(): void {
    this.closed = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.socket?.close(1000, 'client closed');
  }

  private connect(): void {
    if (this.closed) return;
    let socket: SocketLike;
    try {
      socket = this.factory(this.url);
    } catch {
      this.retry();
      return;
    }
    this.socket = socket;
    socket.onopen = () => {
      this.options.onConnection?.({ open: true, attempt: this.attempt });
      for (const address of this.balances) socket.send(JSON.stringify({ type: 'subscribe_balance', address }));
    };
    socket.onmessage = (ev) => this.deliver(ev.data);
    socket.onerror = () => undefined; // a close follows, which retries
    socket.onclose = () => {
      if (this.socket === socket) this.socket = undefined;
      this.retry();
    };
  }

  private retry(): void {
    if (this.closed) return;
    const delay = Subscription.delayOf(this.attempt, this.minDelay, this.maxDelay);
    this.options.onConnection?.({ open: false, attempt: this.attempt, retryInMs: delay });
    this.attempt++;
    this.timer = setTimeout(() => this.connect(), delay);
  }

  private deliver(raw: unknown): void {
    let msg: unknown;
    try {
      msg = JSON.parse(typeof raw === 'string' ? raw : String(raw));
    } catch {
      return;
    }
    if (typeof msg !== 'object' || msg === null) return;
    const m = msg as Record<string, unknown>;
    if (m['type'] === 'init') this.attempt = 0; // a connection that served: the next close starts the delays again
    if (m['type'] === 'balance') {
      this.options.onBalance?.(m as unknown as BalanceUpdate);
      return;
    }
    if (m['type'] === 'error') {
      this.options.onError?.(String(m['error']));
      return;
    }
    if (typeof m['type'] !== 'string' || m['type'] === 'rpc_reply') return;
    if (this.options.events && !this.options.events.includes(m['type'])) return;
    this.options.onEvent?.({ type: m['type'], data: m['data'] });
  }
}
