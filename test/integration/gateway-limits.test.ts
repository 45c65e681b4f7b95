import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { wallet } from '../helpers/chain-fixture.js';
import { CLI, getJson, postJson, startNodeProcess, type NodeHandle } from '../helpers/node-process.js';
import { startGatewayProcess, WsClient, type Msg, type ProcessHandle } from '../../plugins/gateway/testing/process.js';

/**
 * Every gateway limit with the spec's message (part 2, Socket errors and Limits), and that the
 * connection keeps working after each error. Limits are lowered through the environment so each
 * is reached in a few messages.
 */
describe('gateway limits', () => {
  let node: NodeHandle;
  let gw: ProcessHandle;
  const wsUrl = (): string => `${gw.url.replace('http', 'ws')}/ws`;

  before(async () => {
    node = await startNodeProcess({ env: { CHAIN_HTTP_BACKEND: 'node', CHAIN_RPC_RATE_LIMIT: '100000' } });
    gw = await startGatewayProcess({
      NODE_RPC_URL: node.url,
      WS_MAX_MSG_BYTES: '1024',
      WS_MAX_SUBS_PER_CLIENT: '2',
      WS_RPC_MAX_RPS: '3',
      WS_STALE_CHECK_MS: '1000',
      AI_RL_MAX_RPM: '2',
      GLOBAL_RL_MAX_RPS: '100000',
      FAUCET_COOLDOWN_SECS: '60',
      // Memory, whatever runs on the local Redis port (the default store when KV_STORE_URL is unset).
      KV_STORE_URL: 'memory',
    });
  });
  after(async () => {
    await gw?.stop();
    await node?.stop();
  });

  test('message too large: error, connection stays open', async () => {
    const ws = await WsClient.connect(wsUrl());
    try {
      await ws.next('init', (m) => m.type === 'init');
      ws.send({ type: 'rpc', id: 1, method: 'get_status', params: { pad: 'x'.repeat(2000) } });
      const e = await ws.nextNew('error', (m) => m.type === 'error');
      assert.deepEqual(e, { type: 'error', error: 'message too large' });
      assert.equal((await ws.rpc('get_status')).error, null);
      assert.equal(ws.closed, false);
    } finally {
      ws.close();
    }
  });

  test('subscription limit exceeded, earlier subscriptions kept', async () => {
    const ws = await WsClient.connect(wsUrl());
    try {
      await ws.next('init', (m) => m.type === 'init');
      for (const i of [51, 52]) {
        ws.send({ type: 'subscribe_balance', address: wallet(i).address });
        await ws.nextNew('balance', (m) => m.type === 'balance' && m.address === wallet(i).address);
      }
      ws.send({ type: 'subscribe_balance', address: wallet(53).address });
      const e = await ws.nextNew('error', (m) => m.type === 'error');
      assert.equal(e.error, 'subscription limit exceeded');
      // Re-subscribing an address already held is not a new subscription.
      ws.send({ type: 'subscribe_balance', address: wallet(51).address });
      await ws.nextNew('balance', (m) => m.type === 'balance' && m.address === wallet(51).address);
      ws.send({ type: 'subscribe_balance', address: 'garbage' });
      assert.equal((await ws.nextNew('error', (m) => m.type === 'error')).type, 'error', 'a bad address is refused');
      await ws.nextNew('balance pushed after a block', (m) => m.type === 'balance' && m.address === wallet(52).address);
    } finally {
      ws.close();
    }
  });

  test('a burst of subscriptions cannot pass the limit; a refused address gives its slot back', async () => {
    const ws = await WsClient.connect(wsUrl());
    try {
      await ws.next('init', (m) => m.type === 'init');
      const from = ws.received.length;
      // Sent without waiting: every balance read is in flight while the later ones are checked.
      const burst = [71, 72, 73, 74, 75, 76].map((i) => wallet(i).address);
      for (const address of burst) ws.send({ type: 'subscribe_balance', address });
      const answered = (): Msg[] => ws.received.slice(from).filter((m) => (m.type === 'balance' || m.type === 'error') && burst.includes(m.address as string));
      await ws.next('an answer per subscription', () => new Set(answered().map((m) => m.address)).size === burst.length, 10_000, from);
      const firstAnswers = burst.map((a) => answered().find((m) => m.address === a)!);
      assert.equal(firstAnswers.filter((m) => m.type === 'balance').length, 2, JSON.stringify(firstAnswers));
      assert.deepEqual(firstAnswers.filter((m) => m.type === 'error').map((m) => m.error), Array(4).fill('subscription limit exceeded'));

      const other = await WsClient.connect(wsUrl());
      try {
        await other.next('init', (m) => m.type === 'init');
        other.send({ type: 'subscribe_balance', address: 'chain:not-an-address' });
        assert.notEqual((await other.nextNew('error', (m) => m.type === 'error')).error, 'subscription limit exceeded');
        for (const i of [77, 78]) {
          other.send({ type: 'subscribe_balance', address: wallet(i).address });
          await other.nextNew('balance', (m) => m.type === 'balance' && m.address === wallet(i).address);
        }
      } finally {
        other.close();
      }
    } finally {
      ws.close();
    }
  });

  test('rpc rate limit exceeded, then served again', async () => {
    const ws = await WsClient.connect(wsUrl());
    try {
      await ws.next('init', (m) => m.type === 'init');
      const from = ws.received.length;
      for (let i = 0; i < 8; i++) ws.send({ type: 'rpc', id: 100 + i, method: 'get_status' });
      await ws.next('8 answers', () => ws.received.slice(from).filter((m) => m.type === 'rpc_reply' || m.type === 'error').length >= 8, 10_000, from);
      const answers = ws.received.slice(from).filter((m) => m.type === 'rpc_reply' || m.type === 'error');
      const limited = answers.filter((m) => m.type === 'error');
      // 3 per second: a burst of 8 inside one window gets 3 answers (more only if the burst
      // straddled a window boundary on a very slow machine) and the rest the limit error.
      const served = answers.filter((m) => m.type === 'rpc_reply').length;
      assert.ok(served >= 3 && served <= 6, `served ${served}`);
      assert.equal(limited.length, 8 - served);
      for (const m of limited) assert.equal(m.error, 'rpc rate limit exceeded');
      // The budget is per second: the next window serves again (this is the one wait in the suite).
      await new Promise((r) => setTimeout(r, 1100));
      assert.equal((await ws.rpc('get_status')).error, null);
    } finally {
      ws.close();
    }
  });

  test('a burst of malformed frames: one error each, server and connection keep working', async () => {
    const ws = await WsClient.connect(wsUrl());
    try {
      await ws.next('init', (m) => m.type === 'init');
      const from = ws.received.length;
      const bad = ['{', 'null', '42', '"str"', '[]', '{"type":7}', '{"type":"rpc","method":9}', '{"type":"rpc","method":"get_status","params":"x"}', '\u0000\u0001', '{"type":"nope"}'];
      for (let i = 0; i < 50; i++) ws.send(bad[i % bad.length]!);
      ws.ws.send(Buffer.from('{"no":"type"}'), { binary: true });
      const isAnswer = (m: { type: string }): boolean => m.type === 'error' || m.type === 'rpc_reply';
      await ws.next('51 answers', () => ws.received.slice(from).filter(isAnswer).length >= 51, 10_000, from);
      const answers = ws.received.slice(from).filter(isAnswer);
      assert.equal(answers.length, 51, 'one answer per frame');
      assert.ok(answers.every((m) => m.type === 'error' || typeof m.error === 'string'), JSON.stringify(answers.slice(0, 5)));
      assert.equal(ws.closed, false);
      assert.equal((await getJson(`${gw.url}/health`)).status, 200);
      await new Promise((r) => setTimeout(r, 1100)); // the rpc budget of this connection was spent by the burst
      assert.equal((await ws.rpc('get_status')).error, null);
    } finally {
      ws.close();
    }
  });

  test('contract audit: every request spends the AI budget, whatever its answer (decisions.md §52)', async () => {
    // AI_RL_MAX_RPM is 2 here. '00' is no WebAssembly module: a node with the analyzer answers 400,
    // one without it 503 (contract analysis not enabled); either way both count, and the third is 429.
    for (let i = 0; i < 2; i++) {
      const r = await postJson(`${gw.url}/api/v1/contracts/audit`, { bytecode_hex: '00' });
      assert.ok(r.status === 400 || r.status === 503, JSON.stringify(r.body));
      if (r.status === 503) assert.equal(r.body.error, 'contract analysis is not enabled on this network');
    }
    const over = await fetch(`${gw.url}/api/v1/contracts/audit`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ source: 'fn main() {}' }) });
    assert.equal(over.status, 429, 'a refused body would be 400, but the budget is checked first');
    assert.ok(Number(over.headers.get('retry-after')) >= 1);
    assert.equal(((await over.json()) as { error: string }).error, 'rate limit exceeded');
  });

  test('faucet cooldown per address and per IP (memory store)', async () => {
    const a = wallet(61);
    const b = wallet(62);
    const first = await postJson(`${gw.url}/api/v1/faucet`, { address: a.address, public_key: a.publicKeyHex });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    const again = await postJson(`${gw.url}/api/v1/faucet`, { address: a.address, public_key: a.publicKeyHex });
    assert.equal(again.status, 429);
    assert.match(again.body.error as string, /faucet cooldown/);
    assert.ok((again.body.retry_after as number) > 0);
    const sameIp = await postJson(`${gw.url}/api/v1/faucet`, { address: b.address, public_key: b.publicKeyHex });
    assert.equal(sameIp.status, 429, 'another address from the same IP waits too');
    // A body that fails validation is 400 (part 2), cooldown or not: it is refused before any is taken.
    for (const bad of [{ address: 'bogus', public_key: b.publicKeyHex }, { address: b.address }, { address: b.address, public_key: 'abcd' }]) {
      const r = await postJson(`${gw.url}/api/v1/faucet`, bad);
      assert.equal(r.status, 400, `${JSON.stringify(bad).slice(0, 80)}: ${JSON.stringify(r.body)}`);
    }
    assert.equal((await postJson(`${gw.url}/api/v1/faucet`, { address: b.address, public_key: b.publicKeyHex })).status, 429, 'and took no cooldown away');
    assert.equal((await getJson(`${gw.url}/health`)).body.faucet_cooldown_store, 'memory');
  });

  test('global rate limit: GLOBAL_RL_MAX_RPS per IP answers 429', async () => {
    const limited = await startGatewayProcess({ NODE_RPC_URL: node.url, GLOBAL_RL_MAX_RPS: '5' });
    try {
      const res = await Promise.all(Array.from({ length: 15 }, () => fetch(`${limited.url}/api/v1/gas/estimate`).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }))));
      const over = res.filter((r) => r.status === 429);
      assert.ok(over.length >= 5, `statuses: ${res.map((r) => r.status).join(',')}`);
      assert.equal(over[0]!.body.error, 'rate limit exceeded');
      assert.ok(res.some((r) => r.status === 200));
    } finally {
      await limited.stop();
    }
  });

  test('bad configuration stops start-up naming the variable', () => {
    // The rest of the variables are checked in-process (gateway-plugins.test.ts); these two run the
    // real command: exit code 2, and a variable the node config loader also reads is still named.
    for (const [name, value] of [['PORT', 'abc'], ['CHAIN_HTTP_BACKEND', 'fast']] as const) {
      const r = spawnSync(process.execPath, [CLI, 'gateway'], { env: { ...process.env, [name]: value }, encoding: 'utf8', timeout: 30_000 });
      assert.equal(r.status, 2, `${name}=${value}: ${r.stderr}`);
      assert.match(r.stderr, new RegExp(name), r.stderr);
    }
  });
});
