import { KERNEL_ROUTES, reply, streamReply, type DeclaredRoute, type RouteTable, type RpcRequest } from '../../kernel/sdk.js';
import type { NodeAnswer } from './node-client.js';
import type { GatewayServices } from './services.js';
import { upstreamPath } from './upstream-path.js';
import { homeShard } from './plugin-reads.js';
import { VALIDATORS_PATH } from './validators.js';
import { CONTRACT_GETS } from './contract-routes.js';

/** Node REST reads the gateway serves (part 1, every path not marked Node only), cached. */
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
  '/api/v1/state/root',
  '/api/v1/governance/params',
  '/api/v1/governance/proposals',
  '/api/v1/governance/:id',
  '/api/v1/checkpoints',
  // The genesis as the node loaded it (decisions.md §83): clients pin its hash.
  '/api/v1/genesis',
  // The node's plugins and the operations they declare (kernel/ops/describe.ts): what the client SDK signs with.
  '/api/v1/plugins',
  VALIDATORS_PATH,
  // Staking's reads (plugins/staking; GET /api/v1/slashing/history is Node only).
  '/api/v1/staking/info/:address',
  '/api/v1/staking/validators',
  '/api/v1/staking/delegations/:validator',
  '/api/v1/staking/my-delegations/:address',
  '/api/v1/staking/rewards/:address',
  '/api/v1/nodes',
  '/api/v1/nodes/:address',
  // Reads of the state plugins that decide who may sign (plugins/session, sponsor, identity).
  '/api/v1/session/list/:account',
  '/api/v1/sponsor/:address',
  '/api/v1/sponsor/:address/beneficiaries',
  '/api/v1/identity/:addr',
  '/api/v1/identity/recovery/:addr',
  '/api/v1/identity/guardian-of/:addr',
  ...CONTRACT_GETS,
  // The sentinel's holds and trust lists (plugins/sentinel).
  '/api/v1/held/:address',
  '/api/v1/trust/:owner',
  // The AI decision log and model registry (plugins/ai-records).
  '/api/v1/oracle/log',
  '/api/v1/oracle/log/:id',
  '/api/v1/models/registry',
  '/api/v1/models/registry/:id',
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

/** The node's status and body, unchanged. */
export function passThrough(answer: NodeAnswer): unknown {
  if (answer.status === 204) return undefined;
  return reply(answer.status, answer.body);
}

/**
 * The REST proxy. Reads go through the shared cache; writes are forwarded to the node of the
 * sender's shard. The node's status and body reach the client unchanged; when no node answers
 * the handler throws 503, when one answers something that is not JSON 502 (node-client.ts).
 */
export function registerProxyRoutes(routes: RouteTable, s: GatewayServices): void {
  const counted = (route: string, handler: (req: RpcRequest) => Promise<NodeAnswer>) => async (req: RpcRequest) => {
    try {
      const answer = await handler(req);
      s.metrics.proxied.inc({ route, status: String(answer.status) });
      return passThrough(answer);
    } catch (e: unknown) {
      s.metrics.proxied.inc({ route, status: String((e as { status?: unknown }).status ?? 500) });
      throw e;
    }
  };

  // A read the kernel declares is served under the kernel's declaration (the same parameters are
  // refused here as there, and CHAIN_VALIDATE_RESPONSES checks the forwarded answer); the plugins'
  // reads are listed undeclared until the gateway can read their declarations.
  const declared = new Map<string, DeclaredRoute>(Object.values(KERNEL_ROUTES).map((r) => [`${r.method} ${r.path}`, r as unknown as DeclaredRoute]));
  for (const path of PROXIED_GETS) {
    const forward = counted(path, (req) => s.reads.get(upstreamRead(path, req)));
    const route = declared.get(`GET ${path}`);
    if (route) routes.serve(route, (req) => forward(req.raw));
    else routes.get(path, forward);
  }
  // The reads state plugins list in their definitions, to the shard of a plugin that keeps its records on one.
  for (const r of s.pluginReads) {
    routes.get(
      r.path,
      counted(r.path, (req) => {
        const home = homeShard(r.shardParam, s.params, s.router);
        return home === undefined ? s.reads.get(upstreamRead(r.path, req)) : s.reads.getOnShard(home, upstreamRead(r.path, req));
      }),
    );
  }

  // The AI export (plugins/ai-records): streamed through uncached, with the client's token.
  for (const kind of ['blocks', 'txs', 'validators', 'oracle']) {
    const path = `/api/v1/ai/export/${kind}`;
    routes.get(path, async (req) => {
      const auth = req.headers['authorization'];
      const answer = await s.client.stream(s.router.nodesOfShard(0), upstreamRead(path, req), typeof auth === 'string' ? { authorization: auth } : {});
      s.metrics.proxied.inc({ route: path, status: String(answer.status) });
      return 'chunks' in answer ? streamReply(answer.chunks, { contentType: answer.contentType }) : passThrough(answer);
    });
  }

  const submit = counted('/api/v1/transactions', (req) => s.submissions.transaction(req.body, req.bodyText));
  routes.serve(KERNEL_ROUTES.submit, (req) => submit(req.raw));
  routes.post('/api/v1/faucet', counted('/api/v1/faucet', (req) => s.submissions.faucet(req.body, req.ip)));
  // Part 1 "AI and models": served by node and gateway. Unsigned and stateless (part 2, Who needs
  // what 1): the node's model scores the shape, the gateway forwards it uncached.
  routes.post('/api/v1/sentinel/score', counted('/api/v1/sentinel/score', (req) => s.client.request(s.router.nodesOfShard(0), 'POST', '/api/v1/sentinel/score', req.body, req.bodyText)));
  routes.post('/api/v1/wallet/derive-address', counted('/api/v1/wallet/derive-address', (req) => s.client.request(s.router.nodesOfShard(0), 'POST', '/api/v1/wallet/derive-address', req.body, req.bodyText)));
  // The contract audit and the other AI routes: ai-routes.ts.
}
