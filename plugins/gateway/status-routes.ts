import { reply, type RouteTable } from '../../kernel/sdk.js';
import { isObject } from './node-client.js';
import { passThrough } from './proxy-routes.js';
import type { GatewayServices } from './services.js';
import { networkStatus } from './status.js';
import { SHARDS_PATH, shardsOverview } from './shards.js';

/** The gateway's own endpoints: /health, /metrics, latest block, network summary. */
export function registerStatusRoutes(routes: RouteTable, s: GatewayServices, health: () => Promise<{ healthy: boolean; body: Record<string, unknown> }>): void {
  routes.get('/health', async () => {
    const h = await health();
    // 503 while no node answers, so a load balancer takes this gateway out of rotation.
    return reply(h.healthy ? 200 : 503, h.body);
  });

  routes.get('/metrics', async () => reply(200, await s.metrics.registry.metrics(), { contentType: s.metrics.registry.contentType }));

  routes.get('/api/v1/blocks/latest', async () => {
    const list = await s.reads.get('/api/v1/blocks?limit=1');
    if (list.status !== 200 || !isObject(list.body)) return passThrough(list);
    const blocks = list.body.blocks;
    const block = Array.isArray(blocks) && blocks.length > 0 ? blocks[0] : null;
    if (block === null) return reply(404, { error: 'no block has been committed yet' });
    return { block };
  });

  routes.get('/api/v1/network/status', async () => networkStatus(s.config, await s.poller.current(), s.router));

  routes.get(SHARDS_PATH, async () => passThrough(await shardsOverview(s.reads, s.router)));
}
