import { test } from 'node:test';
import assert from 'node:assert/strict';
import { shardHealth } from './status.js';
import type { NodeAnswer } from './node-client.js';
import type { NodeReads } from './node-reads.js';
import type { GatewayConfig } from './config.js';
import type { FaucetCooldown } from './faucet-cooldown.js';

const config = { networkId: 'devnet' } as GatewayConfig;
const cooldown = { backend: 'memory', configured: false } as unknown as FaucetCooldown;

/** Fresh reads answered per shard; `down` shards throw as an unreachable node does. */
function reads(health: Record<number, NodeAnswer>, down: number[] = []): NodeReads & { asked: number[] } {
  const asked: number[] = [];
  return {
    asked,
    freshOnShard: async (shard: number, path: string) => {
      assert.equal(path, '/health');
      asked.push(shard);
      if (down.includes(shard)) throw new Error('no node of shard reachable');
      return health[shard] ?? { status: 404, body: { error: 'not found' } };
    },
  } as unknown as NodeReads & { asked: number[] };
}

test('/health?shard=s is the gateway health record from a node of shard s asked now, with shard and n_shards (decisions.md §73)', async () => {
  const r = reads({ 1: { status: 200, body: { status: 'ok', height: 42, peers: 1, round: 0, mempool: 3, shard: 1, n_shards: 2 } } });
  const h = await shardHealth(1, r, 2, config, cooldown, () => 5);
  assert.deepEqual(r.asked, [1]);
  assert.equal(h.healthy, true);
  assert.deepEqual({ ...h.body, last_poll_at: 0 }, { status: 'ok', network: 'devnet', height: 42, peers: 1, round: 0, mempool: 3, node_reachable: true, node_status: 'ok', last_poll_at: 0, faucet_cooldown_store: 'memory', ws_clients: 5, shard: 1, n_shards: 2 });
});

test('/health?shard=s while no node of s answers, or one answers no health record: 503 material, node_unreachable with the reason', async () => {
  for (const [r, reason] of [[reads({}, [0]), /no node of shard reachable/], [reads({ 0: { status: 500, body: { error: 'boom' } } }), /answered 500/], [reads({ 0: { status: 200, body: { status: 'ok' } } }), /without a height/]] as const) {
    const h = await shardHealth(0, r, 2, config, cooldown, () => 0);
    assert.equal(h.healthy, false);
    assert.equal(h.body.status, 'node_unreachable');
    assert.equal(h.body.node_reachable, false);
    assert.match(String(h.body.node_error), reason);
    assert.equal(h.body.shard, 0);
    assert.equal(h.body.n_shards, 2);
  }
});
