export { TcpTransport } from './tcp-transport.js';
export type {
  BackoffOptions,
  Direction,
  HandshakeFailure,
  MisbehaviourOptions,
  P2pLogger,
  PeerInfo,
  RateLimitOptions,
  TcpTransportOptions,
} from './types.js';
export { nodeIdFromPublicKey, PROTOCOL_VERSION } from './wire.js';
