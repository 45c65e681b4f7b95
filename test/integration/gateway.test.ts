import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { spawn, spawnSync } from 'node:child_process';
import { signOperation, signTransfer, wallet, type Wallet } from '../helpers/chain-fixture.js';
import { genesisHash } from '../../kernel/chain/block-hash.js';
import type { GenesisDoc } from '../../kernel/config/genesis.js';
import { getJson, postJson, startNodeProcess, until, waitConfirmed, type NodeHandle } from '../helpers/node-process.js';
import { freePort, startGatewayProcess, WsClient, type Msg, type ProcessHandle } from '../../plugins/gateway/testing/process.js';
import { DEFAULT_KV_STORE_URL, loadGatewayConfig } from '../../plugins/gateway/config.js';
import { createGatewayServices } from '../../plugins/gateway/services.js';
import { redisProblem } from '../../plugins/gateway/faucet-cooldown.js';
import { toHex } from '../../kernel/sdk.js';
import { templateBytecode } from '../../plugins/contracts/templates.js';

const DEPLOY = 'chain:system.deploy';

/** Whether a Redis answers PING at `url` (one try). */
const redisAnswers = async (url: string): Promise<boolean> => (await redisProblem(url)) === undefined;

/**
 * The gateway's cooldown store when KV_STORE_URL is unset, booted in process with the default
 * address replaced by `url` (the code path of the unset variable, pointed elsewhere): the backend
 * it settled on and the log lines it wrote.
 */
async function defaultStoreAt(nodeUrl: string, url: string): Promise<{ backend: string; lines: string[] }> {
  const lines: string[] = [];
  const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
  const config = { ...loadGatewayConfig({ NODE_RPC_URL: nodeUrl, FAUCET_COOLDOWN_SECS: '30' }), kvStore: { kind: 'default', url } as const };
  const core = createGatewayServices(config, log, []);
  try {
    await core.booted();
    return { backend: core.services.cooldown.backend, lines };
  } finally {
    await core.close();
  }
}

/**
 * decisions.md §88: every figure of the summary recomputed here from the node's own blocks and
 * registry at the height the summary names (blocks up to it never change), none descriptive.
 */
async function networkStatusIsMeasured(gatewayUrl: string, nodeUrl: string): Promise<void> {
  await until('block 3', async () => (((await getJson(`${nodeUrl}/health`)).body.height as number) >= 3 ? true : undefined));
  const ns = (await getJson(`${gatewayUrl}/api/v1/network/status`)).body;
  assert.equal(ns.descriptive_fields, undefined);
  const status = (await getJson(`${nodeUrl}/api/v1/status`)).body;
  for (const f of ['chain_id', 'genesis_hash']) assert.equal(ns[f], status[f], f);
  const genesis = await getJson(`${gatewayUrl}/api/v1/genesis`);
  assert.deepEqual(genesis, await getJson(`${nodeUrl}/api/v1/genesis`), 'the gateway serves the genesis the node loaded');
  assert.equal(genesisHash(genesis.body as unknown as GenesisDoc), status.genesis_hash);
  assert.equal(ns.shard_count, 1);
  assert.equal(ns.validator_count, status.validator_count);
  for (const alg of ['ML-DSA-65', 'ML-KEM-768', 'SHA3-256']) assert.ok((ns.crypto as string[]).includes(alg), alg);
  const wasm = await getJson(`${gatewayUrl}/api/v1/wasm/version`);
  assert.equal(wasm.status, 200, 'the build serves the browser crypto module');
  assert.equal(ns.wasm_version, wasm.body.version, 'wasm_version is the version of the module this gateway serves');
  const top = ns.height as number;
  assert.ok(top >= 2, `the summary is at height ${top}`);
  const blocks = new Map<number, { timestamp: number; tx_count: number }>();
  for (let h = 1; h <= top; h++) blocks.set(h, (await getJson(`${nodeUrl}/api/v1/blocks/${h}`)).body as { timestamp: number; tx_count: number });
  const gaps = [];
  for (let h = Math.max(2, top - 98); h <= top; h++) gaps.push(blocks.get(h)!.timestamp - blocks.get(h - 1)!.timestamp);
  gaps.sort((a, b) => a - b);
  const mid = gaps.length >> 1;
  assert.equal(ns.block_time_ms, gaps.length % 2 ? gaps[mid] : Math.floor((gaps[mid - 1]! + gaps[mid]!) / 2));
  const tpsAt = (h: number): number => {
    const from = Math.max(1, h - 10);
    let txs = 0;
    for (let x = from + 1; x <= h; x++) txs += blocks.get(x)!.tx_count;
    return (txs * 1000) / (blocks.get(h)!.timestamp - blocks.get(from)!.timestamp);
  };
  assert.equal(ns.tps, tpsAt(top));
  assert.equal(ns.tps_peak, Math.max(...Array.from({ length: top - 1 }, (_, i) => tpsAt(i + 2))));
  const models = ((await getJson(`${nodeUrl}/api/v1/models/registry?limit=100`)).body.models as Array<{ status: string }>);
  assert.deepEqual(ns.ai_models, { active: models.filter((m) => m.status === 'active').length, pending: models.filter((m) => m.status === 'pending').length });
  assert.ok(models.length > 0, 'the devnet registers its genesis models');
}

/**
 * The gateway as a client sees it, on each HTTP backend: a real node and a real `chain gateway`
 * process on loopback, a real WebSocket client. Events are awaited, never slept for.
 */
for (const backend of ['uws', 'node'] as const) {
  describe(`gateway (${backend} backend)`, () => {
    let node: NodeHandle;
    let gw: ProcessHandle;
    const alice = wallet(backend === 'uws' ? 41 : 42);
    const bob = wallet(backend === 'uws' ? 43 : 44);

    before(async () => {
      node = await startNodeProcess({ env: { CHAIN_HTTP_BACKEND: 'node', CHAIN_RPC_RATE_LIMIT: '100000' } });
      // The limits are gateway-limits.test.ts's subject; here a retried read may send dozens of socket rpcs in a second.
      gw = await startGatewayProcess({ NODE_RPC_URL: node.url, CHAIN_HTTP_BACKEND: backend, NETWORK_ID: 'gw-test-net', GLOBAL_RL_MAX_RPS: '100000', WS_RPC_MAX_RPS: '100000' });
      // The tests read block 1; a node descheduled during start-up may not have committed it yet.
      await until('block 1', async () => (((await getJson(`${node.url}/health`)).body.height as number) >= 1 ? true : undefined));
    });
    after(async () => {
      await gw?.stop();
      await node?.stop();
    });

    test('health, latest block, network status, metrics and proxied reads', async () => {
      assert.ok(gw.logs.some((l) => l.includes(`(${backend} backend)`)), 'backend choice is logged');
      const h = await getJson(`${gw.url}/health`);
      assert.equal(h.status, 200);
      for (const f of ['status', 'network', 'height', 'peers', 'round', 'mempool']) assert.ok(f in h.body, `health has ${f}`);
      assert.equal(h.body.network, 'gw-test-net');
      assert.equal(h.body.status, 'ok');

      const latest = await getJson(`${gw.url}/api/v1/blocks/latest`);
      assert.equal(latest.status, 200);
      const block = latest.body.block as Record<string, unknown>;
      assert.equal(typeof block.height, 'number');

      const direct = await getJson(`${node.url}/api/v1/blocks/1`);
      const via = await getJson(`${gw.url}/api/v1/blocks/1`);
      assert.deepEqual(via, direct, 'a proxied read carries the node status and body unchanged');
      for (const p of ['/api/v1/gas/estimate', '/api/v1/state/root', '/api/v1/governance/params', `/api/v1/accounts/${alice.address}`, '/api/v1/blocks/1/transactions', '/api/v1/transactions?limit=5', `/api/v1/accounts/${alice.address}/transactions`, '/api/v1/checkpoints', '/api/v1/shards']) {
        assert.equal((await getJson(`${gw.url}${p}`)).status, 200, p);
      }
      // The 404 names the latest height, which moves every 250 ms: the gateway's answer is
      // compared with node reads on both sides of it that agree, so a block in between cannot
      // make equal bodies differ.
      for (let attempt = 1; ; attempt++) {
        const before = await getJson(`${node.url}/api/v1/blocks/999999`);
        const missing = await getJson(`${gw.url}/api/v1/blocks/999999`);
        const after = await getJson(`${node.url}/api/v1/blocks/999999`);
        if (attempt < 20 && before.body.error !== after.body.error) continue;
        assert.equal(missing.status, 404);
        assert.deepEqual(missing.body, before.body);
        break;
      }
      const bad = await getJson(`${gw.url}/api/v1/accounts/not-an-address`);
      assert.equal(bad.status, 400, 'node errors pass through');

      await networkStatusIsMeasured(gw.url, node.url);

      const m = await fetch(`${gw.url}/metrics`);
      assert.match(m.headers.get('content-type') ?? '', /text\/plain/);
      const text = await m.text();
      assert.match(text, /^gateway_node_height \d+/m);
      assert.match(text, /gateway_proxied_requests_total\{route="\/api\/v1\/blocks\/:height",status="200"\}/);
    });

    test('socket: init first, then new_block for every height in order, equal to GET /blocks/:height', async () => {
      const ws = await WsClient.connect(`${gw.url.replace('http', 'ws')}/ws`);
      try {
        const init = await ws.next('init', () => true);
        assert.equal(init.type, 'init', 'the first message is init');
        const data = init.data as Record<string, unknown>;
        for (const f of ['height', 'tps', 'finality_ms', 'shard_count', 'validator_count', 'blocks', 'txs', 'total_blocks', 'total_txs']) assert.ok(f in data, `init has ${f}`);
        assert.ok(Array.isArray(data.blocks) && data.blocks.length > 0);
        assert.equal(data.validator_count, 1);

        const blocks: Msg[] = [];
        const first = await ws.next('a new_block', (m) => m.type === 'new_block');
        blocks.push(first);
        const h0 = (first.data as { height: number }).height;
        for (let h = h0 + 1; h < h0 + 4; h++) blocks.push(await ws.next(`new_block ${h}`, (m) => m.type === 'new_block' && (m.data as { height: number }).height === h));
        const heights = ws.received.filter((m) => m.type === 'new_block').map((m) => (m.data as { height: number }).height);
        heights.forEach((h, i) => i > 0 && assert.equal(h, heights[i - 1]! + 1, `heights in order without gaps: ${heights.join(',')}`));
        for (const b of blocks) {
          const rest = await getJson(`${gw.url}/api/v1/blocks/${(b.data as { height: number }).height}`);
          assert.deepEqual(b.data, rest.body);
        }
        assert.ok(ws.received.some((m) => m.type === 'metrics' && typeof (m.data as Record<string, unknown>).tps === 'number'), 'metrics every poll');
        if (backend === 'node') {
          // Every 10 blocks (empty blocks come every 250 ms here, so this is at most ~2.5 s).
          const vu = await ws.next('validator_update', (m) => m.type === 'validator_update');
          const d = vu.data as { nodes: Array<Record<string, unknown>>; total_staked: number; height: number };
          assert.equal(d.height % 10, 0);
          assert.equal(d.nodes.length, 1);
          assert.equal(d.nodes[0]!.address, 'chain:validator-0.node');
          assert.equal(d.total_staked, 10_000_000_000);
          // The node's own list: stake and its count of the validator's blocks, not a gateway copy of power.
          assert.equal(d.nodes[0]!.stake, 10_000_000_000);
          assert.ok((d.nodes[0]!.blocks_proposed as number) >= d.height - 1, JSON.stringify(d.nodes[0]));
          for (const f of ['trust_score', 'votes_cast', 'last_active']) assert.equal(typeof d.nodes[0]![f], 'number', f);
        }
      } finally {
        ws.close();
      }
    });

    test('balance subscription sees the faucet credit and a transfer; no stale balance after a block', async () => {
      const ws = await WsClient.connect(`${gw.url.replace('http', 'ws')}/ws`);
      try {
        await ws.next('init', (m) => m.type === 'init');
        // Prime the gateway cache with the empty account: it must not outlive the next block.
        assert.equal((await getJson(`${gw.url}/api/v1/accounts/${alice.address}`)).body.balance, 0);
        ws.send({ type: 'subscribe_balance', address: alice.address });
        const b0 = await ws.next('initial balance', (m) => m.type === 'balance');
        assert.deepEqual(Object.keys(b0).sort(), ['address', 'balance', 'balance_human', 'nonce', 'type']);
        assert.equal(b0.balance, 0);

        const f = await postJson(`${gw.url}/api/v1/faucet`, { address: alice.address, public_key: alice.publicKeyHex });
        assert.equal(f.status, 200, JSON.stringify(f.body));
        const fe = await ws.next('faucet event', (m) => m.type === 'faucet');
        assert.deepEqual(fe.data, { address: alice.address, amount: 50_000_000, tx_hash: f.body.tx_hash });
        await ws.next('credited balance', (m) => m.type === 'balance' && m.balance === 50_000_000);
        assert.equal((await getJson(`${gw.url}/api/v1/accounts/${alice.address}`)).body.balance, 50_000_000, 'REST agrees once the block is announced');

        const tx = signTransfer(alice, { to: bob.address, value: 1_000_000, nonce: 1 });
        const sent = await postJson(`${gw.url}/api/v1/transactions`, tx);
        assert.equal(sent.status, 200, JSON.stringify(sent.body));
        const te = await ws.next('tx event', (m) => m.type === 'tx');
        const td = te.data as Record<string, unknown>;
        assert.equal(td.hash, sent.body.tx_hash);
        assert.equal(td.from, alice.address);
        assert.equal(td.to, bob.address);
        assert.equal(td.value, 1_000_000);
        for (const k of ['gas', 'gas_price', 'shard', 'timestamp', 'block']) assert.ok(k in td, `tx event has ${k}`);
        assert.equal(sent.body.gas_price, 1, 'the node names the price it admitted at');
        assert.equal(td.gas_price, 1, 'omitted gas_price: the event carries base_fee (decisions.md §9), not null');
        const after = await ws.next('balance after transfer', (m) => m.type === 'balance' && m.balance === 50_000_000 - 1_000_000 - 21);
        assert.equal(after.nonce, 1);
        assert.equal(after.balance_human, '48.999979 COIN');
        const conf = await getJson(`${gw.url}/api/v1/transactions/${sent.body.tx_hash}`);
        assert.equal(conf.body.status, 'confirmed');
        assert.equal((await getJson(`${gw.url}/api/v1/tx/${sent.body.tx_hash}/proof`)).status, 200);
      } finally {
        ws.close();
      }
    });

    test('socket rpc methods mirror REST; unknown methods and bad frames get errors', async () => {
      const ws = await WsClient.connect(`${gw.url.replace('http', 'ws')}/ws`);
      try {
        await ws.next('init', (m) => m.type === 'init');
        const block = await ws.rpc('get_block', { height: 1 });
        assert.equal(block.type, 'rpc_reply');
        assert.equal(block.error, null);
        assert.deepEqual(block.result, (await getJson(`${gw.url}/api/v1/blocks/1`)).body);
        const status = await ws.rpc('get_status');
        assert.equal((status.result as Record<string, unknown>).network, 'gw-test-net');
        for (const [method, params] of [
          ['get_blocks', { limit: 2 }],
          ['get_block_txs', { height: 1 }],
          ['get_txs', { limit: 2 }],
          ['get_account', { address: alice.address }],
          ['get_validators', {}],
          ['get_validator', { address: 'chain:validator-0.node' }],
        ] as const) {
          const r = await ws.rpc(method, params);
          assert.equal(r.error, null, `${method}: ${JSON.stringify(r)}`);
        }
        // GET /api/v1/validators is proxied, and the socket methods return the same list and entry.
        // A block between two reads changes the list (height, counts): retried until they agree.
        for (let attempt = 1; ; attempt++) {
          const rest = await getJson(`${gw.url}/api/v1/validators`);
          const direct = await getJson(`${node.url}/api/v1/validators`);
          const viaRpc = await ws.rpc('get_validators');
          const one = await ws.rpc('get_validator', { address: 'chain:validator-0.node' });
          const same = JSON.stringify(rest.body) === JSON.stringify(direct.body) && JSON.stringify(viaRpc.result) === JSON.stringify(rest.body);
          if (!same && attempt < 20) continue;
          assert.equal(rest.status, 200);
          assert.deepEqual(rest.body, direct.body);
          assert.deepEqual(viaRpc.result, rest.body);
          assert.deepEqual(one.result, (rest.body.validators as unknown[])[0]);
          for (const f of ['stake', 'trust_score', 'blocks_proposed', 'votes_cast', 'last_active']) assert.ok(f in (one.result as Record<string, unknown>), `get_validator has ${f}`);
          break;
        }
        assert.match((await ws.rpc('get_validator', { address: 'chain:nobody.node' })).error as string, /not in the active set/);
        const missing = await ws.rpc('search_tx', { hash: `0x${'ab'.repeat(32)}` });
        assert.match(missing.error as string, /not found/);
        const unknown = await ws.rpc('no_such_method');
        assert.equal(unknown.type, 'rpc_reply');
        assert.equal(unknown.result, null);
        assert.match(unknown.error as string, /unknown method/);
        // Write methods carry signature, public_key and nonce inside params (part 2): the faucet takes them.
        const faucet = await ws.rpc('faucet', { address: bob.address, public_key: bob.publicKeyHex, signature: 'ab'.repeat(3309), nonce: Date.now() });
        assert.equal(faucet.error, null, JSON.stringify(faucet));
        await ws.next('faucet event from rpc', (m) => m.type === 'faucet' && (m.data as Record<string, unknown>).address === bob.address);

        ws.send('not json');
        assert.match((await ws.nextNew('error', (m) => m.type === 'error')).error as string, /malformed/);
        ws.send('[1,2]');
        assert.match((await ws.nextNew('error', (m) => m.type === 'error')).error as string, /malformed/);
        ws.send({ type: 'dance' });
        assert.match((await ws.nextNew('error', (m) => m.type === 'error')).error as string, /unknown message type/);
        assert.equal((await ws.rpc('get_status')).error, null, 'still serving after errors');
      } finally {
        ws.close();
      }
    });

    test('validators and a block\'s transactions: the node\'s §20 paging through REST and the socket', async () => {
      const ws = await WsClient.connect(`${gw.url.replace('http', 'ws')}/ws`);
      try {
        await ws.next('init', (m) => m.type === 'init');
        // A block between two reads changes the list's figures: retried until node and gateway agree.
        for (let attempt = 1; ; attempt++) {
          const direct = await getJson(`${node.url}/api/v1/validators?limit=1&page=2`);
          const via = await getJson(`${gw.url}/api/v1/validators?limit=1&page=2`);
          if (JSON.stringify(via.body) !== JSON.stringify(direct.body) && attempt < 20) continue;
          assert.deepEqual(via.body, direct.body);
          assert.deepEqual([via.body.total, via.body.limit, via.body.offset, via.body.has_more, (via.body.validators as unknown[]).length], [1, 1, 1, false, 0]);
          break;
        }
        const first = await ws.rpc('get_validators', { limit: 1 });
        assert.deepEqual(((first.result as Msg).validators as Array<{ address: string }>).map((v) => v.address), ['chain:validator-0.node']);
        assert.deepEqual([(first.result as Msg).total, (first.result as Msg).limit, (first.result as Msg).has_more], [1, 1, false]);
        const txs = await getJson(`${gw.url}/api/v1/blocks/1/transactions?limit=5&offset=0`);
        assert.deepEqual(txs, await getJson(`${node.url}/api/v1/blocks/1/transactions?limit=5&offset=0`));
        for (const f of ['total', 'limit', 'offset', 'has_more']) assert.ok(f in txs.body, `block transactions have ${f}`);
        const viaSocket = await ws.rpc('get_block_txs', { height: 1, limit: 5 });
        assert.equal((viaSocket.result as Msg).limit, 5, 'get_block_txs passes limit/offset/page on');
      } finally {
        ws.close();
      }
    });

    test('POST /api/v1/contracts/deploy is node only (404 here, nothing forwarded); sentinel/score is served by both', async () => {
      const dave = wallet(backend === 'uws' ? 47 : 48);
      // A REST client may send the signed fields of a socket write method too: the faucet ignores them (undocumented: an unsigned write).
      const f = await postJson(`${gw.url}/api/v1/faucet`, { address: dave.address, public_key: dave.publicKeyHex, signature: 'cd'.repeat(3309), nonce: Date.now() });
      assert.equal(f.status, 200, JSON.stringify(f.body));
      await waitConfirmed(node.url, f.body.tx_hash as string);
      const signed = signOperation(dave, { actor: dave.address, target: DEPLOY, nonce: Date.now(), body: { owner: dave.address, bytecode_hex: toHex(templateBytecode('token.wasm')), name: 'node only' } });
      const refused = await postJson(`${gw.url}/api/v1/contracts/deploy`, signed);
      assert.equal(refused.status, 404, JSON.stringify(refused.body));
      assert.match(refused.body.error as string, /Node only/);
      // Had the gateway forwarded it, the node would refuse the same signed body (its nonce is spent).
      const direct = await postJson(`${node.url}/api/v1/contracts/deploy`, signed);
      assert.equal(direct.status, 200, `the node still takes the very body the gateway refused: ${JSON.stringify(direct.body)}`);

      const shape = { value: 850_000, gas_price: 1, nonce: 5, last_nonce: 4, balance: 1_000_000, tx_count_last_10: 0, recipient_tx_count: 0, is_self_transfer: false };
      const scored = await postJson(`${gw.url}/api/v1/sentinel/score`, shape);
      assert.equal(scored.status, 200, JSON.stringify(scored.body));
      assert.deepEqual(scored.body, (await postJson(`${node.url}/api/v1/sentinel/score`, shape)).body);
      for (const f of ['score', 'anomalous', 'category']) assert.ok(f in scored.body, `score answer has ${f}`);
      const bad = await postJson(`${gw.url}/api/v1/sentinel/score`, { value: -1 });
      assert.equal(bad.status, 400);
      assert.deepEqual(bad.body, (await postJson(`${node.url}/api/v1/sentinel/score`, { value: -1 })).body);
    });

    test('tx is raised for every forwarded transaction with the estimate\'s gas: deploy (socket), call, transfer, operations (REST and socket)', async () => {
      const ws = await WsClient.connect(`${gw.url.replace('http', 'ws')}/ws`);
      try {
        await ws.next('init', (m) => m.type === 'init');
        const estimate = (await getJson(`${gw.url}/api/v1/gas/estimate`)).body;
        const ops = estimate.operations as Record<string, number>;
        const erin = wallet(backend === 'uws' ? 49 : 50);
        const owner = wallet(99); // the node's validator key (makeChainDir), owner of chain:validator-0.node
        for (const w of [erin, owner]) await waitConfirmed(node.url, (await postJson(`${gw.url}/api/v1/faucet`, { address: w.address, public_key: w.publicKeyHex })).body.tx_hash as string);
        const txEvent = (hash: unknown): Promise<Record<string, unknown>> => ws.next(`tx ${String(hash)}`, (m) => m.type === 'tx' && (m.data as Msg).hash === hash).then((m) => m.data as Record<string, unknown>);
        const plain = async (w: Wallet, to: string, value: number, nonce: number, data?: string, gasLimit?: number) => signTransfer(w, { to, value, nonce, ...(data !== undefined ? { data } : {}), ...(gasLimit !== undefined ? { gas_limit: gasLimit } : {}), version: gasLimit !== undefined ? 'v4' : 'v3' });

        // A deploy through the socket method: a plain transaction to chain:system.deploy, `to` left out.
        const { to: _omitted, ...deployParams } = await plain(erin, DEPLOY, 0, 1, JSON.stringify({ bytecode_hex: toHex(templateBytecode('token.wasm')), name: 'gw token', init_args: { name: 'G', symbol: 'GWT', decimals: 0, total_supply: '100' } }), 200);
        const wrongTo = await ws.rpc('deploy_contract', { ...deployParams, to: bob.address });
        assert.match(wrongTo.error as string, /chain:system\.deploy/);
        const deployed = await ws.rpc('deploy_contract', deployParams);
        assert.equal(deployed.error, null, JSON.stringify(deployed));
        const deployHash = (deployed.result as Msg).tx_hash;
        const de = await txEvent(deployHash);
        assert.deepEqual([de.from, de.to, de.value, de.gas], [erin.address, DEPLOY, 0, ops.deploy ?? estimate.gas_contract_call]);
        assert.equal(de.gas, 50, 'part 1: a deploy costs a contract call\'s 50 gas');
        const deployTx = await waitConfirmed(node.url, deployHash as string);
        assert.equal(deployTx.status, 'confirmed', JSON.stringify(deployTx));
        const token = (deployTx.events as Array<{ type: string; data: Msg }>).find((e) => e.type === 'contract_deployed')!.data.address as string;

        const call = await postJson(`${gw.url}/api/v1/transactions`, await plain(erin, token, 0, 2, JSON.stringify({ function: 'transfer', args: { to: bob.address, amount: '1' } })));
        assert.equal(call.status, 200, JSON.stringify(call.body));
        const ce = await txEvent(call.body.tx_hash);
        assert.deepEqual([ce.to, ce.gas], [token, estimate.gas_contract_call]);
        assert.equal(ce.gas, 50);
        const transfer = await postJson(`${gw.url}/api/v1/transactions`, await plain(erin, bob.address, 5, 3));
        assert.equal((await txEvent(transfer.body.tx_hash)).gas, estimate.gas_base_transfer);

        // An operation through its REST route: from its actor, to its Signs-for address, its signed value and its own gas.
        const deposit = await postJson(`${gw.url}/api/v1/sponsor/deposit`, signOperation(erin, { actor: erin.address, target: 'chain:system.sponsor', value: 1000, nonce: Date.now(), body: { address: erin.address, amount: 1000 } }));
        assert.equal(deposit.status, 200, JSON.stringify(deposit.body));
        const oe = await txEvent(deposit.body.tx_hash);
        assert.deepEqual([oe.from, oe.to, oe.value, oe.gas, typeof oe.gas_price, oe.block], [erin.address, 'chain:system.sponsor', 1000, ops.sponsor_deposit, 'number', deposit.body.estimated_block]);
        // And through its socket method.
        const v = 'chain:validator-0.node';
        const reg = await ws.rpc('register_model', signOperation(owner, { actor: v, target: 'chain:models.registry', nonce: Date.now(), body: { from: v, name: `gw-${backend}`, version: '1.0.0', weights_hash: `0x${'ef'.repeat(32)}`, architecture: 'logistic', params_count: 8, accuracy: 0.9 } }));
        assert.equal(reg.error, null, JSON.stringify(reg));
        const re = await txEvent((reg.result as Msg).tx_hash);
        assert.deepEqual([re.from, re.to, re.value, re.gas], [v, 'chain:models.registry', 0, ops.register_model]);
        // A refused submission is not announced.
        const refused = await postJson(`${gw.url}/api/v1/sponsor/deposit`, signOperation(erin, { actor: erin.address, target: 'chain:system.sponsor', value: 1, nonce: 1_000_000_000_001, body: { address: erin.address, amount: 1 } }));
        assert.equal(refused.status, 400, JSON.stringify(refused.body));
        const sentTx = ws.received.filter((m) => m.type === 'tx').map((m) => (m.data as Msg).hash);
        assert.deepEqual(sentTx.filter((h) => [deployHash, call.body.tx_hash, transfer.body.tx_hash, deposit.body.tx_hash, (reg.result as Msg).tx_hash].includes(h)).length, 5, 'each forward announced once');
      } finally {
        ws.close();
      }
    });

    if (backend === 'node') {
      test('KV_STORE_URL unset: the local store on port 6379 when one answers, else memory with one log line', async (t) => {
        assert.deepEqual(loadGatewayConfig({}).kvStore, { kind: 'default', url: 'redis://127.0.0.1:6379' });
        assert.deepEqual(loadGatewayConfig({ KV_STORE_URL: 'memory' }).kvStore, { kind: 'memory' });
        assert.deepEqual(loadGatewayConfig({ KV_STORE_URL: 'redis://10.0.0.9:6380' }).kvStore, { kind: 'configured', url: 'redis://10.0.0.9:6380' });

        // The real default, in a gateway process: whichever branch this machine takes.
        const local = await redisAnswers(DEFAULT_KV_STORE_URL);
        const g = await startGatewayProcess({ NODE_RPC_URL: node.url, FAUCET_COOLDOWN_SECS: '30' });
        try {
          const h = (await getJson(`${g.url}/health`)).body;
          assert.equal(h.faucet_cooldown_store, local ? 'redis' : 'memory', `Redis ${local ? 'answers' : 'does not answer'} at ${DEFAULT_KV_STORE_URL}`);
          assert.equal(h.status, 'ok', 'the default store never makes the gateway degraded');
          assert.equal(g.logs.filter((l) => l.includes('KV_STORE_URL is unset')).length, 1, g.logs.join('\n'));
        } finally {
          await g.stop();
        }

        // The fallback, whatever runs locally: the default's code path with its address on a closed port.
        const closed = await defaultStoreAt(node.url, `redis://127.0.0.1:${await freePort()}`);
        assert.equal(closed.backend, 'memory');
        const said = closed.lines.filter((l) => /faucet cooldowns are kept in memory/.test(l));
        assert.equal(said.length, 1, closed.lines.join(''));
        assert.match(said[0]!, /KV_STORE_URL is unset and no key-value store answers/);
        assert.ok(!closed.lines.some((l) => /"level":(40|50)/.test(l)), 'no warning or error: memory is what the operator asked for');

        // The store found, whatever runs locally: a private redis-server where the binary exists.
        if (spawnSync('redis-server', ['--version']).status !== 0) return t.skip('redis-server is not installed: the found branch was only checked against the machine\'s own port 6379');
        const port = await freePort();
        const redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
        try {
          const url = `redis://127.0.0.1:${port}`;
          await until('private redis-server', async () => ((await redisAnswers(url)) ? true : undefined), 10_000);
          const found = await defaultStoreAt(node.url, url);
          assert.equal(found.backend, 'redis');
          assert.equal(found.lines.filter((l) => /KV_STORE_URL is unset: faucet cooldowns are kept in the local store/.test(l)).length, 1, found.lines.join(''));
        } finally {
          redis.kill('SIGKILL');
        }
      });
    }
  });
}
