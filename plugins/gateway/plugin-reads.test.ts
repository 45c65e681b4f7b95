import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PLUGIN_CATALOGUE } from '../index.js';
import { forwardedOperations } from './operation-routes.js';
import { homeShard, proxiedPluginReads } from './plugin-reads.js';

const catalogue = PLUGIN_CATALOGUE as Parameters<typeof proxiedPluginReads>[0];

test('the reads a state plugin lists are proxied, with the shard parameter of a plugin that keeps its records on one shard', () => {
  const reads = proxiedPluginReads(catalogue);
  const pool = reads.find((r) => r.path === '/api/v1/dex/pools/:id');
  assert.deepEqual(pool, { plugin: 'assets', path: '/api/v1/dex/pools/:id', shardParam: 'dex_shard' });
  assert.ok(reads.some((r) => r.path === '/api/v1/assets/check-symbol'));
  assert.ok(reads.every((r) => r.plugin !== 'faucet' || r.shardParam === undefined));
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
