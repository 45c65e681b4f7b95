/**
 * An HTTP/1.1 client on a bare TCP socket, for requests no library client will send as written:
 * backslashes and dot segments in the path (fetch and undici normalise them away), methods outside
 * the usual few, request lines of a megabyte. It reports what a client would see: the first
 * response, or that the server closed or reset the connection without one.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';

/**
 * Paths that a WHATWG URL parser (undici, fetch, browsers) reads as `/peers`, as another route, or
 * as more segments than were sent; the security review walked out of the node's routes with them.
 */
export const TRAVERSAL_TARGETS: readonly string[] = [
  '/api/v1/accounts/..\\..\\..\\peers',
  '/api/v1/blocks/..\\..\\..\\peers',
  '/api/v1/accounts/..%5c..%5c..%5cpeers',
  '/api/v1/blocks/..%5C..%5C..%5Cpeers',
  '/api/v1/accounts/%2e%2e%2f%2e%2e%2f%2e%2e%2fpeers',
  '/api/v1/blocks/%2e%2e/%2e%2e/%2e%2e/peers',
  '/api/v1/blocks/%2e%2e/transactions',
  '/api/v1/accounts/%2E%2E',
  '/api/v1/accounts/.%2e/x',
  '/api/v1/accounts/../../../peers',
  '/api/v1/blocks/./1',
  '/api/v1/accounts/chain%2Fpeers',
  '/peers/..',
];

/** Methods this server does not implement, as a client may send them: WebDAV, cache purges, made up, lower case, and the two uWS routes itself. */
export const UNKNOWN_METHODS: readonly string[] = ['PROPFIND', 'PURGE', 'MKCOL', 'LINK', 'FOO', 'get', 'TRACE', 'CONNECT'];

/**
 * What uWebSockets.js 20.30, the newest build the registry carries, refuses in native code before
 * any JavaScript runs, so that no change to this server can answer it: its router knows nine
 * methods and only targets that start with '/', and closes the connection on anything else; its
 * parser keeps at most 4 KB of a request head across reads. Tests of those cases run as todo on
 * uws (kernel/rpc/README.md, "Known differences").
 */
const UWS_ROUTED_METHODS: ReadonlySet<string> = new Set(['GET', 'POST', 'HEAD', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH']);
export const UWS_DROPS_LONG_HEAD =
  'uWebSockets.js 20.30 closes (or, while the client still sends, resets) a connection whose request head is over 4 KB and arrives in more than one read, which on loopback is every head over 64 KB';
export const UWS_DROPS_AUTHORITY = 'uWebSockets.js 20.30 closes the connection on a target not starting with / before any JS runs';

/** The todo reason for `method` on uws, undefined where uWS lets it through to the server. */
export function uwsDropsMethod(method: string): string | undefined {
  return UWS_ROUTED_METHODS.has(method) ? undefined : `uWebSockets.js 20.30 closes the connection on ${method} (a method outside its nine) before any JS runs`;
}

/** An answer with this status, a JSON content type and this `error`; returns the parsed body. `what` names the request in failures. */
export function assertJsonError(answer: RawAnswer, status: number, error: string, what: string): Record<string, unknown> {
  assert.equal(answer.outcome, 'answered', `${what}: the server ${answer.outcome} the connection without an answer`);
  assert.equal(answer.status, status, `${what}: status ${answer.status}, body ${answer.body.slice(0, 200)}`);
  assert.match(answer.headers['content-type'] ?? '', /^application\/json/, `${what}: content type`);
  const body = JSON.parse(answer.body) as Record<string, unknown>;
  assert.equal(body['error'], error, what);
  return body;
}

export interface RawAnswer {
  /** 'answered' once a whole response has arrived; otherwise how the connection ended without one. */
  readonly outcome: 'answered' | 'closed' | 'reset' | 'timeout';
  /** 0 unless answered. */
  readonly status: number;
  /** Lower-cased names. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export interface RawRequestOptions {
  readonly host?: string;
  /** Source address to connect from, e.g. 127.0.0.2 to be a second client on loopback. */
  readonly localAddress?: string;
  readonly timeoutMs?: number;
  /** Send in writes of this many bytes, `pieceDelayMs` apart, as a slow or distant client's bytes arrive (default: one write). */
  readonly pieceBytes?: number;
  readonly pieceDelayMs?: number;
}

/** `METHOD target HTTP/1.1` with Host and Connection: close, no body. */
export function requestHead(method: string, target: string, headers: Readonly<Record<string, string>> = {}): string {
  const lines = [`${method} ${target} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close', ...Object.entries(headers).map(([n, v]) => `${n}: ${v}`)];
  return `${lines.join('\r\n')}\r\n\r\n`;
}

/** Sends `bytes` and resolves with the first response (or how the connection ended). Never rejects. */
export function rawRequest(port: number, bytes: string | Buffer, opts: RawRequestOptions = {}): Promise<RawAnswer> {
  const payload = typeof bytes === 'string' ? Buffer.from(bytes, 'latin1') : bytes;
  const pieceBytes = opts.pieceBytes ?? payload.byteLength;
  return new Promise((resolve) => {
    let received = Buffer.alloc(0);
    let settled = false;
    const socket = connect({ port, host: opts.host ?? '127.0.0.1', ...(opts.localAddress !== undefined ? { localAddress: opts.localAddress } : {}) }, () => {
      void (async () => {
        for (let at = 0; at < payload.byteLength && !settled && !socket.destroyed; at += pieceBytes) {
          socket.write(payload.subarray(at, at + pieceBytes));
          if (opts.pieceDelayMs !== undefined) await new Promise((r) => setTimeout(r, opts.pieceDelayMs));
        }
      })();
    });
    const finish = (outcome: RawAnswer['outcome']): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      // A response the server framed by closing the connection (no Content-Length) is whole only now.
      resolve(parsed(received, true) ?? { outcome, status: 0, headers: {}, body: received.toString('latin1') });
    };
    const timer = setTimeout(() => finish('timeout'), opts.timeoutMs ?? 10_000);
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      if (parsed(received) !== undefined) finish('answered');
    });
    // A response that arrived in full before the reset still counts: parsed() is tried first.
    socket.on('error', (e: NodeJS.ErrnoException) => finish(e.code === 'ECONNRESET' || e.code === 'EPIPE' ? 'reset' : 'closed'));
    socket.on('close', () => finish('closed'));
  });
}

/** The first complete response in `bytes` (framed by Content-Length, by 204/304, or at `ended` by the close), else undefined. */
function parsed(bytes: Buffer, ended = false): RawAnswer | undefined {
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine = '', ...headerLines] = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
  if (status === null) return undefined;
  const headers: Record<string, string> = {};
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const code = Number(status[1]);
  const body = bytes.subarray(end + 4);
  const length = code === 204 || code === 304 ? 0 : Number(headers['content-length'] ?? (ended ? body.byteLength : Number.NaN));
  if (!Number.isSafeInteger(length)) return undefined;
  if (body.byteLength < length) return undefined;
  return { outcome: 'answered', status: code, headers, body: body.subarray(0, length).toString('utf8') };
}
