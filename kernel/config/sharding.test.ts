import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError } from './env.js';
import { resolveSharding } from './sharding.js';

test('CHAIN_SHARDS and CHAIN_SHARD_ID against the genesis (decisions.md §71)', () => {
  const one = resolveSharding({ shards: 1 }, 1, 'g.json');
  assert.deepEqual([one.view.id, one.view.count, one.ignoredShards], [0, 1, false]);
  const ignored = resolveSharding({ shards: 4 }, 1, 'g.json');
  assert.deepEqual([ignored.view.id, ignored.view.count, ignored.ignoredShards], [0, 1, true], 'without CHAIN_SHARD_ID: shard 0 of one, CHAIN_SHARDS ignored');
  const s1 = resolveSharding({ shards: 2, shard_id: 1 }, 2, 'g.json');
  assert.deepEqual([s1.view.id, s1.view.count], [1, 2]);
  const refused = (f: () => unknown, variable: RegExp) => assert.throws(f, (e: unknown) => e instanceof ConfigError && variable.test(e.message));
  refused(() => resolveSharding({ shards: 2, shard_id: 2 }, 2, 'g.json'), /^CHAIN_SHARD_ID 2 is not below CHAIN_SHARDS 2/);
  refused(() => resolveSharding({ shards: 3, shard_id: 0 }, 2, 'g.json'), /^CHAIN_SHARDS 3 differs from n_shards 2 of the genesis g\.json/);
  refused(() => resolveSharding({ shards: 2, shard_id: 0 }, 1, 'g.json'), /^CHAIN_SHARDS 2 differs from n_shards 1/);
  refused(() => resolveSharding({ shards: 1 }, 2, 'g.json'), /^CHAIN_SHARD_ID is not set.*n_shards 2/);
});
