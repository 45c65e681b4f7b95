import { actorFieldOf, defaultMember, isAddress, groupRouteOperations, notFound, operationRouteGroups, selectOperation, signsForOf, valueFieldOf, type Hooks, type OperationRoute, type OperationSpec, type PluginDefinition, type RouteTable, type RpcRequest } from '../../kernel/sdk.js';
import { answerNodeOnly } from './node-only.js';
import { resultOf, type NodeAnswer } from './node-client.js';
import { passThrough } from './proxy-routes.js';
import type { GatewayServices } from './services.js';
import { upstreamPath } from './upstream-path.js';
import { homeShard } from './plugin-reads.js';
import { submissionShard } from './cross-shard.js';

/** What the gateway needs of an operation to forward it and announce the forward. */
export interface ForwardedOperation {
  readonly name: string;
  /** The plugin that declares it: its routes' tag in the API reference, as on a node (decisions.md §87). */
  readonly plugin: string;
  /** The routes the gateway serves: the operation's routes without the `nodeOnly` ones. */
  readonly routes: readonly OperationRoute[];
  /** Its routes part 1 marks Node only: answered 404 here, never forwarded. */
  readonly nodeOnlyRoutes: readonly OperationRoute[];
  readonly socketMethod: string | undefined;
  /** The body or path field naming who acts, whose shard serves the operation. */
  readonly actorField: string | undefined;
  /** Path parameters a ch-tx-v3/v4 signature must also carry in the body (OperationSpec.pathFields). */
  readonly pathFields: readonly string[];
  /** The body field signed as `<value>` (decisions.md §6), null for none. */
  readonly valueField: string | null;
  /** The plugin's `shardParam` (decisions.md §54): its operations go to the shard it names, not the actor's. */
  readonly shardParam: string | undefined;
  /** The gas the build declares: the `tx` event's gas when the node's estimate does not list the operation. */
  readonly gas: number;
  /** Its declaration: the body schema and signing facts of the API reference (decisions.md §87). */
  readonly spec: OperationSpec;
  /** Its Signs-for address, the `to` of the transaction it travels as (decisions.md §16); undefined for a body it cannot be read from. */
  signsFor(body: Record<string, unknown>): string | undefined;
}

function forwardedOperation(plugin: string, op: OperationSpec, shardParam: string | undefined): ForwardedOperation {
  return {
    name: op.name,
    plugin,
    routes: op.routes.filter((r) => r.nodeOnly !== true),
    nodeOnlyRoutes: op.routes.filter((r) => r.nodeOnly === true),
    socketMethod: op.socketMethod,
    actorField: actorFieldOf(op),
    pathFields: op.pathFields ?? [],
    valueField: valueFieldOf(op),
    gas: op.gas,
    shardParam,
    spec: op,
    signsFor(body) {
      const to = signsForOf(op, body);
      return isAddress(to) ? to : undefined;
    },
  };
}

/**
 * The operations of every state plugin in the build's catalogue. The gateway boots no state
 * plugin, but it runs the same build as the nodes, so the catalogue tells it which signed
 * operations exist and where part 1 puts them.
 */
export function forwardedOperations(catalogue: ReadonlyMap<string, PluginDefinition<unknown, unknown>>): ForwardedOperation[] {
  const out: ForwardedOperation[] = [];
  for (const def of catalogue.values()) for (const op of def.operations ?? []) out.push(forwardedOperation(def.name, op, def.shardParam));
  return out.sort((a, b) => (a.name < b.name ? -1 : 1));
}

/** The actor: the operation's actor field, from the path or the body. */
function actorOf(op: ForwardedOperation, params: Readonly<Record<string, string>>, body: Record<string, unknown>): string | undefined {
  const actor = op.actorField === undefined ? undefined : (params[op.actorField] ?? body[op.actorField]);
  return isAddress(actor) ? actor : undefined;
}

/**
 * Forwards one submission to a node of the actor's shard and, when the node admits it, announces
 * it on the socket (`tx`, part 2: raised for every transaction the gateway forwards).
 */
async function forward(s: GatewayServices, op: ForwardedOperation, route: OperationRoute, params: Readonly<Record<string, string>>, body: unknown, text?: string): Promise<NodeAnswer> {
  const b = body !== null && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {};
  const actor = actorOf(op, params, b);
  const home = homeShard(op.shardParam, s.params, s.router);
  // decisions.md §73: a relay submission (unsigned, no actor) goes to the shard its body names.
  const named = submissionShard(route.path, body, s.router.shardCount);
  const nodes = named !== undefined ? s.router.nodesOfShard(named) : home !== undefined ? s.router.nodesOfShard(home) : actor !== undefined ? s.router.nodesFor(actor) : s.router.nodesOfShard(0);
  const answer = await s.client.request(nodes, route.method, upstreamPath(route.path, params), body, text);
  await s.submissions.announceOperation(op, actor, { ...b, ...params }, answer);
  return answer;
}

/**
 * The operation `name` submitted with `body` (its REST body, the signature inside) to a node, as
 * its first route (a Node-only one too): for a socket method that takes more than one form.
 */
export function forwardOperationNamed(s: GatewayServices, name: string, body: Record<string, unknown>): Promise<NodeAnswer> {
  const op = s.operations.find((o) => o.name === name);
  const route = op?.routes[0] ?? op?.nodeOnlyRoutes[0];
  if (op === undefined || route === undefined) throw notFound(`operation ${name} is not served by this gateway's network`);
  return forward(s, op, route, {}, body);
}

/**
 * Each operation's REST routes forwarded to a node, the path rebuilt from the route's pattern with
 * checked params, as every proxied route is. A node-only route answers 404 here, also where
 * another method's route has the same shape (POST /api/v1/contracts/deploy beside GET
 * /api/v1/contracts/:address would otherwise be 405): the path does not exist at the gateway.
 */
export function registerOperationRoutes(routes: RouteTable, s: GatewayServices): void {
  // A route several operations share (POST /api/v1/nodes/register: a .node, .vault or .app) is
  // served once, and each body forwarded as the operation the node will pick (route-dispatch).
  for (const group of operationRouteGroups(s.operations, (op) => ({ name: op.name, routes: [...op.routes, ...op.nodeOnlyRoutes] }))) {
    if (group.members.every((m) => m.route.nodeOnly === true)) {
      answerNodeOnly(routes, group.method, group.path, 'send it to a node\'s RPC; a deploy also goes through the gateway as a transaction to chain:system.deploy (POST /api/v1/transactions)');
      continue;
    }
    routes.add(group.method, group.path, async (req: RpcRequest) => {
      const joined = req.body !== null && typeof req.body === 'object' && !Array.isArray(req.body) ? { ...(req.body as Record<string, unknown>), ...req.params } : req.body;
      const op = selectOperation(group, joined) ?? group.members[0]!.op;
      const route = group.members.find((m) => m.op === op)!.route;
      const answer = await forward(s, op, route, req.params, req.body, req.bodyText);
      s.metrics.proxied.inc({ route: group.path, status: String(answer.status) });
      return passThrough(answer);
    }, { ...groupRouteOperations(group), tag: defaultMember(group).op.plugin });
  }
}

/**
 * Each operation's socket method where part 1 lists one: the method's params are the body, and
 * the first route's `:params` are taken from them by name (a Node-only route's too: the socket
 * method reaches a node, the REST path at the gateway does not).
 */
export function registerOperationMethods(hooks: Hooks, plugin: string, s: GatewayServices): void {
  for (const op of s.operations) {
    // decisions.md §45 lists socket methods of Node-only routes too (register_human): the gateway forwards them to a node.
    const first = op.routes[0] ?? op.nodeOnlyRoutes[0];
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
      return resultOf(await forward(s, op, first, params, body));
    });
  }
}
