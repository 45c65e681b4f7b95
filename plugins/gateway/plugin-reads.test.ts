import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PLUGIN_CATALOGUE } from '../index.js';
import { forwardedOperations } from './operation-routes.js';
import { forwardedPluginRoutes, homeShard } from './plugin-reads.js';

const catalogue = PLUGIN_CATALOGUE as Parameters<typeof forwardedPluginRoutes>[0];

test('the routes a state plugin lists are forwarded under its declaration, with the shard parameter of a plugin that keeps its records on one shard', () => {
  const routes = forwardedPluginRoutes(catalogue);
  const pool = routes.find((r) => r.route.path === '/api/v1/dex/pools/:id');
  assert.equal(pool?.plugin, 'assets');
  assert.equal(pool?.shardParam, 'dex_shard');
  assert.ok(pool?.route.params !== undefined && pool.route.responses[200] !== undefined, 'the plugin\'s own declaration, params and answer');
  assert.ok(routes.some((r) => r.route.path === '/api/v1/assets/check-symbol'));
  assert.ok(routes.some((r) => r.route.method === 'POST' && r.route.path === '/api/v1/sentinel/score'), 'an unsigned POST served by both is forwarded too');
  assert.ok(routes.every((r) => r.plugin !== 'faucet' || r.shardParam === undefined));
  assert.ok(!routes.some((r) => r.route.path === '/api/v1/addresses/human/price'), 'a route part 1 marks Node only is not forwarded');
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
