import net from 'node:net';
import pino from 'pino';
import { compareBytes } from '../../codec/bytes.js';
import { sha3 } from '../../crypto/hash.js';
import type { MessageHandler, Transport } from '../transport.js';
import { PeerConnection } from './connection.js';
import type { ConnectionContext, ConnectionEvents, Offence } from './connection.js';
import { backoffDelay, DecayingScore, mulberry32 } from './limits.js';
import type {
  BackoffOptions,
  HandshakeFailure,
  MisbehaviourOptions,
  P2pLogger,
  PeerInfo,
  RateLimitOptions,
  TcpTransportOptions,
} from './types.js';
import { AEAD_TAG_BYTES, formatAddress, MAX_PEX_ENTRIES, nodeIdFromPublicKey, parseAddress } from './wire.js';
import type { Hello, PexEntry } from './wire.js';
import { parsePeerEndpoint } from '../endpoint.js';

const DEFAULT_MAX_FRAME_BYTES = 4 * 1024 * 1024;
/** Unauthenticated connections cost a KEM keygen each; cap how many can be in flight at once. */
const MAX_PENDING_INBOUND = 64;
/** Addresses learned from peers are attacker-influenced; keep that table bounded. */
const MAX_LEARNED_TARGETS = 256;

/** An address we dial: a configured seed (redialed forever) or one learned by peer exchange. */
interface DialTarget {
  readonly address: string;
  readonly persistent: boolean;
  /** For learned addresses: the id the advertising peer vouched for; anything else is refused. */
  readonly expectedId: string | undefined;
  /** Id seen at this address in the last successful handshake. */
  knownId: string | undefined;
  /** Consecutive failed dials (drives the backoff). */
  attempts: number;
  timer: NodeJS.Timeout | undefined;
  conn: PeerConnection | undefined;
  /** The address turned out to be this node; never dial it again. */
  self: boolean;
}

type Listener<A extends unknown[]> = (...args: A) => void;

/**
 * Post-quantum TCP transport between validator processes: ML-KEM-768 + ML-DSA-65 mutually
 * authenticated handshake, ChaCha20-Poly1305 framing, per-peer rate limits and misbehaviour bans,
 * seed dialing with backoff and peer exchange. Wire protocol: PROTOCOL.md in this folder.
 */
export class TcpTransport implements Transport {
  readonly selfId: string;

  private readonly options: TcpTransportOptions;
  private readonly host: string;
  private readonly maxPeers: number;
  private readonly maxFrameBytes: number;
  private readonly rate: RateLimitOptions;
  private readonly misbehaviour: MisbehaviourOptions;
  private readonly backoff: BackoffOptions;
  private readonly allowList: ReadonlySet<string> | undefined;
  private readonly now: () => number;
  private readonly rng: () => number;
  private readonly logger: P2pLogger;
  private readonly peerIdOf: (publicKey: Uint8Array) => string;

  private state: 'idle' | 'starting' | 'running' | 'stopping' | 'stopped' = 'idle';
  private stopPromise: Promise<void> | undefined;
  private server: net.Server | undefined;
  private ctx: ConnectionContext | undefined;
  private boundPort = 0;
  private advertised = '';
  private maintenanceTimer: NodeJS.Timeout | undefined;
  private lastPexAt = 0;

  private readonly connections = new Set<PeerConnection>();
  /** Exactly one established connection per peer id. */
  private readonly active = new Map<string, PeerConnection>();
  private readonly targets = new Map<string, DialTarget>();
  private readonly scores = new Map<string, DecayingScore>();
  private readonly bans = new Map<string, number>();

  private messageHandler: MessageHandler | undefined;
  private readonly connectedListeners: Listener<[string, PeerInfo]>[] = [];
  private readonly disconnectedListeners: Listener<[string, string]>[] = [];
  private readonly failureListeners: Listener<[HandshakeFailure]>[] = [];

  constructor(options: TcpTransportOptions) {
    this.options = options;
    this.peerIdOf = options.peerIdOf ?? nodeIdFromPublicKey;
    this.selfId = this.peerIdOf(options.nodeKey.publicKey);
    this.host = options.host ?? '127.0.0.1';
    this.maxPeers = options.maxPeers ?? 50;
    this.maxFrameBytes = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
    if (this.maxFrameBytes <= AEAD_TAG_BYTES + 1) throw new RangeError('maxFrameBytes too small');
    const r = options.rateLimit ?? {};
    this.rate = {
      messagesPerSecond: r.messagesPerSecond ?? 1000,
      messageBurst: r.messageBurst ?? 2000,
      bytesPerSecond: r.bytesPerSecond ?? 16 * 1024 * 1024,
      // A burst smaller than one maximal frame would make such frames impossible to receive.
      byteBurst: Math.max(r.byteBurst ?? 32 * 1024 * 1024, this.maxFrameBytes + 4),
    };
    const m = options.misbehaviour ?? {};
    this.misbehaviour = {
      banThreshold: m.banThreshold ?? 100,
      banDurationMs: m.banDurationMs ?? 10 * 60_000,
      decayPerSecond: m.decayPerSecond ?? 1,
      oversizeFrame: m.oversizeFrame ?? 40,
      undecryptableFrame: m.undecryptableFrame ?? 40,
      rateLimited: m.rateLimited ?? 5,
      protocolViolation: m.protocolViolation ?? 40,
    };
    const b = options.backoff ?? {};
    this.backoff = { baseMs: b.baseMs ?? 500, maxMs: b.maxMs ?? 30_000, maxLearnedAttempts: b.maxLearnedAttempts ?? 5 };
    this.allowList = options.allowList === undefined ? undefined : new Set(options.allowList);
    this.now = options.now ?? Date.now;
    const idHash = sha3(this.selfId);
    this.rng = options.rng ?? mulberry32(((idHash[0]! << 24) | (idHash[1]! << 16) | (idHash[2]! << 8) | idHash[3]!) >>> 0);
    this.logger = options.logger ?? pino({ level: 'silent' });
  }

  // ---------------------------------------------------------------------------------------------
  // Lifecycle

  /** Listens on host:port (0 = ephemeral), starts dialing the seeds, and returns the bound port. */
  async start(): Promise<number> {
    if (this.state !== 'idle') throw new Error(`TcpTransport cannot start from state ${this.state}`);
    this.state = 'starting';
    const server = net.createServer((socket) => this.onInbound(socket));
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.options.port ?? 0, this.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    server.on('error', (err) => this.logger.warn({ err }, 'p2p: server error'));
    const addr = server.address();
    this.boundPort = typeof addr === 'object' && addr !== null ? addr.port : 0;
    this.advertised = this.options.advertiseAddress ?? formatAddress(this.host, this.boundPort);
    this.ctx = {
      selfId: this.selfId,
      peerIdOf: this.peerIdOf,
      provider: this.options.provider,
      nodeKey: this.options.nodeKey,
      chainId: this.options.chainId,
      genesisHash: this.options.genesisHash,
      listenAddress: this.advertised,
      maxFrameBytes: this.maxFrameBytes,
      maxFramesPerSession: this.options.maxFramesPerSession ?? 2 ** 48,
      maxWriteBufferBytes: this.options.maxWriteBufferBytes ?? 64 * 1024 * 1024,
      handshakeTimeoutMs: this.options.handshakeTimeoutMs ?? 10_000,
      rate: this.rate,
      now: this.now,
      logger: this.logger,
    };
    this.state = 'running';
    this.lastPexAt = this.now();
    this.maintenanceTimer = setInterval(() => this.maintenance(), this.options.maintenanceIntervalMs ?? 1000);
    this.maintenanceTimer.unref();
    this.logger.info({ nodeId: this.selfId, listen: this.advertised }, 'p2p: listening');
    for (const seed of this.options.seeds ?? []) this.addSeed(seed);
    return this.boundPort;
  }

  /** Closes the listener and every connection (peers get a sealed BYE), then resolves. */
  stop(): Promise<void> {
    if (this.stopPromise !== undefined) return this.stopPromise;
    this.stopPromise = this.doStop();
    return this.stopPromise;
  }

  private async doStop(): Promise<void> {
    const wasRunning = this.state === 'running';
    this.state = 'stopping';
    if (this.maintenanceTimer !== undefined) clearInterval(this.maintenanceTimer);
    for (const t of this.targets.values()) {
      if (t.timer !== undefined) clearTimeout(t.timer);
      t.timer = undefined;
    }
    const server = this.server;
    const serverClosed =
      server === undefined || !server.listening ? Promise.resolve() : new Promise<void>((resolve) => server.close(() => resolve()));
    const conns = [...this.connections];
    for (const c of conns) c.close('shutting down');
    await Promise.all(conns.map((c) => c.closed));
    await serverClosed;
    this.state = 'stopped';
    if (wasRunning) this.logger.info({ nodeId: this.selfId }, 'p2p: stopped');
  }

  /** Bound TCP port (after start()). */
  get port(): number {
    return this.boundPort;
  }

  /** The `host:port` this node advertises in its hello. */
  get listenAddress(): string {
    return this.advertised;
  }

  /** Largest message send()/broadcast() accept: the frame cap minus type byte and AEAD tag. */
  get maxMessageBytes(): number {
    return this.maxFrameBytes - AEAD_TAG_BYTES - 1;
  }

  /**
   * Adds an address to dial and keep redialing (like a configured seed): `host:port`, or
   * `<node_id>@host:port`, where a peer whose key has another id is refused.
   */
  addSeed(seed: string): void {
    const endpoint = parsePeerEndpoint(seed);
    if (endpoint === null) throw new RangeError(`invalid peer address ${seed}`);
    if (this.state !== 'running') throw new Error('TcpTransport is not running');
    const address = endpoint.address;
    const existing = this.targets.get(address);
    if (existing !== undefined && existing.persistent) return;
    const target: DialTarget = {
      address,
      persistent: true,
      expectedId: endpoint.nodeId,
      knownId: existing?.knownId,
      attempts: 0,
      timer: existing?.timer,
      conn: existing?.conn,
      self: false,
    };
    this.targets.set(address, target);
    this.dialNow(target);
  }

  // ---------------------------------------------------------------------------------------------
  // Transport API

  /** Connected (authenticated) peer ids, sorted. */
  peers(): string[] {
    return [...this.active.keys()].sort();
  }

  /** Rows for the `/peers` endpoint, sorted by id. */
  peerInfo(): PeerInfo[] {
    return this.peers().map((id) => this.infoOf(this.active.get(id)!));
  }

  /** Drops the message (debug log) if the peer is not connected: gossip tolerates that race. */
  send(peerId: string, msg: Uint8Array): void {
    this.checkSize(msg);
    const conn = this.active.get(peerId);
    if (conn === undefined) {
      this.logger.debug({ peer: peerId }, 'p2p: send to unconnected peer dropped');
      return;
    }
    conn.sendApp(msg);
  }

  broadcast(msg: Uint8Array): void {
    this.checkSize(msg);
    for (const conn of [...this.active.values()]) conn.sendApp(msg);
  }

  /**
   * Sets the receive handler (replacing any previous one). If it returns a promise, further
   * messages from that same peer wait until it settles (back-pressure reaches the sender through
   * TCP); other peers are not held up.
   */
  onMessage(cb: MessageHandler): void {
    this.messageHandler = cb;
  }

  onPeerConnected(cb: (peerId: string, info: PeerInfo) => void): () => void {
    return addListener(this.connectedListeners, cb);
  }

  onPeerDisconnected(cb: (peerId: string, reason: string) => void): () => void {
    return addListener(this.disconnectedListeners, cb);
  }

  /** Connections refused or broken before authentication completed (with the reason). */
  onHandshakeFailed(cb: (failure: HandshakeFailure) => void): () => void {
    return addListener(this.failureListeners, cb);
  }

  /** Adds misbehaviour points (e.g. an invalid block); at the threshold the peer is dropped and banned. */
  reportMisbehaviour(peerId: string, points: number, reason: string): void {
    if (!Number.isFinite(points) || points <= 0) throw new RangeError('misbehaviour points must be positive');
    this.addPoints(peerId, points, reason);
  }

  score(peerId: string): number {
    return this.scores.get(peerId)?.value(this.now()) ?? 0;
  }

  isBanned(peerId: string): boolean {
    const until = this.bans.get(peerId);
    if (until === undefined) return false;
    if (this.now() >= until) {
      this.bans.delete(peerId);
      return false;
    }
    return true;
  }

  // ---------------------------------------------------------------------------------------------
  // Connection events

  private readonly events: ConnectionEvents = {
    admit: (conn, hello, peerId) => this.admit(conn, hello, peerId),
    established: (conn) => this.onEstablished(conn),
    message: (conn, msg) => this.deliver(conn, msg),
    pex: (conn, entries) => this.onPex(conn, entries),
    offence: (conn, offence, reason) => this.onOffence(conn, offence, reason),
    closed: (conn, reason, wasOpen) => this.onClosed(conn, reason, wasOpen),
  };

  private onInbound(socket: net.Socket): void {
    const ctx = this.ctx;
    if (this.state !== 'running' || ctx === undefined) {
      socket.destroy();
      return;
    }
    let pending = 0;
    for (const c of this.connections) if (c.direction === 'inbound' && !c.isOpen) pending++;
    if (pending >= MAX_PENDING_INBOUND) {
      this.logger.warn({ remote: socket.remoteAddress }, 'p2p: too many pending inbound handshakes, dropping');
      socket.destroy();
      return;
    }
    this.connections.add(new PeerConnection(ctx, this.events, socket, 'inbound'));
  }

  private admit(conn: PeerConnection, _hello: Hello, peerId: string): string | null {
    if (this.state !== 'running') return 'shutting down';
    if (peerId === this.selfId) {
      const target = conn.dialAddress === undefined ? undefined : this.targets.get(conn.dialAddress);
      if (target !== undefined) target.self = true;
      return 'self-connection';
    }
    if (this.allowList !== undefined && !this.allowList.has(peerId)) return 'node id not in allow-list';
    if (this.isBanned(peerId)) return 'banned';
    // A duplicate of an existing peer is let through: onEstablished decides which copy survives.
    if (!this.active.has(peerId) && this.active.size >= this.maxPeers) return 'too many peers';
    return null;
  }

  private onEstablished(conn: PeerConnection): void {
    const peerId = conn.peerId!;
    if (this.state !== 'running') return conn.close('shutting down');
    if (this.isBanned(peerId)) return conn.close('banned');
    const target = conn.dialAddress === undefined ? undefined : this.targets.get(conn.dialAddress);
    if (target !== undefined) {
      target.knownId = peerId;
      target.attempts = 0;
    }
    const existing = this.active.get(peerId);
    if (existing !== undefined && existing !== conn) {
      // Both sides apply the same rule to the same pair of connections, so they keep the same one.
      if (this.preferred(existing, conn) === existing) {
        this.logger.debug({ peer: peerId }, 'p2p: duplicate connection, keeping the existing one');
        return conn.close('duplicate connection');
      }
      this.logger.debug({ peer: peerId }, 'p2p: duplicate connection, replacing the existing one');
      this.active.set(peerId, conn);
      existing.close('duplicate connection');
      conn.sendPex(this.pexEntries(conn));
      return;
    }
    if (this.active.size >= this.maxPeers) return conn.close('too many peers');
    this.active.set(peerId, conn);
    const info = this.infoOf(conn);
    this.logger.info({ peer: peerId, address: info.address, direction: conn.direction }, 'p2p: peer connected');
    emit(this.connectedListeners, this.logger, peerId, info);
    if (!conn.isOpen) return; // a listener disconnected it
    conn.sendPex(this.pexEntries(conn));
    if (parseAddress(conn.peerListenAddress) !== null) {
      const announce: PexEntry[] = [{ id: peerId, address: conn.peerListenAddress }];
      for (const other of this.active.values()) if (other !== conn) other.sendPex(announce);
    }
  }

  /**
   * Duplicate tie-break: keep the connection dialed by the lower node id; if the same node dialed
   * both, keep the one with the lower transcript hash. Both inputs are identical on both ends.
   */
  private preferred(a: PeerConnection, b: PeerConnection): PeerConnection {
    const peerId = a.peerId!;
    const lower = this.selfId < peerId ? this.selfId : peerId;
    const aLow = a.initiatorId === lower;
    const bLow = b.initiatorId === lower;
    if (aLow !== bLow) return aLow ? a : b;
    return compareBytes(a.transcript, b.transcript) <= 0 ? a : b;
  }

  private onClosed(conn: PeerConnection, reason: string, wasOpen: boolean): void {
    this.connections.delete(conn);
    const peerId = conn.peerId;
    const wasActive = wasOpen && peerId !== undefined && this.active.get(peerId) === conn;
    if (wasActive) {
      this.active.delete(peerId);
      this.logger.info({ peer: peerId, reason }, 'p2p: peer disconnected');
      emit(this.disconnectedListeners, this.logger, peerId, reason);
    } else if (!wasOpen && conn.tcpConnected) {
      const failure: HandshakeFailure = {
        address: conn.remoteAddress,
        direction: conn.direction,
        reason,
        ...(peerId !== undefined ? { claimedPeerId: peerId } : {}),
      };
      const quiet = reason === 'self-connection' || reason === 'shutting down';
      this.logger[quiet ? 'debug' : 'warn'](failure, 'p2p: handshake failed');
      emit(this.failureListeners, this.logger, failure);
    } else if (!wasOpen) {
      this.logger.debug({ address: conn.remoteAddress, reason }, 'p2p: dial failed');
    }
    if (this.state !== 'running') return;

    const target = conn.dialAddress === undefined ? undefined : this.targets.get(conn.dialAddress);
    if (target !== undefined && target.conn === conn) {
      target.conn = undefined;
      if (!wasOpen) {
        target.attempts++;
        const giveUp =
          !target.persistent && (target.attempts >= this.backoff.maxLearnedAttempts || reason.startsWith('unexpected node id'));
        if (giveUp) this.targets.delete(target.address);
        else this.scheduleDial(target);
      } else {
        this.scheduleDial(target);
      }
    }
    if (wasActive) {
      for (const t of this.targets.values()) if (t !== target && (t.knownId ?? t.expectedId) === peerId) this.scheduleDial(t);
    }
  }

  private deliver(conn: PeerConnection, msg: Uint8Array): Promise<void> | undefined {
    const peerId = conn.peerId!;
    // Frames still arriving on a connection that just lost the duplicate tie-break are dropped.
    if (this.active.get(peerId) !== conn) return undefined;
    const handler = this.messageHandler;
    if (handler === undefined) return undefined;
    const onError = (err: unknown): void => this.logger.warn({ err, peer: peerId }, 'p2p: message handler failed');
    try {
      const result = handler(peerId, msg);
      return result instanceof Promise ? result.catch(onError) : undefined;
    } catch (err) {
      onError(err);
      return undefined;
    }
  }

  private onOffence(conn: PeerConnection, offence: Offence, reason: string): void {
    const peerId = conn.peerId;
    if (peerId === undefined || !conn.isOpen) return;
    this.addPoints(peerId, this.misbehaviour[offence], reason);
  }

  private addPoints(peerId: string, points: number, reason: string): void {
    const now = this.now();
    let score = this.scores.get(peerId);
    if (score === undefined) {
      score = new DecayingScore(this.misbehaviour.decayPerSecond, now);
      this.scores.set(peerId, score);
    }
    const total = score.add(points, now);
    this.logger.warn({ peer: peerId, points, total, reason }, 'p2p: peer misbehaviour');
    if (total >= this.misbehaviour.banThreshold && !this.isBanned(peerId)) this.ban(peerId, reason);
  }

  private ban(peerId: string, reason: string): void {
    this.bans.set(peerId, this.now() + this.misbehaviour.banDurationMs);
    this.logger.warn({ peer: peerId, reason, banMs: this.misbehaviour.banDurationMs }, 'p2p: peer banned');
    for (const c of [...this.connections]) if (c.peerId === peerId) c.close(`banned: ${reason}`);
  }

  // ---------------------------------------------------------------------------------------------
  // Dialing and peer exchange

  private onPex(conn: PeerConnection, entries: PexEntry[]): void {
    if (this.active.get(conn.peerId!) !== conn) return;
    for (const e of entries) {
      if (this.state !== 'running') return;
      if (e.id === this.selfId || this.active.has(e.id) || this.isBanned(e.id)) continue;
      if (this.allowList !== undefined && !this.allowList.has(e.id)) continue;
      if (parseAddress(e.address) === null || this.isDialing(e.id)) continue;
      if (this.active.size + this.pendingOutbound() >= this.maxPeers) return;
      const existing = this.targets.get(e.address);
      if (existing !== undefined) {
        if (existing.timer === undefined && existing.conn === undefined) this.dialNow(existing);
        continue;
      }
      let learned = 0;
      for (const t of this.targets.values()) if (!t.persistent) learned++;
      if (learned >= MAX_LEARNED_TARGETS) return;
      const target: DialTarget = {
        address: e.address,
        persistent: false,
        expectedId: e.id,
        knownId: undefined,
        attempts: 0,
        timer: undefined,
        conn: undefined,
        self: false,
      };
      this.targets.set(e.address, target);
      this.dialNow(target);
    }
  }

  private isDialing(peerId: string): boolean {
    for (const t of this.targets.values()) {
      if ((t.knownId ?? t.expectedId) === peerId && t.conn !== undefined) return true;
    }
    return false;
  }

  private pendingOutbound(): number {
    let n = 0;
    for (const c of this.connections) if (c.direction === 'outbound' && !c.isOpen) n++;
    return n;
  }

  private scheduleDial(target: DialTarget, delayMs?: number): void {
    if (this.state !== 'running' || target.self || target.timer !== undefined || target.conn !== undefined) return;
    const delay = delayMs ?? backoffDelay(target.attempts, this.backoff.baseMs, this.backoff.maxMs, this.rng);
    target.timer = setTimeout(() => {
      target.timer = undefined;
      this.dialNow(target);
    }, delay);
    // The listening server keeps the process alive while running; a stray timer should not.
    target.timer.unref();
  }

  private dialNow(target: DialTarget): void {
    const ctx = this.ctx;
    if (this.state !== 'running' || ctx === undefined || target.self || target.conn !== undefined) return;
    if (this.targets.get(target.address) !== target) return;
    const id = target.knownId ?? target.expectedId;
    // Already connected (maybe inbound): nothing to do until that connection drops.
    if (id !== undefined && this.active.has(id)) return;
    if (id !== undefined && this.isBanned(id)) return this.scheduleDial(target, this.backoff.maxMs);
    if (this.active.size + this.pendingOutbound() >= this.maxPeers) return this.scheduleDial(target, this.backoff.maxMs);
    const parsed = parseAddress(target.address);
    if (parsed === null) {
      this.targets.delete(target.address);
      return;
    }
    const socket = net.connect({ host: parsed.host, port: parsed.port });
    const conn = new PeerConnection(ctx, this.events, socket, 'outbound', {
      dialAddress: target.address,
      ...(target.expectedId !== undefined ? { expectedId: target.expectedId } : {}),
    });
    target.conn = conn;
    this.connections.add(conn);
  }

  private pexEntries(exclude: PeerConnection): PexEntry[] {
    const out: PexEntry[] = [];
    for (const [id, c] of this.active) {
      if (c === exclude || parseAddress(c.peerListenAddress) === null) continue;
      out.push({ id, address: c.peerListenAddress });
      if (out.length >= MAX_PEX_ENTRIES) break;
    }
    return out;
  }

  private maintenance(): void {
    if (this.state !== 'running') return;
    const now = this.now();
    const idleMs = this.options.idleTimeoutMs ?? 45_000;
    const pingMs = this.options.pingIntervalMs ?? 15_000;
    for (const conn of [...this.active.values()]) {
      if (now - conn.lastReceivedAt > idleMs) conn.close('idle timeout');
      else if (now - conn.lastSentAt >= pingMs) conn.sendPing();
    }
    if (now - this.lastPexAt >= (this.options.pexIntervalMs ?? 30_000)) {
      this.lastPexAt = now;
      for (const conn of this.active.values()) conn.sendPex(this.pexEntries(conn));
    }
    for (const [id, until] of this.bans) if (now >= until) this.bans.delete(id);
  }

  private infoOf(c: PeerConnection): PeerInfo {
    const id = c.peerId!;
    return {
      id,
      address: c.remoteAddress,
      listenAddress: c.peerListenAddress,
      direction: c.direction,
      connectedSince: c.connectedSince,
      score: this.score(id),
      bytesIn: c.bytesIn,
      bytesOut: c.bytesOut,
    };
  }

  private checkSize(msg: Uint8Array): void {
    if (msg.length > this.maxMessageBytes) {
      throw new RangeError(`message of ${msg.length} bytes exceeds the ${this.maxMessageBytes}-byte frame limit`);
    }
  }
}

function addListener<A extends unknown[]>(list: Listener<A>[], cb: Listener<A>): () => void {
  list.push(cb);
  return () => {
    const i = list.indexOf(cb);
    if (i >= 0) list.splice(i, 1);
  };
}

/** A throwing listener must not take the connection (or the other listeners) down with it. */
function emit<A extends unknown[]>(list: readonly Listener<A>[], logger: P2pLogger, ...args: A): void {
  for (const cb of [...list]) {
    try {
      cb(...args);
    } catch (err) {
      logger.warn({ err }, 'p2p: listener threw');
    }
  }
}
