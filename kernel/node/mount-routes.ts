import type { Logger } from 'pino';
import { notFound } from '../errors.js';
import type { HttpServer } from '../rpc/index.js';
import type { RouteEntry, RouteTable, RpcHandler, RpcRequest } from './route-table.js';

/** What a server currently routes to, by method and path: the latest registration wins. */
const mountedRoutes = new WeakMap<HttpServer, Map<string, { owner: string; handler: RpcHandler }>>();

/**
 * Mounts a route table on a server (the node's RPC, the gateway's). Each path is mounted once;
 * its handler looks up the current registration and answers 404 while `serves(owner)` is false
 * (a service plugin that is not loaded now), so an unloaded plugin's routes disappear and a
 * reloaded one's come back: a server cannot drop a route. A path already served by another
 * plugin that is still loaded is not taken over (logged). `handlerOf` lets the node wrap a
 * route's handler (proven reads, proven-reads.ts).
 */
export function mountRoutes(server: HttpServer, routes: RouteTable, serves: (owner: string) => boolean, log: Pick<Logger, 'error'>, handlerOf: (entry: RouteEntry) => RpcHandler = (e) => e.handler): void {
  let table = mountedRoutes.get(server);
  if (!table) mountedRoutes.set(server, (table = new Map()));
  const current = table;
  for (const r of routes.list()) {
    const key = `${r.method} ${r.path}`;
    const prev = current.get(key);
    if (prev && prev.owner !== r.owner && serves(prev.owner)) {
      log.error({ route: key, owner: prev.owner, refused: r.owner }, 'route already served by another plugin; not mounted');
      continue;
    }
    current.set(key, { owner: r.owner, handler: handlerOf(r) });
    if (prev) continue;
    server.route({
      method: r.method,
      path: r.path,
      handler: (req: RpcRequest) => {
        const cur = current.get(key)!;
        if (!serves(cur.owner)) throw notFound(`${r.method} ${r.path}: plugin "${cur.owner}" is not loaded`);
        return cur.handler(req);
      },
    });
  }
}
