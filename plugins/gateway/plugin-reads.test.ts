import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PLUGIN_CATALOGUE } from '../index.js';
import { RouteTable, type RpcRequest } from '../../kernel/sdk.js';
import { forwardedOperations, registerOperationRoutes } from './operation-routes.js';
import { registerProxyRoutes } from './proxy-routes.js';
import type { GatewayServices } from './services.js';
import { listedPluginRoutes, homeShard } from './plugin-reads.js';

const catalogue = PLUGIN_CATALOGUE as Parameters<typeof listedPluginRoutes>[0];

test('the routes a state plugin lists are forwarded under its declaration, with the shard parameter of a plugin that keeps its records on one shard', () => {
  const routes = listedPluginRoutes(catalogue);
  const pool = routes.find((r) => r.route.path === '/api/v1/dex/pools/:id');
  assert.equal(pool?.plugin, 'assets');
  assert.equal(pool?.shardParam, 'dex_shard');
  assert.ok(pool?.route.params !== undefined && pool.route.responses[200] !== undefined, 'the plugin\'s own declaration, params and answer');
  assert.ok(routes.some((r) => r.route.path === '/api/v1/assets/check-symbol'));
  assert.ok(routes.some((r) => r.route.method === 'POST' && r.route.path === '/api/v1/sentinel/score'), 'an unsigned POST served by both is forwarded too');
  assert.ok(routes.every((r) => r.plugin !== 'faucet' || r.shardParam === undefined));
  assert.equal(routes.find((r) => r.route.path === '/api/v1/slashing/history')?.route.nodeOnly, true, 'a route part 1 marks Node only is listed as such (the gateway answers it 404)');
  const swap = forwardedOperations(catalogue).find((o) => o.name === 'swap');
  assert.equal(swap?.shardParam, 'dex_shard', 'an asset operation goes to dex_shard, not to its actor\'s shard');
});

test('the home shard is the parameter as last read, 0 before a read, and shard 0 when the gateway knows no node of it', () => {
  const params = (v?: bigint) => ({ value: (k: string) => (k === 'dex_shard' ? v : undefined) });
  assert.equal(homeShard(undefined, params(3n), { shardCount: 4 }), undefined, 'a plugin without shardParam: every shard serves it');
  assert.equal(homeShard('dex_shard', params(), { shardCount: 4 }), 0);
  assert.equal(homeShard('dex_shard', params(3n), { shardCount: 4 }), 3);
  assert.equal(homeShard('dex_shard', params(5n), { shardCount: 4 }), 0);
});

test('the seam for sharding (decisions.md §54): with dex_shard = 2, an asset operation and an exchange read go to shard 2, not to the actor\'s shard; an operation of a plugin without shardParam still follows its actor', async () => {
  const sent: Array<{ nodes: readonly string[]; path: string }> = [];
  const readOnShard: Array<{ shard: number; path: string }> = [];
  const s = {
    operations: forwardedOperations(catalogue),
    pluginRoutes: listedPluginRoutes(catalogue),
    params: { value: (k: string) => (k === 'dex_shard' ? 2n : undefined) },
    router: { shardCount: 4, nodesOfShard: (n: number) => [`shard-${n}`], nodesFor: () => ['actor-shard'] },
    client: { request: async (nodes: readonly string[], _m: string, path: string) => (sent.push({ nodes, path }), { status: 200, body: { success: true } }) },
    reads: { read: async () => ({ status: 200, body: {} }), readOnShard: async (shard: number, path: string) => (readOnShard.push({ shard, path }), { status: 200, body: {} }) },
    submissions: { announceOperation: async () => undefined },
    metrics: { proxied: { inc: () => undefined } },
  } as unknown as GatewayServices;
  const routes = new RouteTable();
  registerOperationRoutes(routes, s);
  registerProxyRoutes(routes, s);
  const call = (method: 'GET' | 'POST', path: string, params: Record<string, string>, body: unknown, query = '') =>
    routes.list().find((e) => e.method === method && e.path === path)!.handler({ method, path, params, query: new URLSearchParams(query), headers: {}, body, ip: '127.0.0.1' } satisfies RpcRequest);
  const from = 'chain:aaaaaaaaaaaaaaaaaaaa.human';
  await call('POST', '/api/v1/dex/swap', {}, { from, pool_id: `0x${'ab'.repeat(32)}`, asset_in: 'ucoin', amount_in: 1, min_out: 0, deadline_height: 9 });
  await call('POST', '/api/v1/assets/issue', {}, { from, symbol: 'GOLD' });
  assert.deepEqual(sent, [{ nodes: ['shard-2'], path: '/api/v1/dex/swap' }, { nodes: ['shard-2'], path: '/api/v1/assets/issue' }]);
  await call('GET', '/api/v1/dex/pools/:id', { id: `0x${'ab'.repeat(32)}` }, undefined);
  assert.deepEqual(readOnShard.map((r) => r.shard), [2], 'an exchange read is asked of the shard holding the records');
  // Staking keeps no shardParam: its operation goes to its actor's shard.
  sent.length = 0;
  const stake = forwardedOperations(catalogue).find((o) => o.name === 'stake')!;
  assert.equal(stake.shardParam, undefined);
  await call('POST', stake.routes[0]!.path, {}, { [stake.actorField!]: from, amount: 1 });
  assert.deepEqual(sent.map((r) => r.nodes), [['actor-shard']]);
});
