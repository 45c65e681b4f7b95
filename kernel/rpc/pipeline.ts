/**
 * The backend-neutral life of one HTTP request: CORS preflight, rate limit, routing, body limit
 * and parsing, the handler, and encoding the answer. A backend only translates its native request
 * into an IncomingRequest and writes the WireResponse back, so every observable decision is made
 * here, once.
 *
 * Order matters: the request line is judged first (request-line.ts: its size and the head's, the
 * method, then a path that could be read as another path), before anything else reads it;
 * preflights are answered before rate limiting (browsers send them on their own and they cost
 * nothing); and the limiter and router run before the body is awaited so an abusive or misrouted
 * request is refused without reading its upload.
 */
import { ChainError } from '../errors.js';
import { bodyTooLargeError, declaredLength, hasBody, parseJsonBody } from './body.js';
import type { BodyResult, JsonBody } from './body.js';
import { clientIp } from './ip.js';
import type { ResolvedOptions } from './options.js';
import { errorResponse, mergeHeaders, successResponse } from './respond.js';
import type { WireResponse } from './respond.js';
import { retryAfterSeconds } from './rate-limit.js';
import type { RateDecision } from './rate-limit.js';
import { checkPath, checkRequestSize, isImplementedMethod, notImplementedError } from './request-line.js';
import { Router, methodNotAllowedError, notFoundError } from './router.js';
import type { HttpMethod, HttpRequest } from './server.js';

export interface IncomingRequest {
  /** Upper-case, as sent. */
  readonly method: string;
  /** Path plus optional '?query', as sent. */
  readonly url: string;
  /** Lower-cased names. */
  readonly headers: Readonly<Record<string, string>>;
  readonly socketIp: string;
  /** Reads the body against opts.maxBodyBytes. Called at most once, and only when the request declares a body. */
  readBody(): Promise<BodyResult>;
}

/** Who may open a WebSocket, decided like an HTTP request so limits and origins apply equally. */
export type UpgradeDecision =
  | { readonly accept: true; readonly ip: string; readonly query: URLSearchParams }
  | { readonly accept: false; readonly response: WireResponse };

export class RequestPipeline {
  readonly router = new Router();

  constructor(private readonly opts: ResolvedOptions) {}

  /** null when the client aborted mid-body: there is nobody to answer. Never rejects. */
  async handle(req: IncomingRequest): Promise<WireResponse | null> {
    const { path, query } = splitUrl(req.url);
    const origin = req.headers['origin'];
    const withBody = hasBody(req.headers);
    const omitBody = req.method === 'HEAD';
    const cors = this.opts.cors.responseHeaders(origin);
    let bodyRead = false;
    const finish = (r: { status: number; headers: Readonly<Record<string, string>>; body: Buffer; stream?: AsyncIterable<Uint8Array> }): WireResponse => ({
      status: r.status,
      headers: withCors(r.headers, cors),
      body: r.body,
      closeConnection: withBody && !bodyRead,
      omitBody,
      ...(r.stream !== undefined && !omitBody ? { stream: r.stream } : {}),
    });
    const fail = (e: unknown): WireResponse => finish(errorResponse(e, this.opts.log));

    try {
      checkRequestSize(req.url, req.headers);
      if (!isImplementedMethod(req.method)) return finish(this.refusal(req.method, path));
      checkPath(path);
      if (req.method === 'OPTIONS') {
        const headers = this.opts.cors.preflightHeaders(origin, req.headers['access-control-request-headers']);
        return { status: 204, headers, body: Buffer.alloc(0), closeConnection: withBody, omitBody: true };
      }
      const ip = clientIp(req.socketIp, req.headers['x-forwarded-for'], this.opts.trustProxy);
      // No await (a microtask hop) where nothing limits this client.
      if (this.limits(ip)) {
        const limited = await this.rateLimit(ip);
        if (limited !== null) return finish(limited);
      }

      // An upgrade request only reaches the HTTP pipeline when no WebSocket endpoint took it:
      // either there is none at this path, or (uWS) the handshake was not one it could accept.
      if (isWebSocketUpgrade(req.headers)) throw path === this.opts.ws?.path ? badHandshakeError() : notFoundError(req.method, path);
      const match = this.router.match(req.method, path);
      if (match.kind !== 'found') return finish(this.refusal(req.method, path));

      let body: JsonBody | undefined;
      if (withBody) {
        const declared = declaredLength(req.headers);
        if (declared !== undefined && declared > this.opts.maxBodyBytes) throw bodyTooLargeError(this.opts.maxBodyBytes);
        const got = await req.readBody();
        if (got.kind === 'aborted') return null;
        if (got.kind === 'too-large') throw bodyTooLargeError(this.opts.maxBodyBytes);
        bodyRead = true;
        body = parseJsonBody(got.bytes);
      }

      const request: HttpRequest = {
        method: req.method as HttpMethod | 'HEAD',
        path,
        query: new URLSearchParams(query),
        params: match.params,
        headers: req.headers,
        ip,
        body: body?.value,
        bodyText: body?.text,
      };
      // A handler that answers at once (a cache hit) is not awaited: no microtask hop.
      const out: unknown = match.handler(request);
      const result: unknown = isThenable(out) ? await out : out;
      return finish(successResponse(result, this.opts.log));
    } catch (e: unknown) {
      return fail(e);
    }
  }

  /** For a WebSocket upgrade at the configured path. Never rejects. */
  async admitUpgrade(req: Omit<IncomingRequest, 'readBody'>): Promise<UpgradeDecision> {
    const { path, query } = splitUrl(req.url);
    const refuse = (r: { status: number; headers: Record<string, string>; body: Buffer }): UpgradeDecision => ({
      accept: false,
      response: { ...r, closeConnection: true, omitBody: false },
    });
    try {
      checkRequestSize(req.url, req.headers);
      checkPath(path);
      if (req.method !== 'GET' || !isValidHandshake(req.headers)) throw badHandshakeError();
      const origin = req.headers['origin'];
      // Browsers do not apply CORS to WebSockets, so the server must: a page on a foreign origin
      // could otherwise ride its visitor's network position. Non-browser clients send no Origin.
      if (origin !== undefined && !this.opts.cors.allows(origin)) {
        throw new ChainError(403, 'origin not allowed', `WebSocket ${path} accepts origins listed in corsAllowedOrigins`);
      }
      const ip = clientIp(req.socketIp, req.headers['x-forwarded-for'], this.opts.trustProxy);
      const limited = this.limits(ip) ? await this.rateLimit(ip) : null;
      if (limited !== null) return refuse(limited);
      return { accept: true, ip, query: new URLSearchParams(query) };
    } catch (e: unknown) {
      return refuse(errorResponse(e, this.opts.log));
    }
  }

  /**
   * The answer for a method no route at `path` serves: 501 for a method this server does not
   * implement, whatever the path (RFC 9110 §15.6.2), else 405, or 404 where no route has the
   * path. Allow goes with both 501 and 405 where the path exists, so the client learns what works.
   */
  private refusal(method: string, path: string): { status: number; headers: Record<string, string>; body: Buffer } {
    const match = this.router.match(method, path);
    const allow = match.kind === 'method-not-allowed' ? match.allow : undefined;
    const error = !isImplementedMethod(method) ? notImplementedError(method) : allow === undefined ? notFoundError(method, path) : methodNotAllowedError(method, path, allow);
    const r = errorResponse(error, this.opts.log);
    return allow === undefined ? r : { ...r, headers: { ...r.headers, Allow: allow.join(', ') } };
  }

  private limits(ip: string): boolean {
    return this.opts.rateLimiter !== undefined && !this.opts.rateLimitExempt(ip);
  }

  // A chain of `then`s rather than an async function: one promise fewer before every request.
  private rateLimit(ip: string): Promise<{ status: number; headers: Record<string, string>; body: Buffer } | null> {
    const limiter = this.opts.rateLimiter;
    if (limiter === undefined) return Promise.resolve(null);
    let decided: Promise<RateDecision>;
    try {
      decided = limiter.consume(ip);
    } catch (e: unknown) {
      decided = Promise.reject(e);
    }
    return decided.then(
      (decision) => {
        if (decision.allowed) return null;
        const r = errorResponse(new ChainError(429, 'rate limit exceeded'), this.opts.log);
        return { ...r, headers: { ...r.headers, 'Retry-After': String(retryAfterSeconds(decision.retryAfterMs)) } };
      },
      (e: unknown) => {
        this.opts.log.warn({ err: e }, 'rate limiter failed; letting the request through');
        return null;
      },
    );
  }
}

/**
 * The answer's headers with the CORS ones. Most answers carry one header (Content-Type) and, for
 * a request without an Origin, no CORS header: nothing to merge, so the answer's own record goes
 * out as it is (records are only read once made).
 */
function withCors(own: Readonly<Record<string, string>>, cors: Readonly<Record<string, string>>): Readonly<Record<string, string>> {
  return hasNoKeys(cors) && atMostOneKey(own) ? own : mergeHeaders(own, cors);
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (typeof value === 'object' || typeof value === 'function') && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

function hasNoKeys(record: Readonly<Record<string, string>>): boolean {
  for (const _ in record) return false;
  return true;
}

function atMostOneKey(record: Readonly<Record<string, string>>): boolean {
  let n = 0;
  for (const _ in record) if (++n > 1) return false;
  return true;
}

export function splitUrl(url: string): { path: string; query: string } {
  const q = url.indexOf('?');
  return q < 0 ? { path: url, query: '' } : { path: url.slice(0, q), query: url.slice(q + 1) };
}

export function isWebSocketUpgrade(headers: Readonly<Record<string, string>>): boolean {
  return (headers['upgrade'] ?? '').toLowerCase() === 'websocket';
}

// RFC 6455 §4.2.1: a base64-encoded 16-byte nonce and protocol version 13. Checked here rather than
// left to each library so a bad handshake gets the same 400 body from both backends.
const WS_KEY = /^[+/0-9A-Za-z]{22}==$/;

function isValidHandshake(headers: Readonly<Record<string, string>>): boolean {
  return isWebSocketUpgrade(headers) && WS_KEY.test(headers['sec-websocket-key'] ?? '') && headers['sec-websocket-version'] === '13';
}

function badHandshakeError(): ChainError {
  return new ChainError(400, 'invalid WebSocket handshake', 'send GET with Upgrade: websocket, a 16-byte base64 Sec-WebSocket-Key and Sec-WebSocket-Version: 13');
}
