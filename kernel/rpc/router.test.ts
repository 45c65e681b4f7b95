import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isChainError } from '../errors.js';
import { Router } from './router.js';
import type { RouteHandler } from './server.js';

const h =
  (name: string): RouteHandler =>
  () =>
    name;

function found(router: Router, method: string, path: string): { name: unknown; params: Record<string, string> } {
  const m = router.match(method, path);
  assert.equal(m.kind, 'found', `${method} ${path}`);
  if (m.kind !== 'found') throw new Error('unreachable');
  return { name: m.handler({} as never), params: m.params };
}

describe('Router', () => {
  const r = new Router();
  r.add('GET', '/blocks/:height', h('by-height'));
  r.add('GET', '/blocks/latest', h('latest'));
  r.add('GET', '/accounts/:addr/txs/:page', h('txs'));
  r.add('POST', '/tx', h('submit'));
  r.add('GET', '/', h('root'));
  r.add('GET', '/a/:x/c', h('a-x-c'));
  r.add('GET', '/a/b/:y', h('a-b-y'));

  it('captures and decodes params', () => {
    assert.deepEqual(found(r, 'GET', '/accounts/pq1%2Fabc/txs/3'), { name: 'txs', params: { addr: 'pq1/abc', page: '3' } });
  });

  it('prefers static segments, earliest position first', () => {
    assert.equal(found(r, 'GET', '/blocks/latest').name, 'latest');
    assert.equal(found(r, 'GET', '/blocks/12').name, 'by-height');
    assert.equal(found(r, 'GET', '/a/b/c').name, 'a-b-y');
  });

  it('matches the root and ignores one trailing slash', () => {
    assert.equal(found(r, 'GET', '/').name, 'root');
    assert.equal(found(r, 'GET', '/blocks/latest/').name, 'latest');
  });

  it('serves HEAD from GET routes', () => {
    assert.equal(found(r, 'HEAD', '/blocks/1').name, 'by-height');
  });

  it('distinguishes unknown paths from wrong methods', () => {
    assert.deepEqual(r.match('GET', '/nothing'), { kind: 'not-found' });
    assert.deepEqual(r.match('GET', '/blocks'), { kind: 'not-found' });
    assert.deepEqual(r.match('GET', '/blocks//'), { kind: 'not-found' }, 'an empty segment never fills a param');
    assert.deepEqual(r.match('DELETE', '/tx'), { kind: 'method-not-allowed', allow: ['OPTIONS', 'POST'] });
    assert.deepEqual(r.match('POST', '/blocks/1'), { kind: 'method-not-allowed', allow: ['GET', 'HEAD', 'OPTIONS'] });
  });

  it('answers malformed percent-encoding with a 400 ChainError', () => {
    assert.throws(
      () => r.match('GET', '/blocks/%E0%A4%A'),
      (e: unknown) => isChainError(e) && e.status === 400,
    );
  });

  it('finds a route whatever segment its length is indexed by: static text there, or a param', () => {
    const x = new Router();
    x.add('GET', '/api/v1/blocks/:height', h('block'));
    x.add('GET', '/api/v1/accounts/:address', h('account'));
    x.add('GET', '/api/v1/:kind/latest', h('latest-of-kind'));
    x.add('POST', '/api/v1/:kind/:id', h('post-any'));
    x.add('GET', '/v2/:a/:b/:c', h('v2'));
    assert.equal(found(x, 'GET', '/api/v1/blocks/7').name, 'block');
    assert.equal(found(x, 'GET', '/api/v1/accounts/latest').name, 'account', 'the earlier static position wins');
    assert.equal(found(x, 'GET', '/api/v1/things/latest').name, 'latest-of-kind');
    assert.equal(found(x, 'GET', '/v2/1/2/3').name, 'v2');
    assert.deepEqual(found(x, 'POST', '/api/v1/things/1').params, { kind: 'things', id: '1' });
    assert.deepEqual(x.match('GET', '/api/v1/things/1'), { kind: 'method-not-allowed', allow: ['OPTIONS', 'POST'] });
    assert.deepEqual(x.match('PUT', '/api/v1/blocks/1'), { kind: 'method-not-allowed', allow: ['GET', 'HEAD', 'OPTIONS', 'POST'] });
    assert.deepEqual(x.match('GET', '/web/v1/blocks/1'), { kind: 'not-found' });
  });

  it('refuses colliding or malformed patterns', () => {
    const x = new Router();
    x.add('GET', '/a/:id', h('1'));
    assert.throws(() => x.add('GET', '/a/:other', h('2')), /collides/);
    x.add('POST', '/a/:other', h('3')); // another method is not a collision
    assert.throws(() => x.add('GET', 'no-slash', h('4')), /must start/);
    assert.throws(() => x.add('GET', '/b/:x/:x', h('5')), /repeated/);
    assert.throws(() => x.add('GET', '/b/:', h('6')), /bad parameter/);
  });
});
