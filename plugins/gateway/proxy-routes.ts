import { defineRoute, KERNEL_ROUTES, reply, streamReply, TEST_NETWORK_ONLY, type DeclaredRoute, type HttpMethod, type RouteTable, type RpcHandler, type RpcRequest } from '../../kernel/sdk.js';
import { answerNodeOnly } from './node-only.js';
import type { NodeAnswer } from './node-client.js';
import { CachedAnswer } from './response-cache.js';
import type { GatewayServices } from './services.js';
import { upstreamPath } from './upstream-path.js';
import { homeShard } from './plugin-reads.js';
import { VALIDATORS_PATH } from './validators.js';
import { CROSS_SHARD_PATHS, EVERY_SHARD_READS, firstFound, mergedQueue, shardQuery, submissionShard } from './cross-shard.js';
import { namedAddress } from './node-reads.js';
import { takesShardQuery, withShardQuery } from './shard-query.js';

/** The kernel's REST reads the gateway serves (part 1, every path not marked Node only), cached. */
export const PROXIED_GETS = [
  '/api/v1/blocks',
  '/api/v1/blocks/:height',
  '/api/v1/blocks/:height/transactions',
  '/api/v1/blocks/:height/events',
  // decisions.md §84: a header with its certificate and set, for clients that check proven reads.
  '/api/v1/blocks/:height/commit',
  '/api/v1/transactions',
  '/api/v1/transactions/:hash',
  '/api/v1/tx/:hash/proof',
  '/api/v1/accounts/:address',
  '/api/v1/accounts/:address/transactions',
  '/api/v1/gas/estimate',
  '/api/v1/governance/params',
  '/api/v1/checkpoints',
  // The genesis as the node loaded it (decisions.md §83): clients pin its hash.
  '/api/v1/genesis',
  // The node's plugins and the operations they declare (kernel/ops/describe.ts): what the client SDK signs with.
  '/api/v1/plugins',
  VALIDATORS_PATH,
  // decisions.md §64, §70: the chain's light-client commit headers and the signature test vector.
  '/api/v1/ibc/header/latest',
  '/api/v1/ibc/header/:height',
  '/api/v1/ibc/pq/test-vector',
] as const;

/**
 * The node URL of a proxied read: built from the route's pattern and the decoded, checked params,
 * not from the client's raw path, which undici would resolve (`..\`, `%2e%2e`) into another
 * route, node-only ones included.
 */
function upstreamRead(pattern: string, req: RpcRequest): string {
  const path = upstreamPath(pattern, req.params);
  const q = req.query.toString();
  return q ? `${path}?${q}` : path;
}

/** The node's status and body, unchanged; a cache entry's encoded once (response-cache.ts). */
export function passThrough(answer: NodeAnswer): unknown {
  if (answer.status === 204) return undefined;
  if (answer instanceof CachedAnswer) return answer.reply();
  return reply(answer.status, answer.body);
}

/**
 * The REST proxy. Reads go through the shared cache; writes are forwarded to the node of the
 * sender's shard. The node's status and body reach the client unchanged; when no node answers
 * the handler throws 503, when one answers something that is not JSON 502 (node-client.ts).
 *
 * A forwarded route is served under the declaration of whoever serves it on the node: the
 * kernel's (KERNEL_ROUTES) or the plugin's that lists it in its definition (plugin-reads.ts). So
 * the gateway refuses a bad path or query parameter with the node's status and words before
 * forwarding, its API reference describes the route as the node's does, and
 * CHAIN_VALIDATE_RESPONSES holds the forwarded answer to it. A body is left to the node, which
 * checks it in the order the spec fixes (a faucet call on mainnet is 403 whatever its body).
 */
export function registerProxyRoutes(routes: RouteTable, s: GatewayServices): void {
  // A cached answer comes back as it is (not in a promise) and is answered at once: a hit makes no microtask hop here.
  const counted = (route: string, handler: (req: RpcRequest) => NodeAnswer | Promise<NodeAnswer>) => {
    const failed = (e: unknown): never => {
      s.metrics.proxied.inc({ route, status: String((e as { status?: unknown }).status ?? 500) });
      throw e;
    };
    // Counted once, by the status actually sent: an answer passThrough refuses is counted as its 500 only.
    const answered = (answer: NodeAnswer): unknown => {
      let sent: unknown;
      try {
        sent = passThrough(answer);
      } catch (e: unknown) {
        return failed(e);
      }
      s.metrics.proxied.inc({ route, status: String(answer.status) });
      return sent;
    };
    return (req: RpcRequest): unknown => {
      let answer: NodeAnswer | Promise<NodeAnswer>;
      try {
        answer = handler(req);
      } catch (e: unknown) {
        return failed(e);
      }
      return answer instanceof Promise ? answer.then(answered, failed) : answered(answer);
    };
  };
  // Tagged in the API reference with whoever serves the route on a node (decisions.md §87).
  const served = (method: HttpMethod, path: string, handler: RpcHandler, declared: DeclaredRoute | undefined, tag: string): void => {
    if (declared === undefined) routes.add(method, path, handler, { tag });
    else routes.serve(method === 'GET' ? declared : bodyLeftToNode(declared), (req) => handler(req.raw), { tag });
  };

  const kernel = new Map<string, DeclaredRoute>(Object.values(KERNEL_ROUTES).map((r) => [`${r.method} ${r.path}`, r as unknown as DeclaredRoute]));
  const asServed = (path: string, declared: DeclaredRoute | undefined): DeclaredRoute | undefined => (declared !== undefined && takesShardQuery(path) ? withShardQuery(declared) : declared);
  for (const path of PROXIED_GETS) served('GET', path, counted(path, (req) => shardedReadNow(s, path, req, undefined)), asServed(path, kernel.get(`GET ${path}`)), 'kernel');

  // The faucet goes through the gateway's cooldown and FAUCET_AMOUNT cap (submissions.ts).
  const faucet = counted(FAUCET_PATH, (req) => s.submissions.faucet(req.body, req.ip));
  const forward = (method: HttpMethod, path: string, shardParam: string | undefined, declared: DeclaredRoute | undefined): RpcHandler => {
    if (method === 'POST' && path === FAUCET_PATH) return faucet;
    const home = () => homeShard(shardParam, s.params, s.router);
    if (method === 'POST' || method === 'PUT') return counted(path, (req) => s.client.request(s.router.nodesOfShard(writeShard(s, path, req, home())), method, upstreamPath(path, req.params), req.body, req.bodyText));
    if (method !== 'GET') throw new Error(`gateway: no way to forward ${method} ${path}`);
    if (declared?.produces !== undefined) return streamed(s, path, home);
    return counted(path, (req) => shardedReadNow(s, path, req, home()));
  };
  // The routes state plugins list in their definitions, to the shard of a plugin that keeps its records on one.
  for (const { plugin, route, shardParam } of s.pluginRoutes) {
    if (route.nodeOnly === true) {
      if (!routes.has(route.method, route.path)) answerNodeOnly(routes, route.method, route.path, 'send it to a node\'s RPC');
      continue;
    }
    const routedByQuery = route.method === 'GET' && shardParam === undefined && route.produces === undefined;
    served(route.method, route.path, forward(route.method, route.path, shardParam, route), routedByQuery ? asServed(route.path, route) : route, plugin);
  }
  if (!routes.has('POST', FAUCET_PATH)) routes.add('POST', FAUCET_PATH, faucet, { tag: 'faucet' });

  const submit = counted('/api/v1/transactions', (req) => s.submissions.transaction(req.body, req.bodyText));
  routes.serve(KERNEL_ROUTES.submit, (req) => submit(req.raw), { tag: 'kernel' });

  // The contract audit and the other AI routes: ai-routes.ts.
}

/**
 * decisions.md §73, where a read goes: to the plugin's home shard (`shardParam`); a transaction,
 * lock or receipt to every shard, the first 200 answering; the cross-shard queue merged over the
 * shards; a read naming an address to the shard that owns it; any other to `?shard=` (default 0).
 */
export async function shardedRead(s: GatewayServices, path: string, req: RpcRequest, home: number | undefined): Promise<NodeAnswer> {
  return shardedReadNow(s, path, req, home);
}

/** shardedRead, a cached answer handed back as it is (NodeReads.read); a refused request throws rather than rejects. */
function shardedReadNow(s: GatewayServices, path: string, req: RpcRequest, home: number | undefined): NodeAnswer | Promise<NodeAnswer> {
  const target = upstreamRead(path, req);
  if (home !== undefined) return s.reads.readOnShard(home, target);
  if (s.router.shardCount > 1 && EVERY_SHARD_READS.has(path)) return firstFound(s.reads, s.router, target);
  if (path === CROSS_SHARD_PATHS.queue) return mergedQueue(s.reads, s.router, req.query);
  const shard = shardQuery(req.query, s.router.shardCount);
  // One shard: the key the socket methods and the poller read under, so all serve the same bytes.
  if (s.router.shardCount === 1 || namedAddress(target) !== undefined) return s.reads.read(target);
  return s.reads.readOnShard(shard, target);
}

/**
 * decisions.md §73, where a forwarded POST or PUT goes: a relay submission by the shard its body
 * names (a commit to `lock.dest_shard`, an ack to `receipt.source_shard`); else the plugin's home
 * shard; else the shard that owns the record its path names (a contract's dry run goes to the
 * contract's shard); else shard 0.
 */
export function writeShard(s: GatewayServices, path: string, req: Pick<RpcRequest, 'params' | 'body'>, home: number | undefined): number {
  const named = submissionShard(path, req.body, s.router.shardCount);
  if (named !== undefined) return named;
  if (home !== undefined) return home;
  const owner = namedAddress(upstreamPath(path, req.params));
  return owner === undefined ? 0 : s.router.shardOf(owner);
}

/**
 * A GET whose answer is not JSON (the AI export's JSON Lines, plugins/ai-records): streamed
 * through uncached, with the client's Authorization header (the export's token).
 */
function streamed(s: GatewayServices, path: string, home: () => number | undefined): RpcHandler {
  return async (req) => {
    const auth = req.headers['authorization'];
    const answer = await s.client.stream(s.router.nodesOfShard(home() ?? 0), upstreamRead(path, req), typeof auth === 'string' ? { authorization: auth } : {});
    s.metrics.proxied.inc({ route: path, status: String(answer.status) });
    return 'chunks' in answer ? streamReply(answer.chunks, { contentType: answer.contentType }) : passThrough(answer);
  };
}

/** A declaration whose body the node checks, not the gateway (registerProxyRoutes); documented all the same. */
function bodyLeftToNode(route: DeclaredRoute): DeclaredRoute {
  return route.body === undefined || route.bodyCheck === 'handler' ? route : (defineRoute({ ...route, bodyCheck: 'handler' }) as unknown as DeclaredRoute);
}

const FAUCET_PATH = TEST_NETWORK_ONLY.faucet.path;
