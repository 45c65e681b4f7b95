/**
 * The backend-neutral half of the WebSocket endpoint: connection identity, the exactly-once close
 * event, the message size rule and text decoding. A backend wraps its native socket in a
 * WsTransport and forwards open/message/close; nothing here knows which library is underneath.
 *
 * Oversize messages: the transport is configured to accept frames up to transportMaxMessageBytes
 * (default 16 × maxMessageBytes). A message above maxMessageBytes but within that cap is dropped
 * here, undecoded, and reported through handlers.tooLarge() with the connection left open; above
 * the cap the transport itself closes the connection with 1009, so a client cannot make the
 * server hold an unbounded frame just to be told it was too big.
 */
import type { Logger } from 'pino';
import type { ResolvedWsOptions } from './options.js';
import type { WsConnection } from './server.js';

/** What a backend must provide per socket. */
export interface WsTransport {
  /** 'dropped' when the backend refused to queue more for a slow client. */
  send(text: string): 'sent' | 'dropped';
  bufferedAmount(): number;
  /** Start the closing handshake; the backend's own close notification that follows is ignored. */
  end(code: number, reason: string): void;
}

export interface WsPeerInfo {
  readonly ip: string;
  readonly query: URLSearchParams;
  readonly headers: Readonly<Record<string, string>>;
}

const CLOSE_NORMAL = 1000;
const CLOSE_INVALID_PAYLOAD = 1007;
/** Close reasons are limited to 123 bytes by RFC 6455 §5.5 (125-byte control payload minus the code). */
const MAX_REASON_BYTES = 123;

class ManagedConnection implements WsConnection {
  private open = true;

  constructor(
    readonly id: number,
    readonly ip: string,
    readonly query: URLSearchParams,
    readonly headers: Readonly<Record<string, string>>,
    private readonly transport: WsTransport,
    private readonly hub: WsHub,
  ) {}

  get isOpen(): boolean {
    return this.open;
  }

  get bufferedAmount(): number {
    return this.open ? this.transport.bufferedAmount() : 0;
  }

  send(text: string): boolean {
    if (!this.open) return false;
    return this.transport.send(text) === 'sent';
  }

  close(code = CLOSE_NORMAL, reason = ''): void {
    if (!isSendableCloseCode(code)) throw new RangeError(`cannot close a WebSocket with code ${code}`);
    if (!this.open) return;
    this.open = false;
    const trimmed = truncateUtf8(reason, MAX_REASON_BYTES);
    this.transport.end(code, trimmed);
    this.hub.notifyClosed(this, code, trimmed);
  }

  /** The peer or transport closed first. Returns false when the close was already reported. */
  markClosed(): boolean {
    if (!this.open) return false;
    this.open = false;
    return true;
  }
}

export class WsHub {
  private nextId = 1;
  private readonly live = new Set<ManagedConnection>();
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });

  constructor(
    private readonly opts: ResolvedWsOptions,
    private readonly log: Logger,
  ) {}

  get path(): string {
    return this.opts.path;
  }

  get size(): number {
    return this.live.size;
  }

  opened(transport: WsTransport, peer: WsPeerInfo): WsConnection {
    const conn = new ManagedConnection(this.nextId++, peer.ip, peer.query, peer.headers, transport, this);
    this.live.add(conn);
    this.invoke('open', () => this.opts.handlers.open(conn));
    return conn;
  }

  /**
   * Must be called synchronously inside the backend's message callback: uWS invalidates the
   * buffer when that callback returns, so the text is decoded (or the size reported) before then.
   */
  received(conn: WsConnection, data: Uint8Array, isBinary: boolean): void {
    if (!conn.isOpen) return;
    if (data.byteLength > this.opts.maxMessageBytes) {
      this.invoke('tooLarge', () => this.opts.handlers.tooLarge(conn, data.byteLength));
      return;
    }
    let text: string;
    try {
      // Fatal decoding for text and binary frames alike, rather than trusting each transport's
      // own UTF-8 check, so both backends refuse exactly the same inputs.
      text = this.decoder.decode(data);
    } catch {
      conn.close(CLOSE_INVALID_PAYLOAD, isBinary ? 'binary message is not UTF-8 text' : 'invalid UTF-8');
      return;
    }
    this.invoke('message', () => this.opts.handlers.message(conn, text));
  }

  /** The backend saw the socket close (peer, timeout, protocol error). */
  transportClosed(conn: WsConnection, code: number, reason: string): void {
    if (!(conn instanceof ManagedConnection) || !conn.markClosed()) return;
    this.notifyClosed(conn, code, reason);
  }

  notifyClosed(conn: ManagedConnection, code: number, reason: string): void {
    if (!this.live.delete(conn)) return;
    this.invoke('close', () => this.opts.handlers.close(conn, code, reason));
  }

  closeAll(code: number, reason: string): void {
    for (const conn of [...this.live]) conn.close(code, reason);
  }

  // A handler bug must not take the socket loop (or the process, via an unhandled rejection) with it.
  private invoke(what: string, fn: () => void | Promise<void>): void {
    try {
      const r = fn();
      if (r instanceof Promise) r.catch((e: unknown) => this.log.error({ err: e }, `WebSocket ${what} handler failed`));
    } catch (e: unknown) {
      this.log.error({ err: e }, `WebSocket ${what} handler failed`);
    }
  }
}

// 1000-1003 and 1007-1014 are the RFC 6455 / IANA codes an endpoint may send; 1004-1006 and 1015
// are reserved for reporting; 3000-4999 belong to libraries and applications.
function isSendableCloseCode(code: number): boolean {
  return Number.isInteger(code) && ((code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) || (code >= 3000 && code <= 4999));
}

function truncateUtf8(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text, 'utf8') <= maxBytes) return text;
  let out = '';
  let used = 0;
  for (const ch of text) {
    const n = Buffer.byteLength(ch, 'utf8');
    if (used + n > maxBytes) break;
    out += ch;
    used += n;
  }
  return out;
}
