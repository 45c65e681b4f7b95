import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { definePlugin } from '../../kernel/host/plugin.js';
import { validateConfig } from '../../kernel/config/load.js';
import { getJson } from '../helpers/node-process.js';
import { loadGatewayConfig } from '../../plugins/gateway/config.js';
import { startGateway } from '../../cli/gateway-process.js';
import { ShardRouter } from '../../plugins/gateway/shard-router.js';
import { parseJsonLossless } from '../../plugins/gateway/lossless-json.js';
import { aiRateLimited } from '../../plugins/gateway/ai-budget.js';
import { stringify } from '../../kernel/codec/json.js';
import type { GatewayServices } from '../../plugins/gateway/index.js';
import { freePort, WsClient } from '../../plugins/gateway/testing/process.js';

/** A service plugin that extends the gateway without touching it: an event, an rpc method, a route. */
const echoPlugin = definePlugin<Record<string, unknown>, GatewayServices>({
  name: 'echo',
  kind: 'service',
  description: 'test plugin',
  register(api) {
    api.services.events.define({ type: 'echo_event', description: 'echoed text', fields: ['text'] });
    api.hooks.rpcMethods.for('echo').tapPromise(api.name, async (params) => {
      api.services.events.emit('echo_event', { text: params.text });
      return { echo: params.text };
    });
    api.hooks.routes.tap(api.name, (routes) => {
      routes.get('/api/v1/echo', (req) => ({ echo: req.query.get('text') }));
      // An AI endpoint a plugin adds carries the per-minute AI limit (AI_RL_MAX_RPM) on top of the global one.
      routes.post('/api/v1/echo/ai', aiRateLimited(api.services.aiBudget, () => ({ answered: true })));
    });
  },
});

/** A state plugin in the network list must not load in a gateway process. */
const statePlugin = definePlugin({
  name: 'stateful',
  kind: 'state',
  description: 'must be skipped by the gateway profile',
  register() {
    throw new Error('a state plugin was loaded by the gateway');
  },
});

describe('gateway extension by another service plugin', () => {
  test('a plugin adds an event type, a socket rpc method and a route', async () => {
    const port = await freePort();
    const nodeConfig = validateConfig({ network: 'devnet', env: 'testnet', log_level: 'silent', plugins: [{ name: 'stateful' }, { name: 'echo' }] });
    // No node at all: the gateway must still start, greet sockets and serve plugin routes.
    const config = loadGatewayConfig({ PORT: String(port), NODE_RPC_URL: `http://127.0.0.1:${await freePort()}`, POLL_NODE_INTERVAL_MS: '200', NODE_TIMEOUT_MS: '500', AI_RL_MAX_RPM: '2' });
    const gw = await startGateway(nodeConfig, config, new Map<string, typeof echoPlugin | typeof statePlugin>([['echo', echoPlugin], ['stateful', statePlugin]]));
    try {
      assert.ok(gw.services.events.has('echo_event'));
      const ws = await WsClient.connect(`ws://127.0.0.1:${port}/ws`);
      try {
        const init = await ws.next('init', () => true);
        assert.equal(init.type, 'init');
        assert.equal((init.data as Record<string, unknown>).height, 0, 'init without a node carries zeros');
        const r = await ws.rpc('echo', { text: 'hello' });
        assert.deepEqual(r, { type: 'rpc_reply', id: r.id, result: { echo: 'hello' }, error: null });
        const e = await ws.next('echo_event', (m) => m.type === 'echo_event');
        assert.deepEqual(e, { type: 'echo_event', data: { text: 'hello' } });
      } finally {
        ws.close();
      }
      const rest = await getJson(`http://127.0.0.1:${port}/api/v1/echo?text=hi`);
      assert.deepEqual(rest.body, { echo: 'hi' });
      const ai: Array<{ status: number; retryAfter: string | null; body: unknown }> = [];
      for (let i = 0; i < 3; i++) {
        const r = await fetch(`http://127.0.0.1:${port}/api/v1/echo/ai`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
        ai.push({ status: r.status, retryAfter: r.headers.get('retry-after'), body: await r.json() });
      }
      assert.deepEqual(ai.map((r) => r.status), [200, 200, 429], 'AI_RL_MAX_RPM=2 per IP');
      assert.equal((ai[2]!.body as { error: string }).error, 'rate limit exceeded');
      assert.ok(Number(ai[2]!.retryAfter) >= 1);
      assert.equal((await getJson(`http://127.0.0.1:${port}/health`)).status, 503, 'no node: unhealthy but serving');
      assert.throws(() => gw.services.events.emit('never_defined', {}), /not defined/);
      assert.throws(() => gw.services.events.define({ type: 'new_block', description: 'dup', fields: [] }), /already defined/);
    } finally {
      await gw.stop();
    }
  });

  test('configuration errors name the variable', () => {
    assert.throws(() => loadGatewayConfig({ WS_RPC_MAX_RPS: '0' }), /WS_RPC_MAX_RPS/);
    assert.throws(() => loadGatewayConfig({ KV_STORE_URL: 'http://x' }), /KV_STORE_URL/);
    assert.throws(() => loadGatewayConfig({ TLS_CERT: '/tmp/c.pem' }), /TLS_KEY/);
    assert.throws(() => loadGatewayConfig({ TLS_CERT: '/nonexistent/c.pem', TLS_KEY: '/nonexistent/k.pem' }), /TLS_CERT="\/nonexistent\/c.pem": no such file/);
    assert.throws(() => loadGatewayConfig({ POLL_NODE_INTERVAL_MS: '2s' }), /POLL_NODE_INTERVAL_MS/);
    assert.throws(() => loadGatewayConfig({ WS_MAX_MSG_BYTES: '-1' }), /WS_MAX_MSG_BYTES/);
    assert.throws(() => loadGatewayConfig({ NODE_RPC_URL: 'ftp://x' }), /NODE_RPC_URL/);
    for (const bad of ['lots', '0', '-5 COIN', '1.0000001 COIN', '99999999999999999999']) assert.throws(() => loadGatewayConfig({ FAUCET_AMOUNT: bad }), /FAUCET_AMOUNT/, bad);
    assert.equal(loadGatewayConfig({ FAUCET_AMOUNT: '0.5 COIN' }).faucetAmount, 500_000n);
    assert.equal(loadGatewayConfig({ FAUCET_AMOUNT: '7000000' }).faucetAmount, 7_000_000n);
    // Shard maps are checked when the gateway starts (ShardRouter), naming the variable too.
    assert.throws(() => ShardRouter.fromConfig('http://n', '1=http://a', undefined), /CHAIN_SHARD_NODES: shard 0 has no node/);
    assert.throws(() => ShardRouter.fromConfig('http://n', undefined, 'ftp://a'), /SHARD_NODE_URLS/);
    const r = ShardRouter.fromConfig('http://n', '0=http://a,1=http://b,0=http://a2', undefined);
    assert.equal(r.shardCount, 2);
    assert.deepEqual(r.nodesOfShard(0), ['http://a', 'http://a2']);
    assert.deepEqual(ShardRouter.fromConfig('http://n', undefined, 'http://x|http://y,http://z').nodesOfShard(0), ['http://x', 'http://y']);
    const c = loadGatewayConfig({});
    assert.equal(c.port, 3000);
    assert.equal(c.host, '0.0.0.0');
    assert.equal(c.nodeRpcUrl, 'http://127.0.0.1:9933');
    assert.equal(c.wsMaxMsgBytes, 65536);
    assert.equal(c.wsMaxSubsPerClient, 50);
    assert.equal(c.wsRpcMaxRps, 30);
    assert.equal(c.wsStaleCheckMs, 30000);
    assert.equal(c.globalRlMaxRps, 200);
    assert.equal(c.aiRlMaxRpm, 10);
    assert.equal(c.faucetCooldownSecs, 86400);
    assert.equal(c.faucetAmount, 50_000_000n, 'FAUCET_AMOUNT: 50 COIN');
    assert.equal(c.pollIntervalMs, 2000);
  });

  test('node bodies pass through losslessly, big integers included', () => {
    const text = '{"balance":123456789012345678901,"small":42,"neg":-9007199254740993,"f":1.5e3,"s":"12345678901234567890 \\" \\u00e9","a":[true,false,null,{}],"__proto__":{"x":1}}';
    const v = parseJsonLossless(text) as Record<string, unknown>;
    assert.equal(v.balance, 123456789012345678901n);
    assert.equal(v.small, 42);
    assert.equal(v.neg, -9007199254740993n);
    assert.equal(v.f, 1500);
    assert.equal(v.s, '12345678901234567890 " \u00e9');
    assert.equal(Object.getPrototypeOf(v), Object.prototype, '__proto__ stays a plain key');
    assert.equal(stringify(v), text.replace('1.5e3', '1500').replace('\\u00e9', '\u00e9'));
    assert.deepEqual(parseJsonLossless('{"a":1}'), { a: 1 });
    for (const bad of ['{"a":12345678901234567890', '[1234567890123456789,]', '{"a" 1}', '12345678901234567890x']) assert.throws(() => parseJsonLossless(bad), SyntaxError, bad);
  });
});
