/**
 * The one HTTP + WebSocket server surface shared by the node RPC and the public gateway. Two
 * backends implement it (uWebSockets.js and node:http + ws); everything a client can observe —
 * routing, error bodies, CORS, rate limiting, body limits, WebSocket size handling — is decided in
 * backend-neutral code (pipeline.ts, websocket.ts) so the two cannot drift apart.
 */
import type { Logger } from 'pino';
import type { RateLimiter } from './rate-limit.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type BackendName = 'uws' | 'node';

/** 1 MiB: large enough for any transaction batch the RPC accepts, small enough to hold per request. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

export interface HttpRequest {
  /** HEAD requests are served by the GET route of the same path and arrive here as 'HEAD'. */
  readonly method: HttpMethod | 'HEAD';
  /** Path as sent (still percent-encoded), without the query string. */
  readonly path: string;
  readonly query: URLSearchParams;
  /** `:name` segments of the matched route pattern, percent-decoded. */
  readonly params: Readonly<Record<string, string>>;
  /** Lower-cased names; repeated headers joined with ", ". */
  readonly headers: Readonly<Record<string, string>>;
  /** Client address: the socket peer, or X-Forwarded-For when `trustProxy` says so. */
  readonly ip: string;
  /** Parsed JSON, or undefined when the request had no body. */
  readonly body: unknown;
  /** The text `body` was parsed from (undefined without a body): a transaction's id may be the hash of exactly this text. */
  readonly bodyText?: string | undefined;
}

declare const replyBrand: unique symbol;

/**
 * An explicit response. Built only by `reply()` (respond.ts): the brand keeps a handler's plain
 * result that happens to have `status`/`body` fields from being mistaken for a response envelope.
 */
export interface HttpReply {
  readonly [replyBrand]: true;
  readonly status: number;
  /** Encoded with the codec's bigint-aware stringify unless contentType is not JSON, in which case it must be a string or bytes. */
  readonly body: unknown;
  readonly headers: Readonly<Record<string, string>> | undefined;
  /** Default 'application/json; charset=utf-8'. */
  readonly contentType: string | undefined;
}

/**
 * A plain return value is answered 200 JSON, `undefined` 204. Throw a ChainError for client
 * errors; anything else thrown becomes 500 {error:"internal error"} and is logged.
 */
export type RouteHandler = (req: HttpRequest) => unknown;

export interface RouteDef {
  method: HttpMethod;
  /** '/blocks/:height' — static segments win over `:param` segments at the same position. */
  path: string;
  handler: RouteHandler;
}

export interface WsConnection {
  /** Unique per server for its lifetime; stable identity across callbacks (the same object is passed every time). */
  readonly id: number;
  readonly ip: string;
  /** Query string and headers of the upgrade request (e.g. for an auth token). */
  readonly query: URLSearchParams;
  readonly headers: Readonly<Record<string, string>>;
  readonly isOpen: boolean;
  /** Bytes queued for this client and not yet written to the socket. */
  readonly bufferedAmount: number;
  /** False when the connection is closed or the message was dropped because the client is too far behind (maxBackpressureBytes). */
  send(text: string): boolean;
  /** Graceful close; the `close` handler runs synchronously inside this call. */
  close(code?: number, reason?: string): void;
}

/**
 * Handlers may be async; a throw or rejection is logged and the connection stays as it was.
 * `close` runs exactly once per opened connection: synchronously inside `conn.close()`, when the
 * peer goes away, when the idle timeout fires, or when the server closes.
 */
export interface WsHandlers {
  open(conn: WsConnection): void | Promise<void>;
  /** A text message (binary frames are decoded as UTF-8; invalid UTF-8 closes the connection with 1007). */
  message(conn: WsConnection, text: string): void | Promise<void>;
  /**
   * A message longer than `maxMessageBytes` (UTF-8 bytes) arrived. It is dropped undecoded and the
   * connection stays open, so the handler can answer with a protocol-level error. Messages longer
   * than `transportMaxMessageBytes` never get here: the transport closes the connection with 1009.
   */
  tooLarge(conn: WsConnection, bytes: number): void | Promise<void>;
  close(conn: WsConnection, code: number, reason: string): void | Promise<void>;
}

export interface WsOptions {
  path: string;
  maxMessageBytes: number;
  /** Hard cap enforced by the transport (connection closed with 1009). Default 16 × maxMessageBytes. */
  transportMaxMessageBytes?: number;
  /** Seconds without traffic before the server pings, then drops, a client. 0 = off, else ≥ 8 (uWS granularity). Default 120. */
  idleTimeoutSeconds?: number;
  /** Above this many queued bytes `send()` drops the message and returns false. Default 1 MiB. */
  maxBackpressureBytes?: number;
  handlers: WsHandlers;
}

export interface TlsOptions {
  certFile: string;
  keyFile: string;
}

export interface ServerOptions {
  host: string;
  /** 0 picks a free port; `listen()` reports the real one. */
  port: number;
  /** '*' for any origin, a comma-separated list of origins, or '' for no CORS headers at all. */
  corsAllowedOrigins: string;
  /** Requests per second per client IP; 0 turns the built-in limiter off. Ignored when `rateLimiter` is given. */
  rateLimitPerSecond: number;
  /** Replaces the built-in in-memory limiter (e.g. a Redis-backed one via `flexibleRateLimiter`). */
  rateLimiter?: RateLimiter;
  /**
   * IPs and CIDR ranges (`10.0.0.5`, `10.0.0.0/8`, `fd00::/8`) whose clients no rate limiter counts:
   * a proxy in front (the gateway) sends every user's traffic from one address and limits each
   * user itself. Matched against the client IP (the socket peer, or X-Forwarded-For with trustProxy).
   */
  rateLimitExempt?: readonly string[];
  /** Default DEFAULT_MAX_BODY_BYTES. */
  maxBodyBytes?: number;
  /**
   * Take the client IP from X-Forwarded-For instead of the socket. `true` = one proxy hop (the
   * right-most entry, the one our own proxy appended); a number = that many trusted hops. Off by
   * default because the header is client-controlled when nothing in front rewrites it.
   */
  trustProxy?: boolean | number;
  /** Serve HTTPS (and WSS on the same port). */
  tls?: TlsOptions;
  ws?: WsOptions;
  logger?: Logger;
  /** Overrides CHAIN_HTTP_BACKEND. 'auto' (the default) = node:http; uws is opt-in. */
  backend?: BackendName | 'auto';
}

export interface HttpServer {
  readonly backend: BackendName;
  /** Why this backend was chosen, one line, for the caller's startup log. */
  readonly backendReason: string;
  /** Routes may be added before or after listen(). Registering the same method + pattern twice throws. */
  route(def: RouteDef): void;
  listen(): Promise<{ port: number }>;
  /** Stops listening, closes WebSockets with 1001 and drops HTTP connections (in-flight requests get no answer). */
  close(): Promise<void>;
}
