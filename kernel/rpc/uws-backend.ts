/**
 * The uWebSockets.js backend. uWS sees a single catch-all route plus the WebSocket path; routing
 * and every response decision happen in the shared pipeline.
 *
 * uWS rules this file lives by: the HttpRequest object is only valid during the synchronous
 * handler, so everything is copied out first; onAborted and onData are attached before returning
 * (a handler that returns without an abort handler and without responding is a fatal error, and
 * body bytes arriving with the headers are delivered right after return); a response is never
 * touched after it was aborted; writes after an await happen inside cork() so status, headers and
 * body leave in one syscall/TLS record; and a WebSocket is never used after its close callback.
 */
import { STATUS_CODES } from 'node:http';
import { BodyCollector, declaredLength, hasBody } from './body.js';
import type { BodyResult } from './body.js';
import type { ResolvedOptions, ResolvedWsOptions } from './options.js';
import { RequestPipeline } from './pipeline.js';
import type { IncomingRequest } from './pipeline.js';
import type { WireResponse } from './respond.js';
import type { HttpServer, RouteDef, WsConnection } from './server.js';
import type { UwsApp, UwsHttpRequest, UwsHttpResponse, UwsListenSocket, UwsModule, UwsWebSocket } from './uws-native.js';
import { WsHub } from './websocket.js';
import type { WsPeerInfo, WsTransport } from './websocket.js';

/**
 * How much of an unwanted upload (oversize, or refused before it was read) is read and discarded
 * before answering, as a multiple of maxBodyBytes. uWS, unlike node, resets the connection when it
 * closes a socket the client is still writing to, and the client then loses the answer along with
 * the connection; draining first lets the close be a clean FIN. Past this budget (or when the
 * declared Content-Length already exceeds it) the answer goes out at once and the client may see a
 * reset instead, which only happens to uploads of several times the limit.
 */
const DRAIN_FACTOR = 4;

/** uWS send() status: the message was not queued because the client is too far behind. */
const UWS_SEND_DROPPED = 2;

interface SocketData {
  readonly peer: WsPeerInfo;
  conn?: WsConnection;
}

export function createUwsBackend(uws: UwsModule, opts: ResolvedOptions, backendReason: string): HttpServer {
  return new UwsHttpServer(uws, opts, backendReason);
}

class UwsHttpServer implements HttpServer {
  readonly backend = 'uws' as const;
  private readonly pipeline: RequestPipeline;
  private readonly app: UwsApp;
  private readonly hub: WsHub | undefined;
  private listenSocket: UwsListenSocket | undefined;
  private closed = false;

  constructor(
    private readonly uws: UwsModule,
    private readonly opts: ResolvedOptions,
    readonly backendReason: string,
  ) {
    this.pipeline = new RequestPipeline(opts);
    this.app = opts.tls !== undefined ? uws.SSLApp({ key_file_name: opts.tls.keyFile, cert_file_name: opts.tls.certFile }) : uws.App();
    if (opts.ws !== undefined) {
      this.hub = new WsHub(opts.ws, opts.log);
      this.attachWebSocket(opts.ws, this.hub);
    }
    this.app.any('/*', (res, req) => this.onRequest(res, req));
  }

  route(def: RouteDef): void {
    this.pipeline.router.add(def.method, def.path, def.handler);
  }

  listen(): Promise<{ port: number }> {
    return new Promise((resolve, reject) => {
      this.app.listen(this.opts.host, this.opts.port, (socket) => {
        if (socket === false) {
          reject(new Error(`uWebSockets.js cannot listen on ${this.opts.host}:${this.opts.port} (address in use or not available)`));
          return;
        }
        this.listenSocket = socket;
        resolve({ port: this.uws.us_socket_local_port(socket) });
      });
    });
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    if (this.listenSocket !== undefined) this.uws.us_listen_socket_close(this.listenSocket);
    this.listenSocket = undefined;
    // end() queues a 1001 close frame per client; app.close() then drops every remaining socket,
    // keep-alive HTTP connections included, which the listen-socket close alone would leave open.
    this.hub?.closeAll(1001, 'server shutting down');
    this.app.close?.();
    return Promise.resolve();
  }

  private onRequest(res: UwsHttpResponse, req: UwsHttpRequest): void {
    const headers = readHeaders(req);
    const query = req.getQuery();
    const url = query === undefined || query === '' ? req.getUrl() : `${req.getUrl()}?${query}`;
    const method = req.getMethod().toUpperCase();
    const socketIp = Buffer.from(res.getRemoteAddressAsText()).toString('latin1');

    let aborted = false;
    let body: BodyResult | undefined;
    let bodyWaiter: ((r: BodyResult) => void) | undefined;
    let received = 0;
    let ended = false;
    let drainWaiter: (() => void) | undefined;
    let writableWaiter: (() => void) | undefined;
    const drainBudget = this.opts.maxBodyBytes * DRAIN_FACTOR;
    const settle = (r: BodyResult): void => {
      if (body !== undefined) return;
      body = r;
      bodyWaiter?.(r);
    };
    res.onAborted(() => {
      aborted = true;
      settle({ kind: 'aborted' });
      drainWaiter = undefined;
      writableWaiter?.();
    });
    // A request without a body (most GETs) gets no body collector: uWS delivers no data for it,
    // the pipeline never reads one, and its answer never waits for a drain.
    if (hasBody(headers)) {
      const collector = new BodyCollector(this.opts.maxBodyBytes);
      res.onData((chunk, isLast) => {
        received += chunk.byteLength;
        ended = isLast;
        if (body === undefined) {
          // Past the limit the chunks are counted and dropped as they arrive.
          if (!collector.push(new Uint8Array(chunk))) settle({ kind: 'too-large' });
          else if (isLast) settle(collector.result());
        }
        if (drainWaiter !== undefined && (ended || received > drainBudget)) {
          const write = drainWaiter;
          drainWaiter = undefined;
          write();
        }
      });
    }

    const incoming: IncomingRequest = {
      method,
      url,
      headers,
      socketIp,
      readBody: () => (body !== undefined ? Promise.resolve(body) : new Promise<BodyResult>((resolve) => (bodyWaiter = resolve))),
    };
    void this.pipeline.handle(incoming).then(async (wire) => {
      if (wire === null || aborted) return;
      if (wire.stream !== undefined) {
        try {
          res.cork(() => {
            res.writeStatus(`${wire.status} ${STATUS_CODES[wire.status] ?? ''}`.trimEnd());
            for (const [name, value] of Object.entries(wire.headers)) res.writeHeader(name, value);
          });
          for await (const chunk of wire.stream) {
            if (aborted) return;
            let ok = true;
            res.cork(() => (ok = res.write(chunk)));
            if (!ok) {
              await new Promise<void>((resolve) => {
                writableWaiter = resolve;
                res.onWritable(() => (resolve(), true));
              });
              writableWaiter = undefined;
            }
            if (aborted) return;
          }
          res.cork(() => res.end(undefined, wire.closeConnection));
        } catch (e: unknown) {
          this.opts.log.error({ err: e }, 'streaming a response failed');
          if (!aborted) res.close();
        }
        return;
      }
      const write = (): void => {
        if (aborted) return;
        try {
          res.cork(() => writeResponse(res, wire));
        } catch (e: unknown) {
          this.opts.log.error({ err: e }, 'writing a response failed');
        }
      };
      const declared = declaredLength(headers) ?? 0;
      if (!wire.closeConnection || ended || received > drainBudget || declared > drainBudget) return write();
      drainWaiter = write;
    });
  }

  private attachWebSocket(ws: ResolvedWsOptions, hub: WsHub): void {
    this.app.ws<SocketData>(ws.path, {
      maxPayloadLength: ws.transportMaxMessageBytes,
      idleTimeout: ws.idleTimeoutSeconds,
      sendPingsAutomatically: ws.idleTimeoutSeconds > 0,
      maxBackpressure: ws.maxBackpressureBytes,
      closeOnBackpressureLimit: false,
      compression: this.uws.DISABLED,
      upgrade: (res, req, context) => {
        const headers = readHeaders(req);
        const query = req.getQuery();
        const url = query === undefined || query === '' ? req.getUrl() : `${req.getUrl()}?${query}`;
        const key = req.getHeader('sec-websocket-key');
        const protocol = req.getHeader('sec-websocket-protocol');
        const extensions = req.getHeader('sec-websocket-extensions');
        const socketIp = Buffer.from(res.getRemoteAddressAsText()).toString('latin1');
        let aborted = false;
        res.onAborted(() => (aborted = true));
        void this.pipeline.admitUpgrade({ method: req.getMethod().toUpperCase(), url, headers, socketIp }).then((decision) => {
          if (aborted) return;
          try {
            res.cork(() => {
              if (!decision.accept) return writeResponse(res, decision.response);
              if (this.closed) return void res.close();
              const data: SocketData = { peer: { ip: decision.ip, query: decision.query, headers } };
              res.upgrade(data, key, protocol, extensions, context);
            });
          } catch (e: unknown) {
            this.opts.log.error({ err: e }, 'answering a WebSocket upgrade failed');
          }
        });
      },
      open: (socket) => {
        const data = socket.getUserData();
        data.conn = hub.opened(transportFor(socket), data.peer);
      },
      message: (socket, message, isBinary) => {
        const conn = socket.getUserData().conn;
        if (conn !== undefined) hub.received(conn, new Uint8Array(message), isBinary);
      },
      close: (socket, code, message) => {
        const conn = socket.getUserData().conn;
        if (conn !== undefined) hub.transportClosed(conn, code, Buffer.from(message).toString('utf8'));
      },
    });
  }
}

// Only ever invoked while the hub reports the connection open, i.e. before uWS's close callback,
// after which the native socket must not be touched.
function transportFor(socket: UwsWebSocket<SocketData>): WsTransport {
  return {
    send: (text) => {
      let status = 0;
      socket.cork(() => (status = socket.send(text, false, false)));
      return status === UWS_SEND_DROPPED ? 'dropped' : 'sent';
    },
    bufferedAmount: () => socket.getBufferedAmount(),
    end: (code, reason) => socket.end(code, reason),
  };
}

function readHeaders(req: UwsHttpRequest): Record<string, string> {
  const out: Record<string, string> = {};
  req.forEach((name, value) => {
    const prev = out[name];
    out[name] = prev === undefined ? value : `${prev}, ${value}`;
  });
  return out;
}

function writeResponse(res: UwsHttpResponse, wire: WireResponse): void {
  res.writeStatus(`${wire.status} ${STATUS_CODES[wire.status] ?? ''}`.trimEnd());
  for (const [name, value] of Object.entries(wire.headers)) res.writeHeader(name, value);
  // uWS writes Content-Length itself. A HEAD answer reports the length a GET would have had; a
  // 204/304 must carry none, which only the argument-less endWithoutBody() produces (passing
  // `undefined` as the length writes 2^63), so the rare 204 that must also close the connection
  // goes out with a harmless 'Content-Length: 0'.
  const bodiless = wire.status === 204 || wire.status === 304;
  if (bodiless && !wire.closeConnection) res.endWithoutBody();
  else if (bodiless) res.endWithoutBody(0, true);
  else if (wire.omitBody) res.endWithoutBody(wire.body.byteLength, wire.closeConnection);
  else res.end(wire.body, wire.closeConnection);
}
