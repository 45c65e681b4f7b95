/** Public surface of the HTTP + WebSocket server; callers import from here, not from the backends. */
export type {
  BackendName,
  HttpMethod,
  HttpReply,
  HttpRequest,
  HttpServer,
  RouteDef,
  RouteHandler,
  ServerOptions,
  TlsOptions,
  WsConnection,
  WsHandlers,
  WsOptions,
} from './server.js';
export { DEFAULT_MAX_BODY_BYTES } from './server.js';
export { createHttpServer, BACKEND_ENV } from './select-backend.js';
export { encodedReply, reply, streamReply, JSON_CONTENT_TYPE } from './respond.js';
export { flexibleRateLimiter, memoryRateLimiter } from './rate-limit.js';
export type { RateDecision, RateLimiter } from './rate-limit.js';
export { loadUws } from './uws-native.js';
