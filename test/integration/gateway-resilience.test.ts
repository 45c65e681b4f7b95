import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { signTransfer, wallet, type Wallet } from '../helpers/chain-fixture.js';
import { getJson, postJson, startNodeProcess, startShardNodes, until, waitConfirmed, type NodeHandle } from '../helpers/node-process.js';
import { tempDir } from '../helpers/temp-dir.js';
import { shardOf } from '../../kernel/crypto/fnv.js';
import { freePort, startGatewayProcess, startNodeAt, WsClient, type ProcessHandle } from '../../plugins/gateway/testing/process.js';

/** Node outages, a node answering garbage, shard routing of submissions and failover. */
describe('gateway resilience and routing', () => {
  const cleanup: Array<() => Promise<void>> = [];
  after(async () => {
    for (const fn of cleanup.reverse()) await fn().catch(() => undefined);
  });

  test('survives a node restart: 503 while down, serving (and socket events) after', async () => {
    const port = await freePort();
    const dir = tempDir('gw-restart-');
    let node = await startNodeAt(port, dir);
    cleanup.push(() => node.stop());
    const gw = await startGatewayProcess({ NODE_RPC_URL: node.url });
    cleanup.push(() => gw.stop());
    const ws = await WsClient.connect(`${gw.url.replace('http', 'ws')}/ws`);
    cleanup.push(async () => ws.close());
    await ws.next('init', (m) => m.type === 'init');
    const before = (await ws.nextNew('new_block', (m) => m.type === 'new_block')).data as { height: number };

    await node.stop();
    const down = await postJson(`${gw.url}/api/v1/transactions`, { from: wallet(1).address });
    assert.equal(down.status, 503);
    assert.equal(down.body.error, 'no node reachable');
    assert.equal((await getJson(`${gw.url}/api/v1/blocks/999999`)).status, 503, 'uncached reads are 503 too');
    // /health reports the poller's view, which notices the outage within one poll interval.
    const health = await until('health to report the outage', async () => {
      const h = await getJson(`${gw.url}/health`);
      return h.status === 503 ? h : undefined;
    });
    assert.equal(health.body.status, 'node_unreachable');
    ws.send({ type: 'rpc', id: 'x', method: 'get_block', params: { height: 999999 } });
    assert.equal((await ws.nextNew('rpc reply while down', (m) => m.id === 'x')).error, 'no node reachable');

    node = await startNodeAt(port, dir);
    const resumed = await ws.nextNew('new_block after restart', (m) => m.type === 'new_block' && (m.data as { height: number }).height > before.height, 20_000);
    assert.ok(resumed);
    const heights = ws.received.filter((m) => m.type === 'new_block').map((m) => (m.data as { height: number }).height);
    heights.forEach((h, i) => i > 0 && assert.equal(h, heights[i - 1]! + 1, `no height skipped across the restart: ${heights.join(',')}`));
    // The outage is seen by ECONNREFUSED, at once; the default 5 s node timeout leaves a loaded
    // machine time to answer the first reads after the restart.
    await until('health to report the node back', async () => ((await getJson(`${gw.url}/health`)).status === 200 ? true : undefined));
    assert.equal((await getJson(`${gw.url}/api/v1/blocks/1`)).status, 200);
  });

  test('a node answering something that is not JSON gives 502', async () => {
    const fake: Server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>oops</html>');
    });
    await new Promise<void>((r) => fake.listen(0, '127.0.0.1', () => r()));
    cleanup.push(() => new Promise((r) => fake.close(() => r())));
    const addr = fake.address();
    const gw = await startGatewayProcess({ NODE_RPC_URL: `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}` });
    cleanup.push(() => gw.stop());
    const r = await getJson(`${gw.url}/api/v1/blocks/1`);
    assert.equal(r.status, 502);
    assert.equal(typeof r.body.error, 'string');
  });

  test('a submission answered with sentinel fields raises tx and tx_anomaly', async () => {
    const hash = `0x${'cd'.repeat(32)}`;
    const fake: Server = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      if (req.method === 'POST' && req.url === '/api/v1/transactions') {
        return res.end(JSON.stringify({ tx_hash: hash, status: 'pending', estimated_block: 2, sender_balance: 10, sender_balance_human: '0.00001 COIN', receiver_balance: 0, receiver_balance_human: '0 COIN', sentinel_score: 0.91, sentinel_category: 'drain', sentinel_warning: 'unusual transfer' }));
      }
      if (req.url === '/health') return res.end(JSON.stringify({ status: 'ok', height: 1, round: 0, mempool: 0, peers: 0, tps: 0, total_txs: 0, validator_count: 1, finality_ms: 0 }));
      if (req.url === '/api/v1/gas/estimate') return res.end(JSON.stringify({ base_fee: 3 }));
      res.end(JSON.stringify({ blocks: [], transactions: [] }));
    });
    await new Promise<void>((r) => fake.listen(0, '127.0.0.1', () => r()));
    cleanup.push(() => new Promise((r) => fake.close(() => r())));
    const addr = fake.address();
    const gw = await startGatewayProcess({ NODE_RPC_URL: `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}` });
    cleanup.push(() => gw.stop());
    const ws = await WsClient.connect(`${gw.url.replace('http', 'ws')}/ws`);
    cleanup.push(async () => ws.close());
    await ws.next('init', (m) => m.type === 'init');
    const from = wallet(3).address;
    const r = await postJson(`${gw.url}/api/v1/transactions`, { from, to: wallet(4).address, value: 5, nonce: 1, signature: 'ab', public_key: 'cd' });
    assert.equal(r.status, 200);
    assert.equal(r.body.sentinel_score, 0.91, 'the node answer is passed through');
    const tx = await ws.next('tx', (m) => m.type === 'tx');
    assert.equal((tx.data as Record<string, unknown>).hash, hash);
    assert.equal((tx.data as Record<string, unknown>).block, 2);
    assert.equal((tx.data as Record<string, unknown>).gas_price, 3, 'a node answer without gas_price: the base_fee the gateway reads');
    const anomaly = await ws.next('tx_anomaly', (m) => m.type === 'tx_anomaly');
    assert.deepEqual(anomaly.data, { tx_hash: hash, score: 0.91, category: 'drain', warning: 'unusual transfer' });
  });

  test('GET /api/v1/shards lists every shard\'s height and root from its own node; a dead shard is marked', async () => {
    const [a, b] = (await startShardNodes(2, { CHAIN_HTTP_BACKEND: 'node', CHAIN_RPC_RATE_LIMIT: '100000' })) as [NodeHandle, NodeHandle];
    cleanup.push(() => a.stop(), () => b.stop());
    const gw = await startGatewayProcess({ NODE_RPC_URL: a.url, CHAIN_SHARD_NODES: `0=${a.url},1=${b.url}` });
    cleanup.push(() => gw.stop());
    const own = async (n: NodeHandle): Promise<Record<string, unknown>> => ((await getJson(`${n.url}/api/v1/shards`)).body.shards as Array<Record<string, unknown>>)[0]!;
    assert.equal((await own(b)).shard, 1, 'CHAIN_SHARD_ID is the shard a node serves');
    const r = await getJson(`${gw.url}/api/v1/shards`);
    assert.equal(r.status, 200);
    assert.equal(r.body.n_shards, 2);
    const listed = r.body.shards as Array<Record<string, unknown>>;
    assert.deepEqual(listed.map((e) => [e.shard, e.reachable]), [[0, true], [1, true]]);
    // Each entry is what that shard's node reports (at most one poll interval old).
    for (const [i, n] of [a, b].entries()) {
      const now = await own(n);
      assert.ok((listed[i]!.height as number) <= (now.height as number) && (listed[i]!.height as number) > 0);
      assert.match(listed[i]!.state_root as string, /^0x[0-9a-f]{64}$/);
    }
    await b.stop();
    const down = await until('shard 1 reported unreachable', async () => {
      const d = await getJson(`${gw.url}/api/v1/shards`);
      return (d.body.shards as Array<Record<string, unknown>>)[1]!.reachable === false ? d : undefined;
    });
    assert.equal(down.status, 200);
    assert.equal((down.body.shards as Array<Record<string, unknown>>)[0]!.reachable, true, 'the other shard is still listed');
    assert.equal((down.body.shards as Array<Record<string, unknown>>)[1]!.error, 'no node reachable');
  });

  test('submissions go to the node of the sender\'s shard; a dead node of a shard fails over', async () => {
    const [a, b] = await Promise.all([startNodeProcess({ env: { CHAIN_HTTP_BACKEND: 'node', CHAIN_RPC_RATE_LIMIT: '100000' } }), startNodeProcess({ env: { CHAIN_HTTP_BACKEND: 'node', CHAIN_RPC_RATE_LIMIT: '100000' } })]);
    cleanup.push(() => a.stop(), () => b.stop());
    const gw = await startGatewayProcess({ NODE_RPC_URL: a.url, CHAIN_SHARD_NODES: `0=${a.url},1=${b.url}` });
    cleanup.push(() => gw.stop());

    const pick = (shard: number): Wallet => {
      for (let i = 80; i < 120; i++) if (shardOf(wallet(i).address, 2) === shard) return wallet(i);
      throw new Error(`no wallet in shard ${shard}`);
    };
    const w0 = pick(0);
    const w1 = pick(1);
    const owner = (n: NodeHandle): string => (n === a ? 'A' : 'B');
    for (const [w, home, other] of [[w0, a, b], [w1, b, a]] as const) {
      const f = await postJson(`${gw.url}/api/v1/faucet`, { address: w.address, public_key: w.publicKeyHex });
      assert.equal(f.status, 200, JSON.stringify(f.body));
      assert.equal((await waitConfirmed(home.url, f.body.tx_hash as string)).status, 'confirmed', `faucet for shard ${shardOf(w.address, 2)} reached node ${owner(home)}`);
      assert.equal((await getJson(`${other.url}/api/v1/transactions/${f.body.tx_hash}`)).status, 404);
    }
    const t = await postJson(`${gw.url}/api/v1/transactions`, signTransfer(w1, { to: w0.address, value: 1000, nonce: 1 }));
    assert.equal(t.status, 200, JSON.stringify(t.body));
    assert.equal((await waitConfirmed(b.url, t.body.tx_hash as string)).status, 'confirmed');
    const acct = await until('shard-1 account read through the gateway', async () => {
      const r = await getJson(`${gw.url}/api/v1/accounts/${w1.address}`);
      return r.body.nonce === 1 ? r : undefined;
    });
    assert.equal(acct.body.balance, 50_000_000 - 1000 - 21, 'account reads go to the owning shard too');

    const dead = await freePort();
    const fo = await startGatewayProcess({ NODE_RPC_URL: a.url, SHARD_NODE_URLS: `http://127.0.0.1:${dead}|${a.url}` });
    cleanup.push(() => fo.stop());
    const w = wallet(121);
    const f = await postJson(`${fo.url}/api/v1/faucet`, { address: w.address, public_key: w.publicKeyHex });
    assert.equal(f.status, 200, 'the second node of the shard answered');
    await waitConfirmed(a.url, f.body.tx_hash as string);
    const s = await postJson(`${fo.url}/api/v1/transactions`, signTransfer(w, { to: w0.address, value: 5, nonce: 1 }));
    assert.equal(s.status, 200, JSON.stringify(s.body));
  });
});
