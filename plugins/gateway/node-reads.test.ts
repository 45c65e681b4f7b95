import { test } from 'node:test';
import assert from 'node:assert/strict';
import { namedAddress } from './node-reads.js';

test('decisions.md §73: the address a read names, in its path or as ?address=, routes it to the owning shard', () => {
  assert.equal(namedAddress('/api/v1/accounts/chain:307f4559431e680.human'), 'chain:307f4559431e680.human');
  assert.equal(namedAddress('/api/v1/accounts/chain%3A307f4559431e680.human/transactions?limit=5'), 'chain:307f4559431e680.human', 'percent-encoded');
  assert.equal(namedAddress('/api/v1/contracts/chain:0123456789.app'), 'chain:0123456789.app');
  assert.equal(namedAddress('/api/v1/contracts/chain:0123456789.app/events?limit=5'), 'chain:0123456789.app');
  assert.equal(namedAddress('/api/v1/session/list/chain:307f4559431e680.human?limit=100&offset=0'), 'chain:307f4559431e680.human');
  assert.equal(namedAddress('/api/v1/held/chain:307f4559431e680.human'), 'chain:307f4559431e680.human');
  assert.equal(namedAddress('/api/v1/transactions?address=chain%3A307f4559431e680.human&limit=20&offset=0'), 'chain:307f4559431e680.human');
  assert.equal(namedAddress('/api/v1/staking/info/chain:validator-1.node'), 'chain:validator-1.node');
  // Reads that name no address a single shard owns stay with the primary node (or their ?shard=).
  assert.equal(namedAddress('/api/v1/blocks/3'), undefined);
  assert.equal(namedAddress('/api/v1/gas/estimate'), undefined);
  assert.equal(namedAddress('/api/v1/transactions/0xabc'), undefined);
  assert.equal(namedAddress('/api/v1/accounts/chain:system.deploy'), undefined, 'every shard serves chain:system.*');
  assert.equal(namedAddress('/api/v1/transactions?address=nonsense'), undefined);
});
