import { test } from 'node:test';
import assert from 'node:assert/strict';
import { passThrough } from './proxy-routes.js';
import { CachedAnswer, ResponseCache } from './response-cache.js';

const BLOCK = '/api/v1/blocks/7';

// That an encoded reply goes out as the bytes reply() would: kernel/rpc/helpers.test.ts.
test('a cache hit answers the node status and body, from one reply encoded once', () => {
  const cache = new ResponseCache(10, 60_000);
  const body = { height: 7, supply: 2n ** 70n, txs: [{ hash: '0xab', amount: 5 }] };
  cache.put(BLOCK, { status: 200, body });
  const hit = cache.get(BLOCK)!;
  assert.ok(hit instanceof CachedAnswer);
  assert.deepEqual([hit.status, hit.body], [200, body]);
  const served = passThrough(hit);
  assert.equal(passThrough(cache.get(BLOCK)!), served, 'later hits reuse the encoded reply');
  const { status, body: sent } = served as { status: number; body: unknown };
  assert.deepEqual([status, sent], [200, body]);
  assert.ok(Object.isFrozen(served));
});

test('errors are not cached, and a new height drops height-dependent entries but keeps committed ones', () => {
  const cache = new ResponseCache(10, 60_000);
  cache.put('/api/v1/blocks/9', { status: 404, body: { error: 'no block' } });
  assert.equal(cache.get('/api/v1/blocks/9'), undefined);
  cache.put(BLOCK, { status: 200, body: { height: 7 } });
  cache.put('/api/v1/accounts/chain:a.human', { status: 200, body: { balance: 1 } });
  cache.newHeight();
  assert.ok(cache.get(BLOCK));
  assert.equal(cache.get('/api/v1/accounts/chain:a.human'), undefined);
});
