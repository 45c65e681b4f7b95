import type { Logger } from 'pino';
import { notFound } from '../errors.js';
import type { HttpServer } from '../rpc/index.js';
import type { ApiService } from './openapi.js';
import { checkingResponses, validatingResponses } from './response-check.js';
import type { RouteEntry, RouteTable, RpcHandler, RpcRequest } from '../host/route-table.js';

interface Mounted {
  readonly entry: RouteEntry;
  readonly handler: RpcHandler;
  readonly serves: (owner: string) => boolean;
}

/** What a server currently routes to, by method and path: the latest registration wins. */
const mountedRoutes = new WeakMap<HttpServer, Map<string, Mounted>>();

/**
 * Mounts a route table on a server (the node's RPC, the gateway's). Each path is mounted once;
 * its handler looks up the current registration and answers 404 while `serves(owner)` is false
 * (a service plugin that is not loaded now), so an unloaded plugin's routes disappear and a
 * reloaded one's come back: a server cannot drop a route. A path already served by another
 * plugin that is still loaded is not taken over (logged). `handlerOf` lets the node wrap a
 * route's handler (proven reads, proven-reads.ts). With CHAIN_VALIDATE_RESPONSES=1 every declared
 * route's answers are checked against its declaration (response-check.ts).
 */
export function mountRoutes(server: HttpServer, routes: RouteTable, serves: (owner: string) => boolean, log: Pick<Logger, 'error'>, handlerOf: (entry: RouteEntry) => RpcHandler = (e) => e.handler, service: ApiService = 'node'): void {
  let table = mountedRoutes.get(server);
  if (!table) mountedRoutes.set(server, (table = new Map()));
  const current = table;
  const validate = validatingResponses();
  for (const r of routes.list()) {
    const key = `${r.method} ${r.path}`;
    const prev = current.get(key);
    if (prev && prev.entry.owner !== r.owner && prev.serves(prev.entry.owner)) {
      log.error({ route: key, owner: prev.entry.owner, refused: r.owner }, 'route already served by another plugin; not mounted');
      continue;
    }
    const handler = validate ? checkingResponses(r, handlerOf(r), service, log) : handlerOf(r);
    current.set(key, { entry: r, handler, serves });
    if (prev) continue;
    server.route({
      method: r.method,
      path: r.path,
      handler: (req: RpcRequest) => {
        const cur = current.get(key)!;
        if (!cur.serves(cur.entry.owner)) throw notFound(`${r.method} ${r.path}: plugin "${cur.entry.owner}" is not loaded`);
        return cur.handler(req);
      },
    });
  }
}

/** The routes a server serves now (those of unloaded service plugins left out), in mounting order: what its API reference lists. */
export function servedRoutes(server: HttpServer): RouteEntry[] {
  return [...(mountedRoutes.get(server)?.values() ?? [])].filter((m) => m.serves(m.entry.owner)).map((m) => m.entry);
}
