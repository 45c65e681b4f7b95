import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { wallet, type Wallet } from '../helpers/chain-fixture.js';
import { getJson, postJson, startNodeProcess, until, waitConfirmed, type NodeHandle } from '../helpers/node-process.js';
import { startGatewayProcess, WsClient, type Msg, type ProcessHandle } from '../../plugins/gateway/testing/process.js';
import { FlakyUpstream } from '../../plugins/gateway/testing/flaky-upstream.js';

/**
 * Findings of the gateway's security review, each reproduced as a client meets it: one real node
 * shared by every scenario, behind a relay that records what reaches the node and can make it
 * answer 429 / 500 for a while, and one real `chain gateway` per HTTP backend in front of that.
 */

/** Request targets that reached node-only routes through a path parameter (all sent raw, unnormalised). */
const TRAVERSALS = [
  '/api/v1/accounts/..\\..\\..\\peers',
  '/api/v1/accounts/..\\..\\..\\status',
  '/api/v1/accounts/..\\..\\..\\api\\v1\\state\\snapshot',
  '/api/v1/blocks/..\\..\\..\\peers',
  '/api/v1/accounts/..\\..\\..\\peers/transactions',
  '/api/v1/transactions/..\\..\\..\\peers',
  '/api/v1/tx/..\\..\\..\\peers/proof',
  '/api/v1/accounts/%2e%2e%5c%2e%2e%5c%2e%2e%5cpeers',
  '/api/v1/accounts/%2E%2E%5C%2E%2E%5C%2E%2E%5Cstatus',
  '/api/v1/accounts/..%2f..%2f..%2fpeers',
  '/api/v1/accounts/%2e%2e%2f%2e%2e%2f%2e%2e%2fpeers',
  '/api/v1/accounts/%2e%2e/transactions',
  '/api/v1/blocks/../transactions',
  '/api/v1/blocks/%2e/transactions',
  '/api/v1/accounts/./transactions',
  '/api/v1/blocks/1/..\\..\\..\\peers',
  '/api/v1/accounts/../../../peers',
];

/**
 * What the gateway's own poller reads from the node (each new block's events too, which it relays
 * to sockets); anything else upstream came from a client.
 */
const POLLER_READ = /^\/(health|api\/v1\/blocks\/\d+(\/events)?|api\/v1\/validators|api\/v1\/blocks\?limit=\d+|api\/v1\/transactions\?limit=\d+)$/;

/** GET with the request target exactly as given: fetch() would resolve dot segments and backslashes first. */
function rawGet(base: string, target: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, path: target, method: 'GET' }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Record<string, unknown> }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function metricValue(gwUrl: string, name: string): Promise<number> {
  const m = new RegExp(`^${name} (\\d+)`, 'm').exec(await (await fetch(`${gwUrl}/metrics`)).text());
  assert.ok(m, `${name} is exported`);
  return Number(m[1]);
}

const heightOf = (m: Msg): number => (m.data as { height: number }).height;

describe('gateway against hostile clients and a struggling node', () => {
  let node: NodeHandle;
  let upstream: FlakyUpstream;

  before(async () => {
    node = await startNodeProcess({ env: { CHAIN_HTTP_BACKEND: 'node', CHAIN_RPC_RATE_LIMIT: '100000' } });
    upstream = await FlakyUpstream.start(node.url);
    await until('block 1', async () => (((await getJson(`${node.url}/health`)).body.height as number) >= 1 ? true : undefined));
  });
  after(async () => {
    await upstream?.close();
    await node?.stop();
  });

  for (const backend of ['uws', 'node'] as const) {
    describe(`${backend} backend`, () => {
      let gw: ProcessHandle;
      const ws = (): Promise<WsClient> => WsClient.connect(`${gw.url.replace('http', 'ws')}/ws`);
      const base = backend === 'uws' ? 150 : 160;
      const [alice, bob, carol, dave] = [wallet(base), wallet(base + 1), wallet(base + 2), wallet(base + 3)];

      before(async () => {
        gw = await startGatewayProcess({ NODE_RPC_URL: upstream.url, CHAIN_HTTP_BACKEND: backend, GLOBAL_RL_MAX_RPS: '100000', FAUCET_AMOUNT: '20 COIN' });
      });
      after(async () => {
        await gw?.stop();
      });

      test('path parameters cannot reach node-only routes (backslashes, dot segments, encoded separators)', async () => {
        const from = upstream.relayed.length;
        for (const target of TRAVERSALS) {
          const r = await rawGet(gw.url, target);
          assert.ok(r.status === 400 || r.status === 404, `${target} is refused, got ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
          assert.equal(typeof r.body.error, 'string', `${target}: the project's error shape`);
        }
        const client = await ws();
        try {
          await client.next('init', (m) => m.type === 'init');
          for (const [method, params] of [
            ['get_block_txs', { height: '..' }],
            ['get_block', { height: '..\\..\\..\\peers' }],
            ['get_account', { address: '..\\..\\..\\status' }],
            ['get_account', { address: '../../../peers' }],
            ['search_tx', { hash: '..' }],
          ] as const) {
            const r = await client.rpc(method, params);
            assert.equal(r.result, null, `${method} ${JSON.stringify(params)}: ${JSON.stringify(r).slice(0, 200)}`);
            assert.equal(typeof r.error, 'string');
          }
          client.send({ type: 'subscribe_balance', address: '..\\..\\..\\peers' });
          assert.equal((await client.nextNew('subscription refused', (m) => m.type === 'error' || m.type === 'balance')).type, 'error');
        } finally {
          client.close();
        }
        const fromClients = upstream.relayed.slice(from).filter((p) => !POLLER_READ.test(p));
        assert.deepEqual(fromClients, [], 'nothing a hostile client sent reached the node');

        // A parameter is one path segment upstream whatever it contains: '?', '#' and '%' stay encoded.
        const odd = await rawGet(gw.url, '/api/v1/accounts/x%3Fy%23z%25');
        assert.equal(odd.status, 400);
        // The gateway judges it under the kernel's declaration of the route (the node's words); if
        // it is ever forwarded, it goes whole, never cut at '?', '#' or '%'.
        assert.match(odd.body.error as string, /"x\?y#z%" is not a chain address/, 'the whole parameter was judged');
        const relayedOdd = upstream.relayed.filter((p) => p.startsWith('/api/v1/accounts/x'));
        assert.ok(relayedOdd.every((p) => p === '/api/v1/accounts/x%3Fy%23z%25'), relayedOdd.join(' '));
        // Ordinary reads are unaffected.
        assert.deepEqual(await rawGet(gw.url, `/api/v1/accounts/${alice.address}`), await getJson(`${node.url}/api/v1/accounts/${alice.address}`));
        assert.deepEqual(await rawGet(gw.url, '/api/v1/blocks/1'), await getJson(`${node.url}/api/v1/blocks/1`));
        assert.equal((await rawGet(gw.url, `/api/v1/accounts/${encodeURIComponent(alice.address)}/transactions`)).status, 200);
      });

      test("a plugin's read is judged under the plugin's own declaration: a bad parameter gets the node's status and words, and is not forwarded", async () => {
        const from = upstream.relayed.length;
        const targets = ['/api/v1/held/not-an-address', '/api/v1/oracle/log?limit=abc', `/api/v1/sponsor/${alice.address}?prove=maybe`, '/api/v1/governance/1?prove=true&prove=false'];
        for (const target of targets) {
          const [atGateway, atNode] = [await rawGet(gw.url, target), await rawGet(node.url, target)];
          assert.equal(atNode.status, 400, `${target}: the node refuses it (${JSON.stringify(atNode.body)})`);
          assert.deepEqual(atGateway, atNode, `${target}: the gateway answers as the node does`);
        }
        const fromClients = upstream.relayed.slice(from).filter((p) => !POLLER_READ.test(p));
        assert.deepEqual(fromClients, [], 'a refused parameter never reached the node');
        // A good one is forwarded and answered as the node answers it.
        assert.deepEqual(await rawGet(gw.url, `/api/v1/held/${alice.address}`), await getJson(`${node.url}/api/v1/held/${alice.address}`));
      });

      test('a node answering 429, then 500: the gateway keeps its height, says the node is not answering, and announces each block once', async () => {
        const client = await ws();
        try {
          await client.next('init', (m) => m.type === 'init');
          const seen = heightOf(await client.nextNew('a new_block', (m) => m.type === 'new_block'));
          for (const status of [429, 500] as const) {
            upstream.refuseWith(status);
            await upstream.healthRefusals(3);
            const h = await getJson(`${gw.url}/health`);
            assert.equal(h.body.node_reachable, false, `${status}: ${JSON.stringify(h.body)}`);
            assert.equal(h.body.status, 'node_unreachable');
            assert.equal(h.status, 503);
            assert.ok((h.body.height as number) >= seen, `${status}: /health keeps height ${h.body.height} >= ${seen}`);
            for (const f of ['network', 'peers', 'round', 'mempool']) assert.ok(f in h.body, `health keeps ${f}`);
            assert.ok((await metricValue(gw.url, 'gateway_node_height')) >= seen, `${status}: gateway_node_height is not lowered`);
            assert.equal(await metricValue(gw.url, 'gateway_node_up'), 0);
          }
          upstream.pass();
          await until('health to report the node back', async () => {
            const h = await getJson(`${gw.url}/health`);
            return h.status === 200 && h.body.node_reachable === true ? h : undefined;
          });
          const tip = ((await getJson(`${node.url}/health`)).body.height as number);
          await client.next(`new_block ${tip}`, (m) => m.type === 'new_block' && heightOf(m) >= tip);
          const heights = client.received.filter((m) => m.type === 'new_block').map(heightOf);
          heights.forEach((h, i) => i > 0 && assert.equal(h, heights[i - 1]! + 1, `every height once, in order: ${heights.join(',')}`));
          const metricHeights = client.received.filter((m) => m.type === 'metrics').map(heightOf);
          metricHeights.forEach((h, i) => i > 0 && assert.ok(h >= metricHeights[i - 1]!, `metrics heights never drop: ${metricHeights.join(',')}`));
        } finally {
          upstream.pass();
          client.close();
        }
      });

      test('faucet: FAUCET_AMOUNT caps every request and is the amount when none is asked', async () => {
        const ask = (w: Wallet, amount?: number) => postJson(`${gw.url}/api/v1/faucet`, { address: w.address, public_key: w.publicKeyHex, ...(amount === undefined ? {} : { amount }) });
        for (const amount of [500_000_000, 20_000_001]) {
          const over = await ask(alice, amount);
          assert.equal(over.status, 400, `${amount}: ${JSON.stringify(over.body)}`);
          assert.match(over.body.error as string, /20000000 ucoin \(20 COIN, FAUCET_AMOUNT\)/);
        }
        const none = await ask(alice);
        assert.equal(none.status, 200, JSON.stringify(none.body));
        assert.equal(none.body.amount, 20_000_000, 'no amount asked: FAUCET_AMOUNT');
        const less = await ask(bob, 5_000_000);
        assert.equal(less.body.amount, 5_000_000, 'a smaller amount is served as asked');
        assert.equal((await ask(carol, 20_000_000)).body.amount, 20_000_000, 'exactly the cap is allowed');

        const client = await ws();
        try {
          await client.next('init', (m) => m.type === 'init');
          const r = await client.rpc('faucet', { address: dave.address, public_key: dave.publicKeyHex, amount: 500_000_000 });
          assert.match(r.error as string, /FAUCET_AMOUNT/, 'the socket faucet has the same cap');
        } finally {
          client.close();
        }
        await waitConfirmed(gw.url, none.body.tx_hash as string);
        assert.equal((await getJson(`${node.url}/api/v1/accounts/${alice.address}`)).body.balance, 20_000_000, 'only the capped amount was ever credited');
        assert.equal((await getJson(`${node.url}/api/v1/accounts/${dave.address}`)).body.balance, 0);
      });
    });
  }
});
