import { reply } from '../../kernel/rpc/index.js';
import type { RouteTable, RpcRequest } from '../../kernel/node/route-table.js';
import type { NodeAnswer } from './node-client.js';
import { aiRateLimited } from './rate-limits.js';
import type { GatewayServices } from './services.js';
import { VALIDATORS_PATH } from './validators.js';

/** Node REST reads the gateway serves (part 1, every path not marked Node only), cached. */
export const PROXIED_GETS = [
  '/api/v1/blocks',
  '/api/v1/blocks/:height',
  '/api/v1/blocks/:height/transactions',
  '/api/v1/transactions',
  '/api/v1/transactions/:hash',
  '/api/v1/tx/:hash/proof',
  '/api/v1/accounts/:address',
  '/api/v1/accounts/:address/transactions',
  '/api/v1/gas/estimate',
  '/api/v1/state/root',
  '/api/v1/governance/params',
  '/api/v1/checkpoints',
  VALIDATORS_PATH,
] as const;

function pathAndQuery(req: RpcRequest): string {
  const q = req.query.toString();
  return q ? `${req.path}?${q}` : req.path;
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

  for (const path of PROXIED_GETS) routes.get(path, counted(path, (req) => s.reads.get(pathAndQuery(req))));

  routes.post('/api/v1/transactions', counted('/api/v1/transactions', (req) => s.submissions.transaction(req.body, req.bodyText)));
  routes.post('/api/v1/faucet', counted('/api/v1/faucet', (req) => s.submissions.faucet(req.body, req.ip, req.bodyText)));
  routes.post('/api/v1/wallet/derive-address', counted('/api/v1/wallet/derive-address', (req) => s.client.request(s.router.nodesOfShard(0), 'POST', '/api/v1/wallet/derive-address', req.body, req.bodyText)));

  // Gateway-only contract audit: bytecode in, the node's analysis out (part 1, Contracts). An AI
  // endpoint, so it carries the per-minute AI limit on top of the global one.
  routes.post(
    '/api/v1/contracts/audit',
    aiRateLimited(s.config.aiRlMaxRpm, counted('/api/v1/contracts/audit', (req) => s.client.request([s.config.nodeRpcUrl], 'POST', '/api/v1/contracts/analyze', req.body, req.bodyText))),
  );
}
