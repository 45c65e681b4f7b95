import type { Socket } from 'node:net';
import { toHex0x } from '../../codec/hex.js';
import { bytesEqual } from '../../consensus/bytes.js';
import type { KeyPair, SignatureProvider } from '../../crypto/provider.js';
import { encodePlainFrame, FrameDecoder, FrameSizeError, NonceExhaustedError, SessionCipher } from './frame.js';
import type { Frame } from './frame.js';
import { TokenBucket } from './limits.js';
import type { Direction, P2pLogger, RateLimitOptions } from './types.js';
import {
  authMessage,
  concatBytes,
  decodeHello,
  decodeKex,
  decodePex,
  decodeReason,
  deriveSessionKeys,
  encodeHello,
  encodeKex,
  encodePex,
  encodeReject,
  ephemeralKemKeyPair,
  HANDSHAKE_MAX_FRAME_BYTES,
  HandshakeType,
  kemDecapsulate,
  kemEncapsulate,
  P2pProtocolError,
  PROTOCOL_VERSION,
  SealedType,
  transcriptHash,
} from './wire.js';
import type { Hello, KemKeyPair, PexEntry, Role } from './wire.js';

/** Settings shared by every connection of one transport. */
export interface ConnectionContext {
  readonly selfId: string;
  readonly peerIdOf: (publicKey: Uint8Array) => string;
  readonly provider: SignatureProvider;
  readonly nodeKey: KeyPair;
  readonly chainId: string;
  readonly genesisHash: Uint8Array;
  readonly listenAddress: string;
  readonly maxFrameBytes: number;
  readonly maxFramesPerSession: number;
  readonly maxWriteBufferBytes: number;
  readonly handshakeTimeoutMs: number;
  readonly rate: RateLimitOptions;
  readonly now: () => number;
  readonly logger: P2pLogger;
}

export type Offence = 'oversizeFrame' | 'undecryptableFrame' | 'rateLimited' | 'protocolViolation';

/** What a connection reports to its transport. */
export interface ConnectionEvents {
  /** Policy check on the peer's parsed but not yet authenticated hello; a string refuses it. */
  admit(conn: PeerConnection, hello: Hello, peerId: string): string | null;
  established(conn: PeerConnection): void;
  /** A returned promise pauses this connection (socket and frame processing) until it settles. */
  message(conn: PeerConnection, msg: Uint8Array): Promise<void> | undefined;
  pex(conn: PeerConnection, entries: PexEntry[]): void;
  /** Only raised on authenticated connections, so a forged hello cannot get someone else banned. */
  offence(conn: PeerConnection, offence: Offence, reason: string): void;
  closed(conn: PeerConnection, reason: string, wasOpen: boolean): void;
}

type State = 'connecting' | 'hello' | 'kex' | 'auth' | 'open' | 'closed';

const EMPTY = new Uint8Array(0);
/** Time a closing socket gets to flush a reject/bye before it is destroyed. */
const CLOSE_GRACE_MS = 2000;

/**
 * One TCP connection: runs the handshake (HELLO → KEX → sealed AUTH, see PROTOCOL.md), then seals
 * and opens frames. Policy (who may connect, duplicates, bans) is the transport's, via `events`.
 */
export class PeerConnection {
  readonly direction: Direction;
  readonly role: Role;
  /** For outbound connections: the address we dialed (key of the transport's dial targets). */
  readonly dialAddress: string | undefined;
  readonly expectedId: string | undefined;
  remoteAddress: string;
  /** Set once the peer's hello is parsed; authenticated only when `isOpen`. */
  peerId: string | undefined;
  peerListenAddress = '';
  transcript: Uint8Array = EMPTY;
  bytesIn = 0;
  bytesOut = 0;
  connectedSince = 0;
  lastReceivedAt: number;
  lastSentAt: number;
  tcpConnected = false;
  closeReason: string | undefined;
  /** Resolves when the socket is fully closed (stop() waits on it). */
  readonly closed: Promise<void>;

  private state: State;
  private readonly decoder = new FrameDecoder(HANDSHAKE_MAX_FRAME_BYTES);
  private kem: KemKeyPair | undefined;
  private myHello: Uint8Array = EMPTY;
  private peerHello: Uint8Array = EMPTY;
  private peer: Hello | undefined;
  private myCipherText: Uint8Array = EMPTY;
  private mySharedSecret: Uint8Array = EMPTY;
  private cipher: SessionCipher | undefined;
  private msgBucket: TokenBucket | undefined;
  private byteBucket: TokenBucket | undefined;
  private handshakeTimer: NodeJS.Timeout | undefined;
  /** An async message handler is running: later frames wait in the decoder, the socket is paused. */
  private blocked = false;
  private destroyTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly ctx: ConnectionContext,
    private readonly events: ConnectionEvents,
    private readonly socket: Socket,
    direction: Direction,
    opts: { dialAddress?: string; expectedId?: string } = {},
  ) {
    this.direction = direction;
    this.role = direction === 'outbound' ? 'initiator' : 'responder';
    this.dialAddress = opts.dialAddress;
    this.expectedId = opts.expectedId;
    this.remoteAddress = opts.dialAddress ?? socketAddress(socket);
    this.lastReceivedAt = this.lastSentAt = ctx.now();
    let resolveClosed: () => void = () => undefined;
    this.closed = new Promise<void>((resolve) => (resolveClosed = resolve));

    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (err: NodeJS.ErrnoException) => this.close(`socket error: ${err.code ?? err.message}`));
    socket.on('close', () => {
      if (this.destroyTimer !== undefined) clearTimeout(this.destroyTimer);
      this.close('connection closed by peer');
      resolveClosed();
    });
    this.handshakeTimer = setTimeout(() => this.close('handshake timeout'), ctx.handshakeTimeoutMs);

    if (direction === 'inbound') {
      this.state = 'hello';
      this.onTcpConnected();
    } else {
      this.state = 'connecting';
      socket.once('connect', () => {
        if (this.state !== 'connecting') return;
        this.state = 'hello';
        this.remoteAddress = socketAddress(socket);
        this.onTcpConnected();
      });
    }
  }

  get isOpen(): boolean {
    return this.state === 'open';
  }

  get isClosed(): boolean {
    return this.state === 'closed';
  }

  /** Node id of whoever dialed: the duplicate-connection tie-break needs it. */
  get initiatorId(): string | undefined {
    return this.direction === 'outbound' ? this.ctx.selfId : this.peerId;
  }

  /** Sends an application message; false if the connection is not open (or just closed). */
  sendApp(msg: Uint8Array): boolean {
    return this.sendSealed(SealedType.App, msg);
  }

  sendPex(entries: readonly PexEntry[]): boolean {
    return this.sendSealed(SealedType.Pex, encodePex(entries));
  }

  sendPing(): boolean {
    return this.sendSealed(SealedType.Ping, EMPTY);
  }

  /** Idempotent. Sends a sealed BYE (open connections) or nothing, then ends the socket. */
  close(reason: string, opts: { bye?: boolean } = {}): void {
    if (this.state === 'closed') return;
    const wasOpen = this.state === 'open';
    this.state = 'closed';
    this.closeReason = reason;
    if (this.handshakeTimer !== undefined) clearTimeout(this.handshakeTimer);
    if (wasOpen && opts.bye !== false && this.cipher !== undefined && !this.socket.destroyed) {
      try {
        this.rawWrite(this.cipher.seal(concatBytes([Uint8Array.of(SealedType.Bye), new TextEncoder().encode(reason.slice(0, 200))])));
      } catch {
        // Nonce space exhausted: the peer learns of the close from the FIN instead.
      }
    }
    this.wipeSecrets();
    if (!this.tcpConnected || this.socket.destroyed) {
      this.socket.destroy();
    } else {
      this.socket.end();
      // A socket paused for back-pressure would never read the peer's FIN; drain (and ignore) instead.
      this.socket.resume();
      this.destroyTimer = setTimeout(() => this.socket.destroy(), CLOSE_GRACE_MS);
    }
    this.events.closed(this, reason, wasOpen);
  }

  // -------------------------------------------------------------------------------------------

  private onTcpConnected(): void {
    this.tcpConnected = true;
    this.kem = ephemeralKemKeyPair();
    this.myHello = encodeHello({
      version: PROTOCOL_VERSION,
      role: this.role,
      chainId: this.ctx.chainId,
      genesisHash: this.ctx.genesisHash,
      listenAddress: this.ctx.listenAddress,
      nodePublicKey: this.ctx.nodeKey.publicKey,
      kemPublicKey: this.kem.publicKey,
    });
    this.rawWrite(encodePlainFrame(this.myHello));
  }

  private onData(chunk: Buffer): void {
    if (this.isClosed) return;
    this.bytesIn += chunk.length;
    this.lastReceivedAt = this.ctx.now();
    this.decoder.push(chunk);
    if (!this.blocked) this.processFrames();
  }

  private processFrames(): void {
    // A frame handler may close or block the connection; re-read the state through getters.
    while (!this.isClosed && !this.blocked) {
      let frame: Frame | null;
      try {
        frame = this.decoder.next();
      } catch (e) {
        if (e instanceof FrameSizeError) {
          if (this.state === 'open') this.events.offence(this, 'oversizeFrame', e.reason);
          this.close(e.reason);
          return;
        }
        throw e;
      }
      if (frame === null) return;
      try {
        this.handleFrame(frame);
      } catch (e) {
        if (e instanceof P2pProtocolError) {
          if (this.state === 'open') this.events.offence(this, 'protocolViolation', e.reason);
          this.close(e.reason);
        } else if (e instanceof NonceExhaustedError) {
          this.close('nonce space exhausted (session must be re-keyed)');
        } else {
          this.ctx.logger.warn({ err: e, peer: this.peerId }, 'p2p: internal error handling frame');
          this.close(`internal error: ${e instanceof Error ? e.message : String(e)}`);
        }
        return;
      }
    }
  }

  /**
   * Per-peer back-pressure: while the application works on one message from this peer, the next
   * ones stay unread, so TCP flow control slows the sender instead of our memory filling up, and
   * the peer's messages are handled strictly in order.
   */
  private blockOn(pending: Promise<void>): void {
    this.blocked = true;
    this.socket.pause();
    const resume = (): void => {
      this.blocked = false;
      if (this.isClosed) return;
      this.socket.resume();
      this.processFrames();
    };
    pending.then(resume, resume);
  }

  private handleFrame(frame: Frame): void {
    switch (this.state) {
      case 'hello':
        if (frame.body[0] === HandshakeType.Reject) return this.close(`rejected by peer: ${decodeReason(frame.body.subarray(1))}`);
        return this.onHello(frame.body);
      case 'kex':
        if (frame.body[0] === HandshakeType.Reject) return this.close(`rejected by peer: ${decodeReason(frame.body.subarray(1))}`);
        return this.onKex(frame.body);
      case 'auth':
        return this.onAuth(frame);
      case 'open':
        return this.onSealed(frame);
      default:
        throw new P2pProtocolError(`frame in state ${this.state}`);
    }
  }

  private onHello(body: Uint8Array): void {
    const hello = decodeHello(body);
    if (hello.version !== PROTOCOL_VERSION) return this.reject(`protocol version mismatch (${hello.version} != ${PROTOCOL_VERSION})`);
    // Both sides claiming the same role would mean a TCP simultaneous open or a reflected hello.
    if (hello.role === this.role) return this.reject('role mismatch');
    if (hello.chainId !== this.ctx.chainId) return this.reject(`chain id mismatch (${hello.chainId} != ${this.ctx.chainId})`);
    // Same chain id, another genesis (a re-signed stake, another validator): never the same chain.
    if (!bytesEqual(hello.genesisHash, this.ctx.genesisHash)) return this.reject(`genesis hash mismatch (peer ${toHex0x(hello.genesisHash)} != ours ${toHex0x(this.ctx.genesisHash)})`);
    const peerId = this.ctx.peerIdOf(hello.nodePublicKey);
    this.peerId = peerId;
    if (this.expectedId !== undefined && peerId !== this.expectedId) return this.reject(`unexpected node id ${peerId} (wanted ${this.expectedId})`);
    const refusal = this.events.admit(this, hello, peerId);
    if (refusal !== null) return this.reject(refusal);
    this.peer = hello;
    this.peerHello = body;
    this.peerListenAddress = hello.listenAddress;
    const { cipherText, sharedSecret } = kemEncapsulate(hello.kemPublicKey);
    this.myCipherText = cipherText;
    this.mySharedSecret = sharedSecret;
    this.rawWrite(encodePlainFrame(encodeKex(cipherText)));
    this.state = 'kex';
  }

  private onKex(body: Uint8Array): void {
    const kem = this.kem;
    if (kem === undefined) throw new P2pProtocolError('key exchange before hello');
    const peerCipherText = decodeKex(body);
    const peerSharedSecret = kemDecapsulate(peerCipherText, kem.secretKey);
    const initiator = this.role === 'initiator';
    this.transcript = initiator
      ? transcriptHash(this.myHello, this.peerHello, this.myCipherText, peerCipherText)
      : transcriptHash(this.peerHello, this.myHello, peerCipherText, this.myCipherText);
    const keys = initiator
      ? deriveSessionKeys(this.mySharedSecret, peerSharedSecret, this.transcript)
      : deriveSessionKeys(peerSharedSecret, this.mySharedSecret, this.transcript);
    peerSharedSecret.fill(0);
    this.wipeSecrets();
    this.cipher = initiator
      ? new SessionCipher(keys.initiatorToResponder, keys.responderToInitiator, this.ctx.maxFramesPerSession)
      : new SessionCipher(keys.responderToInitiator, keys.initiatorToResponder, this.ctx.maxFramesPerSession);
    const signature = this.ctx.provider.sign(authMessage(this.role, this.transcript), this.ctx.nodeKey.secretKey);
    this.state = 'auth';
    this.sendSealed(SealedType.Auth, signature);
  }

  private onAuth(frame: Frame): void {
    const cipher = this.cipher;
    const peer = this.peer;
    if (cipher === undefined || peer === undefined) throw new P2pProtocolError('auth before key exchange');
    const pt = cipher.open(frame);
    // Different keys mean the two sides saw different transcripts: a substituted KEM key, a
    // modified hello or ciphertext. Nothing else can make an honest peer's first sealed frame fail.
    if (pt === null) return this.close('handshake authentication failed: transcript mismatch (tampering or MITM)');
    if (pt[0] !== SealedType.Auth) throw new P2pProtocolError('expected auth frame');
    const peerRole: Role = this.role === 'initiator' ? 'responder' : 'initiator';
    if (!this.ctx.provider.verify(pt.subarray(1), authMessage(peerRole, this.transcript), peer.nodePublicKey)) {
      return this.close('bad handshake signature');
    }
    if (this.handshakeTimer !== undefined) clearTimeout(this.handshakeTimer);
    this.handshakeTimer = undefined;
    const now = this.ctx.now();
    this.connectedSince = now;
    this.msgBucket = new TokenBucket(this.ctx.rate.messagesPerSecond, this.ctx.rate.messageBurst, now);
    this.byteBucket = new TokenBucket(this.ctx.rate.bytesPerSecond, this.ctx.rate.byteBurst, now);
    this.decoder.setMaxFrameBytes(this.ctx.maxFrameBytes);
    this.state = 'open';
    this.events.established(this);
  }

  private onSealed(frame: Frame): void {
    const cipher = this.cipher;
    if (cipher === undefined) throw new P2pProtocolError('sealed frame without session');
    const now = this.ctx.now();
    const wireBytes = frame.header.length + frame.body.length;
    // Checked before decrypting so a flood costs us as little CPU as possible.
    if (!this.msgBucket!.take(1, now) || !this.byteBucket!.take(wireBytes, now)) {
      cipher.skip();
      this.events.offence(this, 'rateLimited', 'rate limit exceeded');
      return;
    }
    const pt = cipher.open(frame);
    if (pt === null) {
      this.events.offence(this, 'undecryptableFrame', 'undecryptable frame');
      return this.close('undecryptable frame');
    }
    if (pt.length === 0) throw new P2pProtocolError('empty sealed frame');
    const payload = pt.subarray(1);
    switch (pt[0]) {
      case SealedType.App: {
        const pending = this.events.message(this, payload);
        if (pending !== undefined) this.blockOn(pending);
        return;
      }
      case SealedType.Pex:
        return this.events.pex(this, decodePex(payload));
      case SealedType.Ping:
        this.sendSealed(SealedType.Pong, EMPTY);
        return;
      case SealedType.Pong:
        return;
      case SealedType.Bye:
        return this.close(`closed by peer: ${decodeReason(payload)}`, { bye: false });
      default:
        throw new P2pProtocolError(`unexpected sealed frame type 0x${(pt[0] ?? 0).toString(16)}`);
    }
  }

  private sendSealed(type: number, payload: Uint8Array): boolean {
    const cipher = this.cipher;
    if (cipher === undefined || (this.state !== 'open' && !(this.state === 'auth' && type === SealedType.Auth))) return false;
    const pt = new Uint8Array(1 + payload.length);
    pt[0] = type;
    pt.set(payload, 1);
    let frame: Uint8Array;
    try {
      frame = cipher.seal(pt);
    } catch (e) {
      if (!(e instanceof NonceExhaustedError)) throw e;
      this.close('nonce space exhausted (session must be re-keyed)', { bye: false });
      return false;
    }
    this.rawWrite(frame);
    if (this.socket.writableLength > this.ctx.maxWriteBufferBytes) {
      this.close('peer too slow (write buffer overflow)', { bye: false });
      return false;
    }
    return true;
  }

  private reject(reason: string): void {
    this.rawWrite(encodePlainFrame(encodeReject(reason)));
    this.close(reason);
  }

  private rawWrite(bytes: Uint8Array): void {
    if (this.socket.destroyed || !this.socket.writable) return;
    this.socket.write(bytes);
    this.bytesOut += bytes.length;
    this.lastSentAt = this.ctx.now();
  }

  private wipeSecrets(): void {
    this.kem?.secretKey.fill(0);
    this.mySharedSecret.fill(0);
    if (this.state === 'closed') this.cipher?.wipe();
  }
}

function socketAddress(socket: Socket): string {
  const host = socket.remoteAddress ?? 'unknown';
  const port = socket.remotePort ?? 0;
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}
