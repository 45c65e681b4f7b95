import { encodedReply, KERNEL_ROUTES, reply, type RouteTable } from '../../kernel/sdk.js';
import { isObject } from './node-client.js';
import { passThrough } from './proxy-routes.js';
import type { GatewayServices } from './services.js';
import { NetworkSummary } from './network-summary.js';
import { shardsOverview } from './shards.js';
import { assembledStateRoot, shardQuery } from './cross-shard.js';
import type { HealthAnswer } from './status.js';
import { GATEWAY_ROUTES } from './declarations.js';

/**
 * The gateway's own endpoints: /health, /metrics, latest block, network summary. Those every
 * process serves (health, metrics, shards) keep the node's tag, `kernel`, in the API reference
 * (decisions.md §87), so a client groups them alike in both documents.
 */
const KERNEL_TAG = { tag: 'kernel' } as const;

export function registerStatusRoutes(routes: RouteTable, s: GatewayServices, health: (shard?: number) => HealthAnswer | Promise<HealthAnswer>, aiFigures: () => Promise<Record<string, unknown>>, wasmVersion: string | null): void {
  // One record per poll (status.ts), so its bytes are encoded once per poll, not per request.
  const healthReplies = new WeakMap<HealthAnswer, unknown>();
  const healthReply = (h: HealthAnswer): unknown => {
    let answer = healthReplies.get(h);
    // 503 while no node answers, so a load balancer takes this gateway out of rotation.
    if (answer === undefined) healthReplies.set(h, (answer = encodedReply(h.healthy ? 200 : 503, h.body)));
    return answer;
  };
  routes.serve(GATEWAY_ROUTES.health, (req) => {
    // `?shard=` given empty is refused too: the declaration's parse drops empty values.
    const h = health(req.raw.query.has('shard') ? shardQuery(req.raw.query, s.router.shardCount) : undefined);
    return h instanceof Promise ? h.then(healthReply) : healthReply(h);
  }, KERNEL_TAG);

  routes.serve(GATEWAY_ROUTES.metrics, async () => reply(200, await s.metrics.registry.metrics(), { contentType: s.metrics.registry.contentType }), KERNEL_TAG);

  routes.serve(GATEWAY_ROUTES.latestBlock, async () => {
    const list = await s.reads.get('/api/v1/blocks?limit=1');
    if (list.status !== 200 || !isObject(list.body)) return passThrough(list);
    const blocks = list.body.blocks;
    const block = Array.isArray(blocks) && blocks.length > 0 ? blocks[0] : null;
    if (block === null) return reply(404, { error: 'no block has been committed yet' });
    return { block };
  });

  const summary = new NetworkSummary(s.config, s.reads, s.router, wasmVersion);
  routes.serve(GATEWAY_ROUTES.networkStatus, () => summary.current());

  routes.serve(GATEWAY_ROUTES.shards, async () => passThrough(await shardsOverview(s.reads, s.router)), KERNEL_TAG);
  routes.serve(KERNEL_ROUTES.stateRoot, () => assembledStateRoot(s.reads, s.router), KERNEL_TAG);

  // Status of AI models (part 1, gateway only): the registry's entries, the sentinel's switches
  // and the decision log's size, as the nodes hold them; the gateway's own AI figures (decisions.md §52).
  routes.serve(GATEWAY_ROUTES.aiStatus, async () => {
    const [registry, log, params, figures] = await Promise.all([s.reads.get('/api/v1/models/registry?limit=100'), s.reads.get('/api/v1/oracle/log?limit=1'), s.reads.get('/api/v1/governance/params'), aiFigures()]);
    const models = registry.status === 200 && isObject(registry.body) && Array.isArray(registry.body.models) ? (registry.body.models as unknown[]).filter(isObject) : [];
    const paramMap = params.status === 200 && isObject(params.body) && isObject(params.body.params) ? params.body.params : {};
    const param = (key: string): unknown => {
      const p = paramMap[key];
      return isObject(p) ? p.value : null;
    };
    return {
      models: models.map((m) => ({ id: m.id, name: m.name, version: m.version, weights_hash: m.weights_hash, status: m.status })),
      active: models.filter((m) => m.status === 'active').length,
      pending: models.filter((m) => m.status === 'pending').length,
      sentinel: { enabled: param('sentinel_enabled'), policy_enabled: param('sentinel_policy_enabled'), reject_threshold: param('sentinel_reject_threshold') },
      decisions: log.status === 200 && isObject(log.body) ? (log.body.total ?? 0) : null,
      export_token_required: process.env.AI_EXPORT_TOKEN !== undefined && process.env.AI_EXPORT_TOKEN !== '',
      ...figures,
    };
  });
}
