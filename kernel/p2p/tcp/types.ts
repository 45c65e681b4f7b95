import type { KeyPair, SignatureProvider } from '../../crypto/provider.js';

/** The subset of pino's Logger the transport uses; any pino logger (or a test double) fits. */
export interface P2pLogger {
  debug(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export type Direction = 'inbound' | 'outbound';

/** One row of the `/peers` endpoint. */
export interface PeerInfo {
  readonly id: string;
  /** Remote socket address (`ip:port`) of the connection. */
  readonly address: string;
  /** Address the peer says it listens on (signed in its handshake); '' if it does not listen. */
  readonly listenAddress: string;
  readonly direction: Direction;
  /** Milliseconds since the epoch, from the injected clock. */
  readonly connectedSince: number;
  /** Current misbehaviour points (after decay). */
  readonly score: number;
  /** Wire bytes including handshake, framing and AEAD overhead. */
  readonly bytesIn: number;
  readonly bytesOut: number;
}

export interface HandshakeFailure {
  readonly address: string;
  readonly direction: Direction;
  readonly reason: string;
  /** Known when the failure happened after the peer's hello was parsed (not yet authenticated!). */
  readonly claimedPeerId?: string;
}

export interface RateLimitOptions {
  /** Sustained frames per second per peer. Default 1000. */
  readonly messagesPerSecond: number;
  /** Frames that may arrive at once before the sustained rate applies. Default 2000. */
  readonly messageBurst: number;
  /** Sustained wire bytes per second per peer. Default 16 MiB. */
  readonly bytesPerSecond: number;
  /** Raised to at least maxFrameBytes so a single maximal frame can always pass. Default 32 MiB. */
  readonly byteBurst: number;
}

export interface MisbehaviourOptions {
  /** Score at or above which the peer is disconnected and banned. Default 100. */
  readonly banThreshold: number;
  /** Default 10 minutes. */
  readonly banDurationMs: number;
  /** Default 1 point per second. */
  readonly decayPerSecond: number;
  /** Points per offence. Defaults: oversize 40, undecryptable 40, rate limited 5, protocol 40. */
  readonly oversizeFrame: number;
  readonly undecryptableFrame: number;
  readonly rateLimited: number;
  readonly protocolViolation: number;
}

export interface BackoffOptions {
  /** First retry waits between base/2 and base. Default 500 ms. */
  readonly baseMs: number;
  /** Cap on the exponential delay. Default 30 s. */
  readonly maxMs: number;
  /** Addresses learned by peer exchange are forgotten after this many failed dials in a row. Default 5. */
  readonly maxLearnedAttempts: number;
}

export interface TcpTransportOptions {
  /** ML-DSA-65 provider: every sign/verify of the handshake goes through it. */
  readonly provider: SignatureProvider;
  /** The node's long-term ML-DSA-65 identity key; the node id is derived from its public half. */
  readonly nodeKey: KeyPair;
  /**
   * Maps a node public key to its peer id (selfId, peers(), send()). Default: 40-hex SHA3-256
   * prefix (nodeIdFromPublicKey). Pass the validator-address derivation to address validators by
   * address. Must be deterministic and binding (a different key must not yield the same id), since
   * the id is what the authenticated handshake vouches for. At most 128 UTF-8 bytes.
   */
  readonly peerIdOf?: (publicKey: Uint8Array) => string;
  readonly chainId: string;
  /** SHA3-256 of the genesis document (32 bytes): a peer of another genesis is refused in the handshake. */
  readonly genesisHash: Uint8Array;
  /** Default 127.0.0.1. */
  readonly host?: string;
  /** Default 0 (an ephemeral port; start() returns the bound one). */
  readonly port?: number;
  /** What peers should dial (signed into the hello). Default `host:boundPort`; set it when host is 0.0.0.0. */
  readonly advertiseAddress?: string;
  /**
   * Addresses dialed at start and re-dialed forever with backoff: `host:port`, or
   * `<node_id>@host:port` to refuse a peer there whose key has another id.
   */
  readonly seeds?: readonly string[];
  /** If given, only these node ids may connect (either direction). */
  readonly allowList?: Iterable<string>;
  /** Established connections. Default 50. */
  readonly maxPeers?: number;
  /** Largest accepted sealed frame on the wire (length prefix value). Default 4 MiB. */
  readonly maxFrameBytes?: number;
  /** Default 10 s, counted from the TCP connect attempt. */
  readonly handshakeTimeoutMs?: number;
  readonly rateLimit?: Partial<RateLimitOptions>;
  readonly misbehaviour?: Partial<MisbehaviourOptions>;
  readonly backoff?: Partial<BackoffOptions>;
  /** Period of the full peer-exchange re-announcement. Default 30 s. */
  readonly pexIntervalMs?: number;
  /** Ping a peer we have not sent anything to for this long. Default 15 s. */
  readonly pingIntervalMs?: number;
  /** Close a peer we have heard nothing from for this long. Default 45 s. */
  readonly idleTimeoutMs?: number;
  /** How often pings, idle checks and re-announcements are evaluated. Default 1 s. */
  readonly maintenanceIntervalMs?: number;
  /** Frames per direction before the session is closed to avoid nonce reuse. Default 2^48. */
  readonly maxFramesPerSession?: number;
  /** A peer that does not drain this much queued output is dropped. Default 64 MiB. */
  readonly maxWriteBufferBytes?: number;
  /** Milliseconds since the epoch; drives rate limits, scores, bans and idle detection. Default Date.now. */
  readonly now?: () => number;
  /** Uniform [0, 1) source for backoff jitter. Default a PRNG seeded from the node id. */
  readonly rng?: () => number;
  /** Default: a silent pino logger. */
  readonly logger?: P2pLogger;
}
