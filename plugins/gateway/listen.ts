import type { Logger } from 'pino';
import { createHttpServer, mountRoutes, RouteTable, type Hooks, type HttpServer, type PluginRuntime, type WsHandlers } from '../../kernel/sdk.js';
import type { GatewayConfig } from './config.js';
import { globalRateLimiter } from './rate-limits.js';

/**
 * Starts the public HTTP(S) + WebSocket server with every route the service plugins tapped into
 * `routes`. Logs one line with the bound port ("gateway listening ... "port":N) that scripts and
 * tests parse, like the node's "node RPC listening".
 */
export async function listenGateway(config: GatewayConfig, hooks: Hooks, ws: WsHandlers, log: Logger, runtime: PluginRuntime): Promise<{ server: HttpServer; port: number }> {
  const routes = new RouteTable();
  hooks.routes.call(routes);
  const limiter = globalRateLimiter(config.globalRlMaxRps);
  const server = await createHttpServer({
    host: config.host,
    port: config.port,
    corsAllowedOrigins: config.corsAllowedOrigins,
    rateLimitPerSecond: config.globalRlMaxRps,
    ...(limiter ? { rateLimiter: limiter } : {}),
    ...(config.tls ? { tls: config.tls } : {}),
    ws: {
      path: '/ws',
      maxMessageBytes: config.wsMaxMsgBytes,
      // The transport pings idle clients and drops the silent ones: two sweep periods of silence.
      idleTimeoutSeconds: Math.max(8, Math.ceil((2 * config.wsStaleCheckMs) / 1000)),
      handlers: ws,
    },
    backend: config.httpBackend,
    logger: log,
  });
  // Routes of service plugins loaded later (SIGHUP) are mounted as they load; an unloaded one's answer 404.
  mountRoutes(server, routes, (owner) => runtime.servesRoutesOf(owner), log, undefined, 'gateway');
  runtime.onServiceLoaded((name) => mountRoutes(server, runtime.routesOf(name), (owner) => runtime.servesRoutesOf(owner), log, undefined, 'gateway'));
  const { port } = await server.listen();
  const scheme = config.tls ? 'https' : 'http';
  log.info({ backend: server.backend, backend_reason: server.backendReason, port, host: config.host, tls: config.tls !== undefined }, `gateway listening on ${scheme}://${config.host}:${port} (${server.backend} backend)`);
  return { server, port };
}
