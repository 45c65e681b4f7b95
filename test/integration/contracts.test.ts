import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { labelledWallet, signOperation, signTransfer, type Wallet } from '../helpers/chain-fixture.js';
import { getJson, postJson, waitConfirmed } from '../helpers/node-process.js';
import { startTestDevnet, type TestDevnet } from '../helpers/devnet.js';
import { toHex } from '../../kernel/sdk.js';
import { templateBytecode } from '../../plugins/contracts/templates.js';
import { HOSTILE_WAT, wat } from '../../plugins/contracts/testing/hostile.js';
import { WsClient } from '../../plugins/gateway/testing/process.js';
import { Worker } from 'node:worker_threads';

/** The /health watcher's thread (watchValidators): polls each URL every 50 ms until told to stop, then posts the worst latency and the worst gap between heights per URL. */
const HEALTH_WATCHER = `
const { parentPort, workerData } = require('node:worker_threads');
const urls = workerData;
let watching = true;
parentPort.once('message', () => { watching = false; });
const health = urls.map(() => 0);
const gaps = urls.map(() => 0);
Promise.all(urls.map(async (u, i) => {
  let last;
  while (watching) {
    const t0 = performance.now();
    const body = await (await fetch(u + '/health')).json();
    const now = performance.now();
    health[i] = Math.max(health[i], now - t0);
    if (last === undefined || body.height !== last.height) {
      if (last !== undefined) gaps[i] = Math.max(gaps[i], now - last.at);
      last = { at: now, height: body.height };
    }
    await new Promise((r) => setTimeout(r, 50));
  }
})).then(() => parentPort.postMessage({ health, gaps }));
`;

/**
 * WebAssembly contracts on a real 4-validator devnet (issue 24), as a client: the AssemblyScript
 * token deployed with init_args and used through transactions and dry runs, cross-contract calls,
 * attached value, and hostile contracts in WAT, each leaving every validator with the same root.
 */
const DEPLOY = 'chain:system.deploy';
let clock = Date.now();

describe('contracts on a real devnet', () => {
  let net: TestDevnet;
  const alice = labelledWallet('contracts-alice');
  const bob = labelledWallet('contracts-bob');
  const carol = labelledWallet('contracts-carol');
  let token = '';

  const rpc = (i = 0): string => net.rpcUrls[i]!;
  const account = async (a: string, i = 0) => (await getJson(`${rpc(i)}/api/v1/accounts/${a}`)).body;
  const everywhere = async (hash: string): Promise<Record<string, unknown>[]> => Promise.all(net.rpcUrls.map((u) => waitConfirmed(u, hash)));
  async function sameRootEverywhere(): Promise<void> {
    const h = Math.min(...(await Promise.all(net.rpcUrls.map(async (u) => (await getJson(`${u}/health`)).body.height as number))));
    const roots = await Promise.all(net.rpcUrls.map(async (u) => (await getJson(`${u}/api/v1/blocks/${h}`)).body.state_root));
    assert.equal(new Set(roots).size, 1, `state roots at height ${h}: ${roots.join(', ')}`);
  }
  /**
   * Polls every validator's /health until stopped: the worst latency and the worst time between
   * two heights each saw. On a thread of its own, so what this test's main thread does meanwhile
   * (signing, sending, waiting for receipts) does not add to the latencies it measures.
   */
  function watchValidators(): { stop(): Promise<{ health: number[]; gaps: number[] }> } {
    const worker = new Worker(HEALTH_WATCHER, { eval: true, workerData: net.rpcUrls });
    const done = new Promise<{ health: number[]; gaps: number[] }>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    return {
      async stop() {
        worker.postMessage('stop');
        const result = await done;
        await worker.terminate();
        return result;
      },
    };
  }
  /**
   * Each validator's worst event-loop delay since the previous scrape, in ms (`/metrics`
   * event_loop_delay_max_seconds: the node resets it at each scrape). Beside /health's latency it
   * tells a blocked main thread from one waiting for a core.
   */
  async function loopDelays(): Promise<number[]> {
    return Promise.all(net.rpcUrls.map(async (u) => {
      const text = await (await fetch(`${u}/metrics`)).text();
      const line = text.split('\n').find((l) => l.startsWith('event_loop_delay_max_seconds '));
      return line === undefined ? NaN : Number(line.split(' ')[1]) * 1000;
    }));
  }
  /** Sends a plain transaction (to a contract or chain:system.deploy) and waits until every validator applied it. */
  async function send(w: Wallet, to: string, data: string | undefined, opts: { value?: number; gas_limit?: number } = {}): Promise<Record<string, unknown>> {
    const nonce = Number((await account(w.address)).next_nonce);
    const body = signTransfer(w, { to, value: opts.value ?? 0, nonce, ...(data !== undefined ? { data } : {}), ...(opts.gas_limit !== undefined ? { gas_limit: opts.gas_limit } : {}) });
    const r = await postJson(`${net.gatewayUrl}/api/v1/transactions`, body);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const views = await everywhere(r.body.tx_hash as string);
    return views[0]!;
  }
  const call = (w: Wallet, contract: string, fn: string, args: Record<string, unknown>, opts: { value?: number; gas_limit?: number } = {}) => send(w, contract, JSON.stringify({ function: fn, args }), opts);
  const eventOf = (tx: Record<string, unknown>, type: string) => (tx.events as Array<{ type: string; data: Record<string, unknown> }>).find((e) => e.type === type)?.data;
  async function dry(contract: string, fn: string, args: Record<string, unknown> = {}, i = 0): Promise<unknown> {
    const r = await postJson(`${rpc(i)}/api/v1/contracts/${contract}/call`, { function: fn, args, dry_run: true });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.success, true, JSON.stringify(r.body));
    assert.equal(r.body.dry_run, true);
    return JSON.parse(r.body.return_data as string);
  }
  async function deployHex(w: Wallet, bytes: Uint8Array, name: string): Promise<string> {
    const tx = await send(w, DEPLOY, JSON.stringify({ bytecode_hex: toHex(bytes), name }), { gas_limit: 200 });
    assert.equal(tx.status, 'confirmed', JSON.stringify(tx));
    return eventOf(tx, 'contract_deployed')!.address as string;
  }

  before(async () => {
    net = await startTestDevnet();
    for (const w of [alice, bob, carol]) {
      const f = await postJson(`${net.gatewayUrl}/api/v1/faucet`, { address: w.address, public_key: w.publicKeyHex });
      assert.equal(f.status, 200, JSON.stringify(f.body));
      await everywhere(f.body.tx_hash as string);
    }
  });
  after(async () => net?.stop());

  test('the AssemblyScript token: deploy with init_args, reads by dry run, transfer, approve, transfer_from, mint by the owner only, burn, token transfers listed', async () => {
    const templates = await getJson(`${rpc()}/api/v1/templates`);
    assert.equal(templates.status, 200);
    const list = templates.body.templates as Array<Record<string, unknown>>;
    const tpl = list.find((t) => t.id === 'fungible-token')!;
    assert.equal(tpl.bytecode_hex, toHex(templateBytecode('token.wasm')));
    assert.ok(Array.isArray((tpl.abi as { functions: unknown[] }).functions));
    assert.equal((await getJson(`${rpc()}/api/v1/templates/fungible-token`)).body.id, 'fungible-token');

    const body = signOperation(alice, { kind: 'deploy', actor: alice.address, target: DEPLOY, nonce: ++clock, body: { owner: alice.address, bytecode_hex: tpl.bytecode_hex, name: 'Test token', template: 'fungible-token', init_args: { name: 'Test', symbol: 'TST', decimals: 6, total_supply: '1000' }, gas_limit: 100 } });
    const r = await postJson(`${rpc()}/api/v1/contracts/deploy`, body);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const [tx] = await everywhere(r.body.tx_hash as string);
    assert.equal(tx!.status, 'confirmed', JSON.stringify(tx));
    assert.equal(tx!.type, 'deploy');
    token = eventOf(tx!, 'contract_deployed')!.address as string;
    assert.match(token, /^chain:[0-9a-f]{10}\.app$/);
    const rec = await getJson(`${rpc(1)}/api/v1/contracts/${token}`);
    assert.equal(rec.body.owner, alice.address);
    // decisions.md §47: the analyzer's gate recorded the token's scores (static-v1 finds nothing in it).
    assert.deepEqual([rec.body.security_score, rec.body.risk_score, rec.body.model, rec.body.score_source], [100, 0, 'static-v1', 'analyzer']);
    const mine = await getJson(`${rpc()}/api/v1/contracts?owner=${alice.address}`);
    assert.ok((mine.body.contracts as Array<{ address: string }>).some((c) => c.address === token));

    assert.deepEqual(await dry(token, 'name'), { ok: 'Test' });
    assert.deepEqual(await dry(token, 'symbol', {}, 1), { ok: 'TST' });
    assert.deepEqual(await dry(token, 'decimals', {}, 2), { ok: 6 });
    assert.deepEqual(await dry(token, 'total_supply'), { ok: '1000000000' });
    assert.deepEqual(await dry(token, 'balance_of', { address: alice.address }), { ok: '1000000000' });

    const t = await call(alice, token, 'transfer', { to: bob.address, amount: '2.5' });
    assert.equal(t.status, 'confirmed', JSON.stringify(t));
    assert.ok((t.gas as number) >= 50);
    assert.deepEqual(await dry(token, 'balanceOf', { address: bob.address }), { ok: '2500000' });
    assert.equal((await call(bob, token, 'approve', { spender: carol.address, amount: 1 })).status, 'confirmed');
    assert.equal((await call(carol, token, 'transfer_from', { from: bob.address, to: carol.address, amount: '0.5' })).status, 'confirmed');
    assert.deepEqual(await dry(token, 'balance_of', { address: carol.address }), { ok: '500000' });
    assert.deepEqual(await dry(token, 'allowance', { owner: bob.address, spender: carol.address }), { ok: '500000' });

    const refused = await call(bob, token, 'mint', { to: bob.address, amount: 5 });
    assert.equal(refused.status, 'confirmed', '{error} return data is not a failure');
    assert.equal(eventOf(refused, 'contract_called')!.return_data, '{"error":"only the owner may mint"}');
    assert.equal(refused.return_data, '{"error":"only the owner may mint"}', 'decisions.md §36: on the transaction too');
    assert.equal((await call(alice, token, 'mint', { to: bob.address, amount: 5 })).status, 'confirmed');
    assert.equal((await call(bob, token, 'burn', { amount: 1 })).status, 'confirmed');
    assert.deepEqual(await dry(token, 'total_supply'), { ok: '1004000000' });
    assert.deepEqual(await dry(token, 'balance_of', { address: bob.address }), { ok: '6000000' });

    for (const w of [alice, bob]) {
      const tt = await getJson(`${rpc()}/api/v1/accounts/${w.address}/token-transfers`);
      assert.equal(tt.status, 200);
      const transfers = tt.body.transfers as Array<Record<string, unknown>>;
      assert.ok(transfers.some((x) => x.contract === token && x.from === alice.address && x.to === bob.address && x.amount === '2500000'), JSON.stringify(transfers));
    }
    const events = await getJson(`${rpc()}/api/v1/contracts/${token}/events`);
    assert.ok((events.body.total as number) >= 6);
    await sameRootEverywhere();
  });

  test('cross-contract calls see the calling contract as caller; a ninth level fails', async () => {
    const a = await deployHex(alice, wat(HOSTILE_WAT.relay), 'relay A');
    const b = await deployHex(alice, wat(HOSTILE_WAT.relay), 'relay B');
    const input = (n: number, to: string) => toHex(new Uint8Array([n, ...new TextEncoder().encode(to)]));
    const direct = await send(bob, a, input(0, b));
    assert.equal(eventOf(direct, 'contract_called')!.return_data, bob.address, 'the signer is the caller at the top');
    const viaA = await send(bob, a, input(1, b));
    assert.equal(viaA.status, 'confirmed', JSON.stringify(viaA));
    assert.equal(eventOf(viaA, 'contract_called')!.return_data, a, 'B sees A as its caller');
    const eight = await send(bob, b, input(7, b), { gas_limit: 200 });
    assert.equal(eight.status, 'confirmed', JSON.stringify(eight));
    const nine = await send(bob, b, input(8, b), { gas_limit: 200 });
    assert.equal(nine.status, 'failed');
    assert.match(nine.error as string, /depth 9/);
    await sameRootEverywhere();
  });

  test('attached value: credited to the contract after success, kept by the sender on a trap; fee and nonce consumed', async () => {
    const before = Number((await account(token)).balance);
    const ok = await call(alice, token, 'transfer', { to: carol.address, amount: 1 }, { value: 1000 });
    assert.equal(ok.status, 'confirmed');
    assert.equal(Number((await account(token)).balance), before + 1000);

    const loop = await deployHex(alice, wat(HOSTILE_WAT.infiniteLoop), 'loop');
    const sender = await account(bob.address);
    const trapped = await send(bob, loop, JSON.stringify({ function: 'spin', args: {} }), { value: 777, gas_limit: 80 });
    assert.equal(trapped.status, 'failed');
    assert.match(trapped.error as string, /out of fuel/);
    assert.equal(trapped.gas, 80, 'out of fuel is charged the whole limit');
    const after = await account(bob.address);
    assert.equal(Number(after.balance), Number(sender.balance) - (trapped.fee as number), 'the value stayed with the sender; the fee was paid');
    assert.equal(Number(after.nonce), Number(sender.nonce) + 1, 'the nonce was consumed');
    assert.equal(Number((await account(loop)).balance), 0);
    await sameRootEverywhere();
  });

  test('hostile contracts: memory growth beyond the cap and deep recursion trap at the same fuel on every validator; floats and unknown imports refused at deploy', async () => {
    // Growing in a loop that ends in br_if: the unconditional loop scores 80 and the analyzer's gate refuses it (decisions.md §46).
    const mem = await deployHex(alice, wat(HOSTILE_WAT.memoryGrowth.replace('(br $l)', '(br_if $l (i32.const 1))')), 'grow');
    // Growth is paid per call and per page before the host grows (vm/pricing.ts): 15 grows need ~6 M fuel (400 000 each), the 16th is charged and traps.
    const grown = await send(bob, mem, JSON.stringify({ function: 'grow', args: {} }), { gas_limit: 1_000 });
    assert.equal(grown.status, 'failed');
    assert.match(grown.error as string, /memory growth above the cap/);

    const rec = await deployHex(alice, wat(HOSTILE_WAT.deepRecursion), 'recurse');
    const r = await send(bob, rec, JSON.stringify({ function: 'down', args: {} }), { gas_limit: 100 });
    assert.equal(r.status, 'failed');
    assert.match(r.error as string, /stack/);
    assert.deepEqual([r.return_data, r.events], ['', []], 'decisions.md §36: a failed call carries return_data too, empty');
    const views = await everywhere(r.hash as string);
    assert.equal(new Set(views.map((v) => `${v.gas}/${v.fee}/${v.error}`)).size, 1, 'the same gas, fee and error on every validator');

    for (const [source, re] of [[HOSTILE_WAT.float, /floating-point/], [HOSTILE_WAT.unknownImport, /random_bytes is not part of the host API/]] as const) {
      const body = signOperation(alice, { kind: 'deploy', actor: alice.address, target: DEPLOY, nonce: ++clock, body: { owner: alice.address, bytecode_hex: toHex(wat(source)) } });
      const refused = await postJson(`${rpc()}/api/v1/contracts/deploy`, body);
      assert.equal(refused.status, 400, JSON.stringify(refused.body));
      assert.match(refused.body.error as string, re);
      const nonce = Number((await account(alice.address)).next_nonce);
      const plain = await postJson(`${net.gatewayUrl}/api/v1/transactions`, signTransfer(alice, { to: DEPLOY, value: 0, nonce, data: JSON.stringify({ bytecode_hex: toHex(wat(source)) }) }));
      assert.equal(plain.status, 400, JSON.stringify(plain.body));
      assert.match(plain.body.error as string, re);
    }
    const health = await Promise.all(net.rpcUrls.map(async (u) => (await getJson(`${u}/health`)).status));
    assert.deepEqual(health, [200, 200, 200, 200], 'the chain runs on');
    await sameRootEverywhere();
  });

  test('through the gateway: token-info, proxied reads and dry runs, and the contract socket methods', async () => {
    const info = await getJson(`${net.gatewayUrl}/api/v1/contracts/${token}/token-info`);
    assert.equal(info.status, 200, JSON.stringify(info.body));
    assert.deepEqual(info.body, { address: token, name: 'Test', symbol: 'TST', decimals: 6, total_supply: '1004000000' });
    assert.equal((await getJson(`${net.gatewayUrl}/api/v1/contracts/chain:0000000000.app/token-info`)).status, 404);
    const tt = await getJson(`${net.gatewayUrl}/api/v1/accounts/${carol.address}/token-transfers`);
    assert.ok((tt.body.transfers as unknown[]).length >= 1);
    const viaGw = await postJson(`${net.gatewayUrl}/api/v1/contracts/${token}/call`, { function: 'symbol', dry_run: true });
    assert.equal(viaGw.body.return_data, '{"ok":"TST"}');
    const ws = await WsClient.connect(`${net.gatewayUrl.replace('http', 'ws')}/ws`);
    try {
      await ws.next('init', (m) => m.type === 'init');
      const one = await ws.rpc('get_contract', { address: token });
      assert.equal(one.error, null, JSON.stringify(one));
      assert.equal((one.result as Record<string, unknown>).owner, alice.address);
      const list = await ws.rpc('get_contracts', { owner: alice.address });
      assert.ok(((list.result as Record<string, unknown>).contracts as unknown[]).length >= 1);
      const events = await ws.rpc('get_contract_events', { address: token, limit: 2 });
      assert.equal(((events.result as Record<string, unknown>).events as unknown[]).length, 2);
      const called = await ws.rpc('call_contract', { address: token, function: 'decimals', dry_run: true });
      assert.equal((called.result as Record<string, unknown>).return_data, '{"ok":6}');
      // The socket's deploy_contract sends a deploy transaction (POST /api/v1/contracts/deploy is Node only).
      const nonce = Number((await account(bob.address)).next_nonce);
      const signed = signTransfer(bob, { to: DEPLOY, value: 0, nonce, data: JSON.stringify({ bytecode_hex: toHex(wat(HOSTILE_WAT.relay)), name: 'relay via socket' }), gas_limit: 200 });
      const deployed = await ws.rpc('deploy_contract', signed);
      assert.equal(deployed.error, null, JSON.stringify(deployed));
      const [tx] = await everywhere((deployed.result as Record<string, unknown>).tx_hash as string);
      assert.equal(tx!.status, 'confirmed', JSON.stringify(tx));
      assert.equal((eventOf(tx!, 'contract_deployed')!.owner as string), bob.address);
      // It mirrors REST too (part 1, Socket RPC methods): the deploy operation's body, answered with
      // §17's object. Without a gas_limit (part 2 clients sign none), new code is charged its
      // analyzer gas_estimate (decisions.md §47), which is also its limit.
      const bytecode = toHex(wat(HOSTILE_WAT.relay));
      const estimate = (await postJson(`${rpc()}/api/v1/contracts/analyze`, { bytecode_hex: bytecode })).body.gas_estimate as number;
      const asOperation = signOperation(carol, { kind: 'deploy', actor: carol.address, target: DEPLOY, nonce: ++clock, body: { owner: carol.address, bytecode_hex: bytecode, name: 'relay via the operation' } });
      const viaOp = await ws.rpc('deploy_contract', asOperation);
      assert.equal(viaOp.error, null, JSON.stringify(viaOp));
      assert.equal((viaOp.result as Record<string, unknown>).success, true, JSON.stringify(viaOp));
      const [opTx] = await everywhere((viaOp.result as Record<string, unknown>).tx_hash as string);
      assert.deepEqual([opTx!.status, opTx!.type, opTx!.gas], ['confirmed', 'deploy', estimate], JSON.stringify(opTx));
    } finally {
      ws.close();
    }
  });

  test('one call cannot stall the chain (issue 29 item 1): a contract calling itself, an endless loop at max_block_gas and dry runs beyond the pool, while every validator finalises blocks and answers /health', async () => {
    const selfCalls = await deployHex(alice, wat(HOSTILE_WAT.selfCalls), 'self-calls');
    const loop = await deployHex(alice, wat(HOSTILE_WAT.infiniteLoop), 'loop');
    // The same watch without the attack first: on a shared 2-core machine the other tenants' load is in both.
    await loopDelays();
    const idle = watchValidators();
    await new Promise((r) => setTimeout(r, 4_000));
    const baseline = await idle.stop();
    const idleLoop = await loopDelays();
    const watch = watchValidators();
    const MAX_BLOCK_GAS = 10_000;
    const [calls, spin, dryRuns] = await Promise.all([
      // 255 levels, each a fresh instance: paid per instantiation, so it finishes well within the limit.
      send(bob, selfCalls, '0xff', { gas_limit: MAX_BLOCK_GAS }),
      send(carol, loop, '0x01', { gas_limit: MAX_BLOCK_GAS }),
      Promise.all(Array.from({ length: 12 }, () => postJson(`${rpc(1)}/api/v1/contracts/${loop}/call`, { function: 'spin', args: {}, dry_run: true, gas_limit: MAX_BLOCK_GAS }))),
    ]);
    const attacked = await watch.stop();
    const attackedLoop = await loopDelays();
    assert.equal(calls.status, 'confirmed', JSON.stringify(calls));
    assert.ok((calls.gas as number) < MAX_BLOCK_GAS, `255 self-calls used ${String(calls.gas)} gas`);
    assert.equal(spin.status, 'failed');
    assert.equal(spin.gas, MAX_BLOCK_GAS, 'out of fuel is charged the whole limit');
    for (const d of dryRuns) {
      assert.ok(d.status === 200 || d.status === 503, `a dry run answered ${d.status}: ${JSON.stringify(d.body)}`);
      if (d.status === 200) assert.equal(d.body.success, false);
    }
    const ms = (xs: number[]): string => xs.map((m) => m.toFixed(0)).join('/');
    const figures = `under attack: worst /health ${ms(attacked.health)} ms, worst gap between heights ${ms(attacked.gaps)} ms; idle: ${ms(baseline.health)} ms, ${ms(baseline.gaps)} ms; dry runs ${dryRuns.map((d) => d.status).join(',')}; self-calls ${String(calls.gas)} gas; worst event-loop delay under attack ${ms(attackedLoop)} ms, idle ${ms(idleLoop)} ms`;
    console.log(`stall attack (issue 29 item 1): ${figures}`);
    // The bars are 2 s between blocks and 100 ms for /health on a validator of its own. Here
    // four validators, the gateway and this test share two cores with other tenants: idle, /health
    // has taken up to ~110 ms and blocks ~0.7 s apart in a busy hour, and each validator runs the block's
    // 2×10^8 fuel (~0.2 s, bench/contracts-calibration.bench.ts) on the same two cores while one also
    // serves nine dry runs. Before the fix one such call stalled every validator 113–150 s; these
    // bounds catch any return of that by far, and the figures are printed for the README.
    assert.ok(attacked.gaps.every((m) => m <= 5_000), `blocks kept finalising within 5 s: ${figures}`);
    assert.ok(attacked.health.every((m) => m <= 1_000), `/health answered within 1 s: ${figures}`);
    await sameRootEverywhere();
  });

  test('state growth (issue 29 item 8): a call storing 8 KiB of contract storage pays storage_byte_price for every byte beyond storage_free_bytes (4 096), burned, the same on every validator', async () => {
    const estimate = (await getJson(`${rpc()}/api/v1/gas/estimate`)).body;
    assert.equal(Number(estimate.storage_free_bytes), 4_096);
    const price = BigInt(String(estimate.storage_byte_price));
    const store = await deployHex(alice, wat(HOSTILE_WAT.store8KiB), 'store-8k');
    const before = BigInt(String((await account(bob.address)).balance));
    const tx = await call(bob, store, 'go', {}, { gas_limit: 200 });
    assert.equal(tx.status, 'confirmed', JSON.stringify(tx));
    // The contract's key `big` is kept as hex under its address.
    const expected = BigInt(`contracts/kv/${store}/626967`.length + 8_192 - 4_096) * price;
    assert.equal(BigInt(String(tx.storage_fee)), expected, JSON.stringify(tx));
    const after = BigInt(String((await account(bob.address)).balance));
    assert.equal(before - after, BigInt(String(tx.fee)) + BigInt(String(tx.unused_gas_fee ?? 0)) + expected, 'the fee, the unused limit\'s burn and the storage fee, nothing else');
    const views = await everywhere(tx.hash as string);
    assert.deepEqual(new Set(views.map((v) => String(v.storage_fee))), new Set([String(expected)]));
    console.log(`state growth (issue 29 item 8): 8 KiB of contract storage in one call paid storage_fee ${expected} ucoin besides its fee ${String(tx.fee)} (gas ${String(tx.gas)})`);
    await sameRootEverywhere();
  });

  test('dry runs: on committed state without writes; dry_run false is not a write path', async () => {
    const r = await postJson(`${rpc()}/api/v1/contracts/${token}/call`, { function: 'transfer', args: { to: bob.address, amount: 1 }, caller: alice.address, dry_run: true });
    assert.equal(r.status, 200);
    assert.equal(r.body.success, true);
    assert.equal(r.body.return_data, '{"ok":true}');
    assert.ok((r.body.events as unknown[]).length === 1);
    assert.deepEqual(await dry(token, 'balance_of', { address: bob.address }), { ok: '6000000' }, 'nothing was written');
    const write = await postJson(`${rpc()}/api/v1/contracts/${token}/call`, { function: 'transfer', args: { to: bob.address, amount: 1 }, dry_run: false });
    assert.equal(write.status, 403, 'a test network refuses it too: writes are transactions (decisions.md §91)');
    assert.match(write.body.error as string, /transaction/);
    const missing = await postJson(`${rpc()}/api/v1/contracts/chain:0000000000.app/call`, { function: 'name', dry_run: true });
    assert.equal(missing.status, 404);
  });
});
