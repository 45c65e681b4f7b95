import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ChainError } from '../../kernel/sdk.js';
import { assertForwardable, pathSegment, upstreamPath } from './upstream-path.js';

const refused = (pattern: RegExp) => (e: unknown): boolean => e instanceof ChainError && e.status === 400 && pattern.test(e.message);

test('a path parameter becomes exactly one upstream segment or is refused', () => {
  assert.equal(pathSegment('address', 'chain:0123456789abcde.human'), 'chain:0123456789abcde.human', 'plain addresses stay readable');
  assert.equal(pathSegment('address', 'x?y#z%'), 'x%3Fy%23z%25');
  assert.equal(pathSegment('hash', '...'), '...', 'three dots are no dot segment');
  for (const v of ['..', '.']) assert.throws(() => pathSegment('address', v), refused(/address is a dot segment/));
  for (const v of ['..\\..\\peers', 'a/b', '\\', 'a\u0000b', 'a\nb']) assert.throws(() => pathSegment('address', v), refused(/separator or a control character/), JSON.stringify(v));
  assert.throws(() => pathSegment('address', ''), refused(/is empty/));
});

test('upstreamPath fills a route pattern, never the client path', () => {
  assert.equal(upstreamPath('/api/v1/accounts/:address/transactions', { address: 'a b' }), '/api/v1/accounts/a%20b/transactions');
  assert.equal(upstreamPath('/api/v1/gas/estimate', {}), '/api/v1/gas/estimate');
  assert.throws(() => upstreamPath('/api/v1/blocks/:height', { height: '..\\..\\..\\peers' }), refused(/path parameter 'height'/));
  assert.throws(() => upstreamPath('/api/v1/blocks/:height', {}), refused(/path parameter 'height' is empty/));
});

test('assertForwardable refuses what a URL parser would resolve into another path', () => {
  for (const ok of ['/health', '/api/v1/blocks?limit=10', '/api/v1/accounts/x%3Fy?a=../b', '/api/v1/accounts/chain:abc.human']) assert.doesNotThrow(() => assertForwardable(ok), ok);
  for (const bad of ['/api/v1/accounts/..\\..\\peers', '/api/v1/accounts/%2e%2e/transactions', '/api/v1/blocks/../transactions', '/api/v1/accounts/.%2E', '/api/v1/a%2fb', '/api/v1/a%5cb', '/api/v1/%zz', '/api//v1', 'api/v1']) {
    assert.throws(() => assertForwardable(bad), refused(/node path/), bad);
  }
});
