import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startNodeProcess, type NodeHandle } from '../helpers/node-process.js';
import { TRAVERSAL_TARGETS, UNKNOWN_METHODS, UWS_DROPS_LONG_HEAD, assertJsonError, rawRequest, requestHead, uwsDropsMethod, type RawAnswer } from '../helpers/raw-http.js';
import { startGatewayProcess, type ProcessHandle } from '../../plugins/gateway/testing/process.js';

/**
 * The findings of the security review of the HTTP layer, replayed as a client would send them to
 * a real `chain node` (and to a gateway in front of one) on loopback, once per HTTP backend. The
 * requests go out on a bare socket: fetch and undici would normalise the very paths under test.
 */

function assertRefusedPath(answer: RawAnswer, what: string): void {
  const body = assertJsonError(answer, 400, 'malformed request path', what);
  assert.ok(!('peers' in body) && !('transactions' in body), `${what}: answered by another route: ${answer.body.slice(0, 200)}`);
}

for (const backend of ['uws', 'node'] as const) {
  describe(`node RPC under hostile requests (${backend} backend)`, () => {
    let node: NodeHandle;
    before(async () => {
      node = await startNodeProcess({ env: { CHAIN_HTTP_BACKEND: backend, CHAIN_RPC_RATE_LIMIT: '100000' } });
    });
    after(async () => node.stop());

    test('backslashes, encoded slashes and dot segments are refused before any route', async () => {
      for (const target of TRAVERSAL_TARGETS) assertRefusedPath(await rawRequest(node.port, requestHead('GET', target)), target);
    });

    for (const method of UNKNOWN_METHODS) {
      test(`${method} is answered 501 JSON, with Allow where the path exists`, { todo: backend === 'uws' ? uwsDropsMethod(method) : undefined }, async () => {
        const known = await rawRequest(node.port, requestHead(method, '/peers'));
        assertJsonError(known, 501, `method not implemented: ${method}`, `${method} /peers`);
        assert.equal(known.headers['allow'], 'GET, HEAD, OPTIONS');
        const posted = await rawRequest(node.port, requestHead(method, '/api/v1/transactions'));
        assertJsonError(posted, 501, `method not implemented: ${method}`, `${method} /api/v1/transactions`);
        assert.equal(posted.headers['allow'], 'GET, HEAD, OPTIONS, POST');
        assertJsonError(await rawRequest(node.port, requestHead(method, '/api/v1/nothing-here')), 501, `method not implemented: ${method}`, `${method} /api/v1/nothing-here`);
      });
    }

    const account = (length: number): string => '/api/v1/accounts/' + 'a'.repeat(length - '/api/v1/accounts/'.length);

    test('a request target of exactly 8 KiB reaches its route', async () => {
      const a = await rawRequest(node.port, requestHead('GET', account(8 * 1024)));
      assert.equal(a.status, 400, a.body.slice(0, 200));
      assert.match(String((JSON.parse(a.body) as Record<string, unknown>).error), /is not a chain address/);
    });

    // One write of 64 KB or less reaches the server in one read on loopback; more may not, and uWS
    // then drops the connection natively.
    for (const length of [8 * 1024 + 1, 100_000, 1_000_000]) {
      test(`a ${length}-byte request target is answered 414 JSON on every try`, { todo: backend === 'uws' && length > 64 * 1024 ? UWS_DROPS_LONG_HEAD : undefined }, async () => {
        for (let attempt = 1; attempt <= 3; attempt++) {
          assertJsonError(await rawRequest(node.port, requestHead('GET', account(length))), 414, 'request URL too long (limit 8192 bytes)', `${length} bytes, try ${attempt}`);
        }
      });
    }
  });

  describe(`gateway in front of a node under hostile requests (${backend} backend)`, () => {
    let node: NodeHandle;
    let gw: ProcessHandle;
    before(async () => {
      node = await startNodeProcess({ env: { CHAIN_HTTP_BACKEND: backend, CHAIN_RPC_RATE_LIMIT: '100000' } });
      gw = await startGatewayProcess({ NODE_RPC_URL: node.url, GLOBAL_RL_MAX_RPS: '100000', CHAIN_HTTP_BACKEND: backend });
    });
    after(async () => {
      await gw?.stop();
      await node?.stop();
    });

    // The gateway forwards a read's path as it came, and undici's URL parser turns '\' into '/'
    // and resolves '..': without the refusal, the first target returned the node-only `/peers`.
    test('a traversal sent to the gateway never reaches another route of the node', async () => {
      for (const target of TRAVERSAL_TARGETS) assertRefusedPath(await rawRequest(gw.port, requestHead('GET', target)), `gateway ${target}`);
    });
  });
}

/**
 * In production every gateway request reaches the node from the gateway's one address, so the
 * node's per-IP limit (CHAIN_RPC_RATE_LIMIT) would answer 429 to the gateway under normal load.
 * 127.0.0.2 is a second client on loopback, outside the trusted range.
 */
for (const backend of ['uws', 'node'] as const) {
  describe(`CHAIN_RPC_TRUSTED_IPS (${backend} backend)`, () => {
    let node: NodeHandle;
    before(async () => {
      node = await startNodeProcess({ env: { CHAIN_HTTP_BACKEND: backend, CHAIN_RPC_RATE_LIMIT: '5', CHAIN_RPC_TRUSTED_IPS: '127.0.0.1/32, fd00::/8' } });
    });
    after(async () => node.stop());

    const burst = async (localAddress: string): Promise<number[]> =>
      (await Promise.all(Array.from({ length: 40 }, () => rawRequest(node.port, requestHead('GET', '/health'), { localAddress })))).map((a) => a.status);

    test('a trusted client is not limited; an untrusted one still is', async () => {
      const trusted = await burst('127.0.0.1');
      assert.deepEqual(trusted, Array(40).fill(200), `trusted: ${trusted.join(',')}`);
      const other = await burst('127.0.0.2');
      assert.ok(other.includes(429), `untrusted: ${other.join(',')}`);
    });
  });
}

test('a bad CHAIN_RPC_TRUSTED_IPS stops the node with a message naming the variable', async () => {
  // A node that starts anyway is stopped, so the failed assertion does not leave it running.
  const started = startNodeProcess({ env: { CHAIN_RPC_TRUSTED_IPS: '127.0.0.1, gateway.internal' } }).then((n) => n.stop());
  await assert.rejects(started, /CHAIN_RPC_TRUSTED_IPS="127\.0\.0\.1, gateway\.internal": "gateway\.internal" is not an IP address or CIDR range/);
});
