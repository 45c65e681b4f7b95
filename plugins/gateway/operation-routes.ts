import { ACTOR_FIELDS, isAddress, type Hooks, type OperationSpec, type PluginDefinition, type RouteTable, type RpcRequest } from '../../kernel/sdk.js';
import { resultOf, type NodeAnswer } from './node-client.js';
import { passThrough } from './proxy-routes.js';
import type { GatewayServices } from './services.js';
import { upstreamPath } from './upstream-path.js';

/** What the gateway needs of an operation to forward it: its routes and its socket method. */
export interface ForwardedOperation {
  readonly name: string;
  readonly routes: OperationSpec['routes'];
  readonly socketMethod: string | undefined;
  /** The body or path field naming who acts, whose shard serves the operation. */
  readonly actorField: string | undefined;
  /** Path parameters a ch-tx-v3/v4 signature must also carry in the body (OperationSpec.pathFields). */
  readonly pathFields: readonly string[];
}

/**
 * The operations of every state plugin in the build's catalogue. The gateway boots no state
 * plugin, but it runs the same build as the nodes, so the catalogue tells it which signed
 * operations exist and where part 1 puts them.
 */
export function forwardedOperations(catalogue: ReadonlyMap<string, PluginDefinition<unknown, unknown>>): ForwardedOperation[] {
  const out: ForwardedOperation[] = [];
  for (const def of catalogue.values()) {
    for (const op of def.operations ?? []) {
      const fields = Object.keys(op.schema.properties);
      out.push({ name: op.name, routes: op.routes, socketMethod: op.socketMethod, actorField: op.actor ?? ACTOR_FIELDS.find((f) => fields.includes(f)), pathFields: op.pathFields ?? [] });
    }
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : 1));
}

/** The nodes of the actor's shard: the operation's actor field, from the path or the body. */
function nodesOf(s: GatewayServices, op: ForwardedOperation, params: Readonly<Record<string, string>>, body: unknown): readonly string[] {
  const b = body !== null && typeof body === 'object' ? (body as Record<string, unknown>) : {};
  const actor = op.actorField === undefined ? undefined : (params[op.actorField] ?? b[op.actorField]);
  return isAddress(actor) ? s.router.nodesFor(actor) : s.router.nodesOfShard(0);
}

function forward(s: GatewayServices, op: ForwardedOperation, method: 'POST' | 'PUT', pattern: string, params: Readonly<Record<string, string>>, body: unknown, text?: string): Promise<NodeAnswer> {
  return s.client.request(nodesOf(s, op, params, body), method, upstreamPath(pattern, params), body, text);
}

/** Each operation's REST routes forwarded to a node, the path rebuilt from the route's pattern with checked params, as every proxied route is. */
export function registerOperationRoutes(routes: RouteTable, s: GatewayServices): void {
  for (const op of s.operations) {
    for (const r of op.routes) {
      routes.add(r.method, r.path, async (req: RpcRequest) => {
        const answer = await forward(s, op, r.method, r.path, req.params, req.body, req.bodyText);
        s.metrics.proxied.inc({ route: r.path, status: String(answer.status) });
        return passThrough(answer);
      });
    }
  }
}

/**
 * Each operation's socket method where part 1 lists one: the method's params are the body, and
 * the first route's `:params` are taken from them by name.
 */
export function registerOperationMethods(hooks: Hooks, plugin: string, s: GatewayServices): void {
  for (const op of s.operations) {
    const first = op.routes[0];
    if (op.socketMethod === undefined || first === undefined) continue;
    const names = [...first.path.matchAll(/:([a-z_]+)/g)].map((m) => m[1]!);
    hooks.rpcMethods.for(op.socketMethod).tapPromise(plugin, async (p) => {
      const params: Record<string, string> = {};
      const body: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(p)) {
        if (names.includes(k)) params[k] = String(v);
        // A path field stays in the body too: the client's ch-tx-v3/v4 signature covers it there.
        if (!names.includes(k) || op.pathFields.includes(k)) body[k] = v;
      }
      return resultOf(await forward(s, op, first.method, first.path, params, body));
    });
  }
}
