import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from '@sinclair/typebox';
import { defineRoute, RouteTable, type DeclaredRoute, type RpcRequest } from '../../kernel/sdk.js';
import { PLUGIN_CATALOGUE } from '../index.js';
import { listedPluginRoutes, type ListedPluginRoute } from './plugin-reads.js';
import { registerProxyRoutes } from './proxy-routes.js';
import type { GatewayServices } from './services.js';

const catalogue = PLUGIN_CATALOGUE as Parameters<typeof listedPluginRoutes>[0];

/** Registration reads only the plugin routes; everything else is reached when a request is answered. */
function table(pluginRoutes: readonly ListedPluginRoute[], forwarded: string[] = []): RouteTable {
  const s = {
    pluginRoutes,
    reads: { read: async (p: string) => (forwarded.push(p), { status: 200, body: {} }) },
    metrics: { proxied: { inc: () => undefined } },
    params: { value: () => undefined },
    router: { shardCount: 1 },
  } as unknown as GatewayServices;
  const routes = new RouteTable();
  registerProxyRoutes(routes, s);
  return routes;
}

const entry = (routes: RouteTable, method: string, path: string) => routes.list().find((e) => e.method === method && e.path === path);

test("a route a plugin lists is served under the plugin's declaration", () => {
  const routes = table(listedPluginRoutes(catalogue));
  const held = listedPluginRoutes(catalogue).find((r) => r.route.path === '/api/v1/held/:address')!;
  assert.equal(entry(routes, 'GET', '/api/v1/held/:address')?.declared, held.route, 'the sentinel\'s own declaration object');
  assert.ok(entry(routes, 'GET', '/api/v1/staking/validators')?.declared !== undefined, 'staking\'s, declared');
  assert.equal(entry(routes, 'POST', '/api/v1/contracts/:address/call')?.declared?.bodyCheck, 'handler', 'the dry run documented, its body checked by the node');
  // The faucet's declaration, the gateway's cooldown handler; its body is left to the node.
  const faucet = entry(routes, 'POST', '/api/v1/faucet')?.declared;
  assert.ok(faucet?.body !== undefined && faucet.bodyCheck === 'handler');
  // Node only: not forwarded, answered 404 saying so (not a 405 from GET /contracts/:address), and not in the API reference.
  assert.equal(entry(routes, 'GET', '/api/v1/addresses/human/price'), undefined, 'Node only and not listed: the router\'s own 404');
  for (const [method, path] of [['GET', '/api/v1/slashing/history'], ['POST', '/api/v1/contracts/analyze']] as const) {
    const e = entry(routes, method, path);
    assert.equal(e?.declared, undefined, `${method} ${path}: not forwarded`);
    assert.equal(e?.listed, false);
    assert.throws(() => e!.handler({ method, path, params: {}, query: new URLSearchParams(), headers: {}, body: {}, ip: '127.0.0.1' }), (err: { status?: number; message?: string }) => err.status === 404 && /served by the nodes only/.test(err.message ?? ''));
  }
});

test("a plugin route's query is judged by the plugin's schema before anything is forwarded", async () => {
  const validators = defineRoute({ method: 'GET', path: '/api/v1/example/validators', summary: 'test', query: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1 })) }), responses: { 200: Type.Object({}) } }) as unknown as DeclaredRoute;
  const forwarded: string[] = [];
  const routes = table([{ plugin: 'example', route: validators, shardParam: undefined }], forwarded);
  const served = entry(routes, 'GET', '/api/v1/example/validators')?.declared;
  assert.deepEqual(Object.keys((served?.query as { properties: object } | undefined)?.properties ?? {}), ['limit', 'shard'], 'the plugin\'s query, and the gateway\'s ?shard= (decisions.md §73)');
  const get = async (query: string): Promise<unknown> => entry(routes, 'GET', '/api/v1/example/validators')!.handler({ method: 'GET', path: '/api/v1/example/validators', params: {}, query: new URLSearchParams(query), headers: {}, body: undefined, ip: '127.0.0.1' } satisfies RpcRequest);
  await assert.rejects(get('limit=0'), (e: { status?: number; message?: string }) => e.status === 400 && /query parameter limit/.test(e.message ?? ''));
  await assert.rejects(get('shard=x'), (e: { status?: number; message?: string }) => e.status === 400 && /query parameter shard/.test(e.message ?? ''));
  assert.deepEqual(forwarded, []);
  await get('limit=5');
  assert.deepEqual(forwarded, ['/api/v1/example/validators?limit=5']);
});
