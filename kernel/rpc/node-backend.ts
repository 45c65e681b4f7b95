/**
 * The portable backend: node:http / node:https for requests and `ws` (in noServer mode, sharing
 * the HTTP port) for WebSockets. Used whenever the uWebSockets.js binary is unavailable.
 */
import { STATUS_CODES, createServer as createHttp } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer as createHttps } from 'node:https';
import { Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import type { RawData } from 'ws';
import { ChainError } from '../errors.js';
import { BodyCollector } from './body.js';
import type { BodyResult } from './body.js';
import type { ResolvedOptions, ResolvedWsOptions } from './options.js';
import { RequestPipeline, splitUrl } from './pipeline.js';
import type { IncomingRequest } from './pipeline.js';
import { MAX_HEAD_BYTES, MAX_URL_LENGTH, headTooLargeError, isImplementedMethod, notImplementedError, urlTooLongError } from './request-line.js';
import { errorResponse } from './respond.js';
import type { WireResponse } from './respond.js';
import type { HttpServer, RouteDef, WsConnection } from './server.js';
import { WsHub } from './websocket.js';
import type { WsPeerInfo } from './websocket.js';

/** How long close() waits for clients to answer our close frame before cutting them off. */
const WS_CLOSE_GRACE_MS = 1000;

const KEEP_ALIVE_MS = 65_000;

/**
 * After answering a request its parser refused, the connection is drained (read and discarded) for
 * at most this long and this many bytes before it is cut: closing on a client that is still
 * sending (a megabyte request line) makes the kernel reset the connection, and the client loses
 * the answer with it.
 */
const REFUSAL_DRAIN_MS = 5000;
const REFUSAL_DRAIN_BYTES = 4 * 1024 * 1024;

/** What node's parser attaches to the error it reports through 'clientError'. */
interface ParserError {
  readonly code: string;
  /** The chunk being parsed when it failed. */
  readonly rawPacket: Buffer;
  /** Where in rawPacket it failed. */
  readonly bytesParsed: number;
}

export function createNodeBackend(opts: ResolvedOptions, backendReason: string): HttpServer {
  return new NodeHttpServer(opts, backendReason);
}

class NodeHttpServer implements HttpServer {
  readonly backend = 'node' as const;
  private readonly pipeline: RequestPipeline;
  private readonly server: Server;
  private readonly wss: WebSocketServer | undefined;
  private readonly hub: WsHub | undefined;
  private readonly sockets = new Map<WsConnection, WebSocket>();
  private readonly alive = new WeakMap<WebSocket, boolean>();
  /** Responses being written per connection: a refusal must not interleave with one of them. */
  private readonly inFlight = new WeakMap<object, number>();
  /** Connections whose parser error was answered, with their byte count then, for the drain budget. */
  private readonly refused = new WeakMap<object, number>();
  private heartbeat: NodeJS.Timeout | undefined;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly opts: ResolvedOptions,
    readonly backendReason: string,
  ) {
    this.pipeline = new RequestPipeline(opts);
    this.server = opts.tls !== undefined ? createHttps({ cert: opts.tls.cert, key: opts.tls.key, maxHeaderSize: MAX_HEAD_BYTES }) : createHttp({ maxHeaderSize: MAX_HEAD_BYTES });
    // Keep idle connections longer than HTTP clients' pools do (undici: 4 s), so a client never
    // reuses a socket the server is closing at that instant; headersTimeout must exceed it.
    this.server.keepAliveTimeout = KEEP_ALIVE_MS;
    this.server.headersTimeout = KEEP_ALIVE_MS + 1000;
    this.server.on('request', (req: IncomingMessage, res: ServerResponse) => void this.onRequest(req, res));
    // Always listened for: with no 'upgrade' listener node would treat an upgrade request as an
    // ordinary one, while uWS answers it through the router; this keeps both on the router's 404.
    this.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => void this.onUpgrade(req, socket, head));
    // node hands CONNECT to this event and, with no listener, drops the connection unanswered;
    // uWS routes it like any request. Both then get the pipeline's 501.
    this.server.on('connect', (req: IncomingMessage, socket: Duplex) => void this.answerRaw(requestBase(req), socket));
    // Without a listener node answers what its parser refuses (an unknown method, an oversize
    // head) with a bare status line and no body; the pipeline gives the JSON uWS clients get.
    this.server.on('clientError', (e: Error, socket: Duplex) => void this.onClientError(e, socket));
    if (opts.ws !== undefined) {
      this.hub = new WsHub(opts.ws, opts.log);
      this.wss = new WebSocketServer({
        noServer: true,
        maxPayload: opts.ws.transportMaxMessageBytes,
        // uWS runs with compression disabled; matching it also rules out decompression bombs.
        perMessageDeflate: false,
        clientTracking: false,
      });
    }
  }

  route(def: RouteDef): void {
    this.pipeline.router.add(def.method, def.path, def.handler);
  }

  listen(): Promise<{ port: number }> {
    return new Promise((resolve, reject) => {
      const onError = (e: Error): void => reject(e);
      this.server.once('error', onError);
      this.server.listen(this.opts.port, this.opts.host, () => {
        this.server.off('error', onError);
        this.startHeartbeat();
        resolve({ port: (this.server.address() as AddressInfo).port });
      });
    });
  }

  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    if (this.heartbeat !== undefined) clearInterval(this.heartbeat);
    const stopped = new Promise<void>((resolve) => {
      if (!this.server.listening) return resolve();
      this.server.close(() => resolve());
    });
    // Upgraded sockets are no longer tracked by the HTTP server, so they are closed here.
    const sockets = [...this.sockets.values()];
    this.hub?.closeAll(1001, 'server shutting down');
    this.server.closeAllConnections();
    await Promise.all(sockets.map((ws) => closedWithin(ws, WS_CLOSE_GRACE_MS)));
    await stopped;
  }

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const socket = req.socket;
    this.inFlight.set(socket, (this.inFlight.get(socket) ?? 0) + 1);
    res.once('close', () => this.inFlight.set(socket, (this.inFlight.get(socket) ?? 1) - 1));
    const incoming: IncomingRequest = { ...requestBase(req), readBody: () => readBody(req, this.opts.maxBodyBytes) };
    const wire = await this.pipeline.handle(incoming);
    if (wire === null || res.destroyed) return;
    if (wire.stream !== undefined) return this.writeStream(res, wire, wire.stream);
    try {
      res.statusCode = wire.status;
      for (const [name, value] of Object.entries(wire.headers)) res.setHeader(name, value);
      if (wire.status !== 204 && wire.status !== 304) res.setHeader('Content-Length', wire.body.byteLength);
      // With the body left unread the connection cannot be reused; node then discards what is
      // still in flight (without buffering it) and closes after the response.
      if (wire.closeConnection) res.setHeader('Connection', 'close');
      res.end(wire.omitBody ? undefined : wire.body);
    } catch (e: unknown) {
      // e.g. a handler-supplied header value with a newline; the client gets a reset, not a half-written answer.
      this.opts.log.error({ err: e }, 'writing a response failed');
      res.destroy();
    }
  }

  /** A streamed reply: chunked, each chunk written once the socket drained the previous ones. */
  private async writeStream(res: ServerResponse, wire: WireResponse, stream: AsyncIterable<Uint8Array>): Promise<void> {
    try {
      res.statusCode = wire.status;
      for (const [name, value] of Object.entries(wire.headers)) res.setHeader(name, value);
      if (wire.closeConnection) res.setHeader('Connection', 'close');
      for await (const chunk of stream) {
        if (res.destroyed) return;
        if (!res.write(chunk)) await new Promise<void>((resolve) => {
          const done = (): void => {
            res.off('drain', done);
            res.off('close', done);
            resolve();
          };
          res.on('drain', done);
          res.on('close', done);
        });
      }
      res.end();
    } catch (e: unknown) {
      this.opts.log.error({ err: e }, 'streaming a response failed');
      res.destroy();
    }
  }

  private async onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    socket.on('error', (e: Error) => this.opts.log.debug({ err: e }, 'upgrade socket error'));
    const base = requestBase(req);
    const ws = this.opts.ws;
    if (ws === undefined || this.wss === undefined || splitUrl(base.url).path !== ws.path) return this.answerRaw(base, socket);
    const decision = await this.pipeline.admitUpgrade(base);
    if (!decision.accept) return writeRaw(socket, decision.response);
    if (socket.destroyed || this.closing !== undefined) return void socket.destroy();
    this.wss.handleUpgrade(req, socket, head, (client) => this.onOpen(client, ws, { ip: decision.ip, query: decision.query, headers: base.headers }));
  }

  /** The pipeline's answer to a request that owns its socket (an upgrade or CONNECT), written raw; the body is never read. */
  private async answerRaw(base: Omit<IncomingRequest, 'readBody'>, socket: Duplex): Promise<void> {
    const wire = await this.pipeline.handle({ ...base, readBody: () => Promise.resolve({ kind: 'aborted' }) });
    if (wire !== null) writeRaw(socket, wire);
  }

  private async onClientError(e: Error, socket: Duplex): Promise<void> {
    const err = parserError(e);
    const answeredAt = this.refused.get(socket);
    // The parser stays failed and reports again for every chunk that follows, which is how the
    // drain below sees the bytes go by.
    if (answeredAt !== undefined) {
      if (bytesRead(socket) - answeredAt > REFUSAL_DRAIN_BYTES) socket.destroy();
      return;
    }
    // A socket error (ECONNRESET, EPIPE), not the request: nobody is left to answer. And with a
    // response being written, a second one would interleave with it.
    if (err === undefined || !socket.writable || (this.inFlight.get(socket) ?? 0) > 0) return void socket.destroy();
    this.refused.set(socket, bytesRead(socket));
    const wire = await this.parserRefusal(err, socket);
    if (wire === null) return void socket.destroy();
    writeRaw(socket, wire);
    const cut = setTimeout(() => socket.destroy(), REFUSAL_DRAIN_MS);
    cut.unref();
    socket.once('close', () => clearTimeout(cut));
  }

  /**
   * The client's answer to a request node's parser refused, read back from the chunk that failed
   * where it starts the request. An unknown method goes through the pipeline, which answers it
   * before routing, so it gets the same 501 (with Allow) as from uWS; an oversize head gets the
   * pipeline's 414 or 431, by which part of it was too long.
   */
  private async parserRefusal(err: ParserError, socket: Duplex): Promise<WireResponse | null> {
    const line = requestLineAt(err.rawPacket);
    if (err.code === 'HPE_INVALID_METHOD' && line !== undefined && !isImplementedMethod(line.method)) {
      const socketIp = socket instanceof Socket ? (socket.remoteAddress ?? '') : '';
      return this.pipeline.handle({ method: line.method, url: line.target, headers: {}, socketIp, readBody: () => Promise.resolve({ kind: 'aborted' }) });
    }
    const r = errorResponse(refusalOf(err, line), this.opts.log);
    return { ...r, closeConnection: true, omitBody: false };
  }

  private onOpen(ws: WebSocket, opts: ResolvedWsOptions, peer: WsPeerInfo): void {
    const hub = this.hub as WsHub;
    this.alive.set(ws, true);
    const conn = hub.opened(
      {
        send: (text) => {
          // ws queues without limit; refusing past the cap is what uWS does with maxBackpressure.
          if (ws.bufferedAmount > opts.maxBackpressureBytes) return 'dropped';
          ws.send(text);
          return 'sent';
        },
        bufferedAmount: () => ws.bufferedAmount,
        end: (code, reason) => ws.close(code, reason),
      },
      peer,
    );
    this.sockets.set(conn, ws);
    ws.on('message', (data: RawData, isBinary: boolean) => {
      this.alive.set(ws, true);
      hub.received(conn, toBytes(data), isBinary);
    });
    ws.on('pong', () => this.alive.set(ws, true));
    ws.on('error', (e: Error) => this.opts.log.debug({ err: e, conn: conn.id }, 'WebSocket error'));
    ws.on('close', (code: number, reason: Buffer) => {
      this.sockets.delete(conn);
      hub.transportClosed(conn, code, reason.toString('utf8'));
    });
    // A client may have closed before the handler ran; report it now rather than never.
    if (ws.readyState !== WebSocket.OPEN) {
      this.sockets.delete(conn);
      hub.transportClosed(conn, 1006, '');
    }
  }

  // uWS pings idle clients and drops silent ones itself; ws needs the same done by hand.
  private startHeartbeat(): void {
    const seconds = this.opts.ws?.idleTimeoutSeconds ?? 0;
    if (seconds === 0 || this.hub === undefined) return;
    this.heartbeat = setInterval(() => {
      for (const ws of this.sockets.values()) {
        if (this.alive.get(ws) !== true) {
          ws.terminate();
          continue;
        }
        this.alive.set(ws, false);
        ws.ping();
      }
    }, (seconds * 1000) / 2);
    this.heartbeat.unref();
  }
}

function readBody(req: IncomingMessage, limit: number): Promise<BodyResult> {
  return new Promise((resolve) => {
    const collector = new BodyCollector(limit);
    const done = (r: BodyResult): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('close', onClose);
      resolve(r);
    };
    const onData = (chunk: Buffer): void => {
      if (collector.push(chunk)) return;
      // Stop consuming: the response says 413 and the connection is closed behind it.
      req.pause();
      done({ kind: 'too-large' });
    };
    const onEnd = (): void => done(collector.result());
    const onClose = (): void => {
      if (!req.complete) done({ kind: 'aborted' });
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('close', onClose);
  });
}

/** For upgrade requests, where there is no ServerResponse: the same bytes a ServerResponse would send. */
function writeRaw(socket: Duplex, wire: WireResponse): void {
  if (socket.destroyed) return;
  const lines = [`HTTP/1.1 ${wire.status} ${STATUS_CODES[wire.status] ?? ''}`];
  for (const [name, value] of Object.entries(wire.headers)) lines.push(`${name}: ${value}`);
  lines.push(`Content-Length: ${wire.body.byteLength}`, 'Connection: close', '', '');
  socket.end(Buffer.concat([Buffer.from(lines.join('\r\n'), 'latin1'), wire.omitBody ? Buffer.alloc(0) : wire.body]));
}

function requestBase(req: IncomingMessage): Omit<IncomingRequest, 'readBody'> {
  return { method: (req.method ?? 'GET').toUpperCase(), url: req.url ?? '/', headers: flattenHeaders(req.headers), socketIp: req.socket.remoteAddress ?? '' };
}

/** The parser's error, or undefined for anything else node reports through 'clientError' (socket errors). */
function parserError(e: Error): ParserError | undefined {
  const { code, rawPacket, bytesParsed } = e as Error & { code?: unknown; rawPacket?: unknown; bytesParsed?: unknown };
  if (typeof code !== 'string' || !(code.startsWith('HPE_') || code === 'ERR_HTTP_REQUEST_TIMEOUT')) return undefined;
  const raw = Buffer.isBuffer(rawPacket) ? rawPacket : Buffer.alloc(0);
  return { code, rawPacket: raw, bytesParsed: typeof bytesParsed === 'number' ? bytesParsed : raw.byteLength };
}

function bytesRead(socket: Duplex): number {
  return socket instanceof Socket ? socket.bytesRead : 0;
}

const TOKEN_THEN_SPACE = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]{1,32}) /;

interface RequestLine {
  readonly method: string;
  /** As much of the target as the chunk holds. */
  readonly target: string;
}

/** The request line at the start of `chunk`; undefined when the chunk does not start a request. */
function requestLineAt(chunk: Buffer): RequestLine | undefined {
  const method = TOKEN_THEN_SPACE.exec(chunk.toString('latin1', 0, 34))?.[1];
  if (method === undefined) return undefined;
  const end = chunk.indexOf('\r\n');
  const line = chunk.toString('latin1', method.length + 1, end < 0 ? chunk.byteLength : end);
  const target = line.replace(/ HTTP\/\d\.\d$/, '');
  return { method, target };
}

/** What node's own handler would answer (status), with the pipeline's JSON body. */
function refusalOf(err: ParserError, line: RequestLine | undefined): ChainError {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return targetTooLong(err, line) ? urlTooLongError() : headTooLargeError();
    case 'HPE_INVALID_METHOD':
      return notImplementedError();
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new ChainError(408, 'request timeout', 'send the whole request head within the time the server allows');
    default:
      return new ChainError(400, 'malformed HTTP request', err.code);
  }
}

/**
 * node reports one overflow for the whole head; the pipeline checks the target first. When the
 * failed chunk starts the request, it shows the target (all of it, or more than the limit). When
 * it does not (the head came in several reads), which part overflowed is a guess: a run of
 * request-target characters with no line break or space is taken for a target that never ends,
 * so a long header value of the same characters gets 414 too.
 */
function targetTooLong(err: ParserError, line: RequestLine | undefined): boolean {
  if (line !== undefined) return line.target.length > MAX_URL_LENGTH;
  return /^[\x21-\x7e]*$/.test(err.rawPacket.toString('latin1', 0, err.bytesParsed));
}

function flattenHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function toBytes(data: RawData): Uint8Array {
  if (Array.isArray(data)) return Buffer.concat(data);
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  return data;
}

function closedWithin(ws: WebSocket, ms: number): Promise<void> {
  if (ws.readyState === WebSocket.CLOSED) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      ws.terminate();
      resolve();
    }, ms);
    ws.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
