import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { labelledWallet, signOperation, signTransfer, type Wallet } from '../helpers/chain-fixture.js';
import { getJson, postJson, until, waitConfirmed } from '../helpers/node-process.js';
import { startTestDevnet, type TestDevnet } from '../helpers/devnet.js';
import { WsClient } from '../../plugins/gateway/testing/process.js';
import { LEDGER_TARGET, SWAP_TARGET } from '../fixtures/method-test-plugins.js';
import { METER_ADDRESS } from '../fixtures/gas-test-plugins.js';

/**
 * The plugin SDK end to end, on a real 4-validator devnet run by the test build's `chain`
 * (test/fixtures/test-chain.ts: the shipped plugins plus the SDK test plugins `memo`, `beacon`,
 * `ledger`, `swap` and `meter`), through the RPC as a client would. One devnet serves every
 * scenario.
 */
const MEMO = 'chain:system.memo';
let clock = Date.now();
/** Operation nonces: millisecond timestamps that only increase. */
const nextNonce = (): number => ++clock;

describe('plugin SDK on a real devnet', () => {
  let net: TestDevnet;
  const alice = labelledWallet('sdk-alice');
  const bob = labelledWallet('sdk-bob');
  const helper = labelledWallet('sdk-helper');

  const rpc = (i = 0): string => net.rpcUrls[i]!;
  const balanceOf = async (w: Wallet): Promise<number> => (await getJson(`${rpc()}/api/v1/accounts/${w.address}`)).body.balance as number;
  const memoOp = (w: Wallet, text: string, nonce = nextNonce()) => signOperation(w, { actor: w.address, target: MEMO, nonce, body: { address: w.address, text } });
  /** Every validator at the same height reports the same state root. */
  async function sameRootEverywhere(): Promise<void> {
    const h = Math.min(...(await Promise.all(net.rpcUrls.map(async (u) => (await getJson(`${u}/health`)).body.height as number))));
    const roots = await Promise.all(net.rpcUrls.map(async (u) => (await getJson(`${u}/api/v1/blocks/${h}`)).body.state_root));
    assert.equal(new Set(roots).size, 1, `state roots at height ${h}: ${roots.join(', ')}`);
  }

  /** Every validator has applied the transaction's block: the next request may go to any of them. */
  const everywhere = async (hash: string): Promise<void> => {
    for (const url of net.rpcUrls) await waitConfirmed(url, hash);
  };

  before(async () => {
    net = await startTestDevnet({ cli: resolve('dist/test/fixtures/test-chain.js'), enablePlugins: ['memo', 'beacon', 'ledger', 'swap', 'meter'], disablePlugins: ['beacon'] });
    for (const w of [alice, bob]) {
      const f = await postJson(`${net.gatewayUrl}/api/v1/faucet`, { address: w.address, public_key: w.publicKeyHex });
      assert.equal(f.status, 200, JSON.stringify(f.body));
      await everywhere(f.body.tx_hash as string);
    }
  });
  after(async () => net?.stop());

  test('an operation end to end: signature, nonce, fee, type and status; replay refused; a failed handler rolls back and keeps fee and nonce', async () => {
    const estimate = await getJson(`${rpc()}/api/v1/gas/estimate`);
    const gas = estimate.body.operations as Record<string, number>;
    assert.deepEqual(
      { grant_helper: gas.grant_helper, metered_work: gas.metered_work, mint_tokens: gas.mint_tokens, request_update: gas.request_update, set_memo: gas.set_memo, swap_pay: gas.swap_pay },
      { grant_helper: 40, metered_work: 25, mint_tokens: 10, request_update: 10, set_memo: 30, swap_pay: 20 },
    );
    assert.equal(gas.grant_session, 50, 'and, for one, the session plugin\'s');
    const before = await balanceOf(alice);
    const body = memoOp(alice, 'hello');
    const r = await postJson(`${net.gatewayUrl}/api/v1/memo/set`, body);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(Object.keys(r.body).sort(), ['estimated_block', 'status', 'success', 'tx_hash']);
    assert.equal(r.body.status, 'pending');
    const tx = await waitConfirmed(rpc(), r.body.tx_hash as string);
    assert.equal(tx.type, 'set_memo');
    assert.equal(tx.status, 'confirmed');
    assert.equal(tx.from, alice.address);
    assert.equal(tx.to, MEMO);
    assert.equal(tx.fee, 30);
    assert.equal(await balanceOf(alice), before - 30, 'the fee, 30 gas at base fee 1, and nothing else');
    for (const url of net.rpcUrls) {
      await until(`memo on ${url}`, async () => ((await getJson(`${url}/api/v1/memo/${alice.address}`)).body.text === 'hello' ? true : undefined));
    }

    const replay = await postJson(`${rpc(2)}/api/v1/memo/set`, body);
    assert.equal(replay.status, 400);
    assert.match(replay.body.error as string, /duplicate|nonce/);
    const staleNonce = await postJson(`${rpc()}/api/v1/memo/set`, memoOp(alice, 'again', body.nonce as number));
    assert.equal(staleNonce.status, 400);
    assert.match(staleNonce.body.error as string, /nonce/);

    const tooLong = await postJson(`${rpc()}/api/v1/memo/set`, memoOp(alice, 'x'.repeat(65)));
    assert.equal(tooLong.status, 400);
    assert.match(tooLong.body.error as string, /memo_max_len/);
    const refused = await postJson(`${rpc()}/api/v1/memo/set`, memoOp(alice, 'forbidden'));
    assert.equal(refused.status, 403);
    // ch-tx-v3 covers the body: a text changed after signing no longer verifies.
    const v3 = signOperation(alice, { actor: alice.address, target: MEMO, nonce: nextNonce(), body: { address: alice.address, text: 'signed' }, version: 'v3' });
    const badSig = await postJson(`${rpc()}/api/v1/memo/set`, { ...v3, text: 'changed after signing' });
    assert.equal(badSig.status, 401, JSON.stringify(badSig.body));
    const unknownField = await postJson(`${rpc()}/api/v1/memo/set`, { ...memoOp(alice, 'x'), colour: 'red' });
    assert.equal(unknownField.status, 400);
    const outsider = await postJson(`${rpc()}/api/v1/memo/set`, signOperation(bob, { actor: alice.address, target: MEMO, nonce: nextNonce(), body: { address: alice.address, text: 'not yours' } }));
    assert.equal(outsider.status, 401);
    assert.match(outsider.body.error as string, /not bound to/);
    const unsigned = await postJson(`${rpc()}/api/v1/memo/set`, { address: alice.address, text: 'no signature', nonce: nextNonce() });
    assert.equal(unsigned.status, 401);

    const beforeFail = await balanceOf(alice);
    const failNonce = nextNonce();
    const failed = await postJson(`${rpc()}/api/v1/memo/set`, memoOp(alice, 'fail on purpose', failNonce));
    assert.equal(failed.status, 200, JSON.stringify(failed.body));
    const ft = await waitConfirmed(rpc(), failed.body.tx_hash as string);
    assert.equal(ft.status, 'failed');
    assert.equal(ft.type, 'set_memo');
    assert.match(ft.error as string, /failed on purpose/);
    assert.equal(await balanceOf(alice), beforeFail - 30, 'the fee is kept');
    assert.equal((await getJson(`${rpc()}/api/v1/memo/${alice.address}`)).body.text, 'hello', 'the handler\'s write was rolled back');
    const reuse = await postJson(`${rpc()}/api/v1/memo/set`, memoOp(alice, 'same nonce', failNonce));
    assert.equal(reuse.status, 400, 'the failed operation consumed its nonce');
    const listed = await getJson(`${rpc()}/api/v1/transactions?type=set_memo&address=${alice.address}`);
    assert.ok((listed.body.total as number) >= 2);
    await sameRootEverywhere();
  });

  test('a plugin\'s event: in the block\'s events, on its transaction, and as the socket event it declares through the gateway', async () => {
    const ws = await WsClient.connect(`${net.gatewayUrl.replace('http', 'ws')}/ws`);
    try {
      await ws.next('init', (m) => m.type === 'init');
      const sent = await postJson(`${net.gatewayUrl}/api/v1/memo/set`, memoOp(alice, 'heard'));
      assert.equal(sent.status, 200, JSON.stringify(sent.body));
      const tx = await waitConfirmed(rpc(2), sent.body.tx_hash as string);
      await waitConfirmed(rpc(1), sent.body.tx_hash as string);
      const own = tx.events as Array<Record<string, unknown>>;
      assert.equal(own.length, 1);
      assert.deepEqual({ type: own[0]!.type, phase: own[0]!.phase, height: own[0]!.height, data: own[0]!.data }, { type: 'memo_set', phase: 'tx', height: tx.block, data: { address: alice.address, text: 'heard', tx_hash: sent.body.tx_hash } });
      const inBlock = (await getJson(`${rpc(2)}/api/v1/blocks/${tx.block}/events`)).body.events as Array<Record<string, unknown>>;
      const mine = inBlock.filter((e) => e.tx_hash === sent.body.tx_hash);
      assert.equal(mine.length, 1);
      assert.equal(mine[0]!.type, 'memo_set');
      assert.equal(mine[0]!.phase, 'tx');
      const heard = await ws.next('memo_set on the socket', (m) => m.type === 'memo_set' && (m.data as { tx_hash?: string }).tx_hash === sent.body.tx_hash);
      assert.deepEqual(heard.data, { address: alice.address, text: 'heard', tx_hash: sent.body.tx_hash });
    } finally {
      ws.close();
    }
  });

  test('a second signer added by a plugin: accepted within its cap, refused beyond it at admission and in a block whose proposer skipped checkTx', async () => {
    const grant = await postJson(`${rpc()}/api/v1/memo/helpers`, signOperation(alice, { actor: alice.address, target: MEMO, nonce: nextNonce(), body: { address: alice.address, helper_key: helper.publicKeyHex, cap: 1000 } }));
    assert.equal(grant.status, 200, JSON.stringify(grant.body));
    assert.equal((await waitConfirmed(rpc(), grant.body.tx_hash as string)).status, 'confirmed');
    await everywhere(grant.body.tx_hash as string); // the helper's transfer goes to validator 1
    // The helper signs for alice: `from` is alice, the key is the helper's.
    const nonceOf = async (): Promise<number> => (await getJson(`${rpc()}/api/v1/accounts/${alice.address}`)).body.next_nonce as number;
    const asHelper = (value: number, nonce: number) => signTransfer(helper, { from: alice.address, to: bob.address, value, nonce });
    const bobBefore = await balanceOf(bob);
    const within = await postJson(`${rpc(1)}/api/v1/transactions`, asHelper(600, await nonceOf()));
    assert.equal(within.status, 200, JSON.stringify(within.body));
    assert.equal((await waitConfirmed(rpc(), within.body.tx_hash as string)).status, 'confirmed');
    assert.equal(await balanceOf(bob), bobBefore + 600);

    const beyond = await postJson(`${rpc()}/api/v1/transactions`, asHelper(600, await nonceOf()));
    assert.equal(beyond.status, 401);
    assert.match(beyond.body.error as string, /helper spend cap exceeded/);
    const opByHelper = await postJson(`${rpc()}/api/v1/memo/set`, signOperation(helper, { actor: alice.address, target: MEMO, nonce: nextNonce(), body: { address: alice.address, text: 'helper' } }));
    assert.equal(opByHelper.status, 401);
    assert.match(opByHelper.body.error as string, /only send transfers/);

    // The same over-cap transfer put straight into every validator's pool, as a proposer that
    // skipped checkTx would: it is included, and fails in the block with nothing charged.
    const aliceBefore = await balanceOf(alice);
    const injected = asHelper(600, await nonceOf());
    let hash = '';
    for (const url of net.rpcUrls) hash = (await postJson(`${url}/test/inject`, injected)).body.injected as string;
    const inBlock = await waitConfirmed(rpc(), hash);
    assert.equal(inBlock.status, 'failed');
    assert.match(inBlock.error as string, /helper spend cap exceeded/);
    assert.equal(await balanceOf(alice), aliceBefore, 'no value and no fee moved');
    assert.equal(await balanceOf(bob), bobBefore + 600);
    await sameRootEverywhere();
  });

  test('plugin methods and gas limits on every validator: a payment through another plugin\'s write methods, a metered transaction charged the gas it used, one out of gas charged its limit', async () => {
    const op = (target: string, body: Record<string, unknown>) => signOperation(alice, { actor: alice.address, target, nonce: nextNonce(), body: { address: alice.address, ...body } });
    const mint = await postJson(`${rpc()}/api/v1/ledger/mint`, op(LEDGER_TARGET, { tokens: 300 }));
    assert.equal(mint.status, 200, JSON.stringify(mint.body));
    assert.equal((await waitConfirmed(rpc(), mint.body.tx_hash as string)).status, 'confirmed');
    const pay = await postJson(`${net.gatewayUrl}/api/v1/swap/pay`, op(SWAP_TARGET, { to: bob.address, tokens: 120 }));
    assert.equal(pay.status, 200, JSON.stringify(pay.body));
    assert.equal((await waitConfirmed(rpc(1), pay.body.tx_hash as string)).status, 'confirmed');
    // Another validator's admission reads the ledger through swap's check: the payment applied there too
    // (once that validator has committed the block: it may be a block behind validator 1).
    await waitConfirmed(rpc(3), pay.body.tx_hash as string);
    const tooMuch = await postJson(`${rpc(3)}/api/v1/swap/pay`, op(SWAP_TARGET, { to: bob.address, tokens: 1000 }));
    assert.equal(tooMuch.status, 400);
    assert.equal(tooMuch.body.error, `swap: ${alice.address} holds 180 tokens`);

    // A gas_limit travels through the gateway untouched, covered by the v4 signature.
    const nonce = (await getJson(`${rpc()}/api/v1/accounts/${alice.address}`)).body.next_nonce as number;
    const metered = (n: number, gas: number) => signTransfer(alice, { to: METER_ADDRESS, value: 0, nonce: n, data: JSON.stringify({ gas }), gas_limit: 100 });
    const used = await postJson(`${net.gatewayUrl}/api/v1/transactions`, metered(nonce, 70));
    assert.equal(used.status, 200, JSON.stringify(used.body));
    const oog = await postJson(`${net.gatewayUrl}/api/v1/transactions`, metered(nonce + 1, 150));
    assert.equal(oog.status, 200, JSON.stringify(oog.body));
    const u = await waitConfirmed(rpc(2), used.body.tx_hash as string);
    assert.deepEqual([u.status, u.gas, u.fee], ['confirmed', 70, 70]);
    const o = await waitConfirmed(rpc(3), oog.body.tx_hash as string);
    assert.deepEqual([o.status, o.gas, o.fee], ['failed', 100, 100]);
    assert.match(o.error as string, /out of gas/);
    await sameRootEverywhere();
  });

  test('a malformed validator update is refused on every validator alike: the set stays, the refusal is logged', async () => {
    for (const kind of ['bad_key', 'empty_set'] as const) {
      const r = await postJson(`${rpc()}/api/v1/memo/request-update`, signOperation(alice, { actor: alice.address, target: MEMO, nonce: nextNonce(), body: { address: alice.address, kind } }));
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal((await waitConfirmed(rpc(), r.body.tx_hash as string)).status, 'confirmed');
    }
    // A block or two later every validator still signs with the same four.
    const h = ((await getJson(`${rpc()}/health`)).body.height as number) + 2;
    for (const url of net.rpcUrls) {
      await until(`height ${h} on ${url}`, async () => (((await getJson(`${url}/health`)).body.height as number) >= h ? true : undefined));
      assert.equal((await getJson(`${url}/health`)).body.validator_count, 4);
    }
    for (let i = 0; i < 4; i++) {
      const log = readFileSync(join(net.dir, `validator-${i}.log`), 'utf8');
      assert.match(log, /validator updates refused/, `validator-${i} logged the refusal`);
      assert.match(log, /public_key must be 3904 lowercase hex/);
      assert.match(log, /leave the set empty/);
    }
    await sameRootEverywhere();
  });

  test('a state plugin switched on by a state change at height H runs on every validator from H, and retires the same way', async () => {
    const listed = await getJson(`${rpc()}/api/v1/plugins`);
    const beacon = (listed.body.plugins as Array<Record<string, unknown>>).find((p) => p.name === 'beacon');
    assert.deepEqual(beacon, { name: 'beacon', kind: 'state', description: 'test plugin: counts the blocks it is active in', status: 'available', activation_height: null, retire_height: null, operations: [] });
    const head = (await getJson(`${rpc()}/health`)).body.height as number;
    const at = head + 8;
    const r = await postJson(`${rpc()}/api/v1/memo/request-update`, signOperation(alice, { actor: alice.address, target: MEMO, nonce: nextNonce(), body: { address: alice.address, kind: 'activate', plugin: 'beacon', height: at } }));
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal((await waitConfirmed(rpc(), r.body.tx_hash as string)).status, 'confirmed');
    for (const url of net.rpcUrls) {
      await waitConfirmed(url, r.body.tx_hash as string); // the schedule change is applied there too
      const p = (await getJson(`${url}/api/v1/plugins`)).body.plugins as Array<Record<string, unknown>>;
      const b = p.find((x) => x.name === 'beacon')!;
      if ((await getJson(`${url}/health`)).body.height as number < at - 1) assert.equal(b.status, 'scheduled');
      assert.equal(b.activation_height, at);
    }
    for (const url of net.rpcUrls) {
      const beats = await until(`beacon running on ${url}`, async () => {
        const b = (await getJson(`${url}/api/v1/beacon`)).body;
        return (b.beats as number) >= 2 ? b : undefined;
      });
      assert.equal(beats.first, at, `${url} ran the beacon from height ${at} exactly`);
      assert.equal(((await getJson(`${url}/api/v1/plugins`)).body.plugins as Array<Record<string, unknown>>).find((x) => x.name === 'beacon')!.status, 'active');
    }
    await sameRootEverywhere();

    const now = (await getJson(`${rpc()}/health`)).body.height as number;
    const retireAt = now + 6;
    const retire = await postJson(`${rpc()}/api/v1/memo/request-update`, signOperation(alice, { actor: alice.address, target: MEMO, nonce: nextNonce(), body: { address: alice.address, kind: 'retire', plugin: 'beacon', height: retireAt } }));
    assert.equal(retire.status, 200, JSON.stringify(retire.body));
    for (const url of net.rpcUrls) {
      await until(`beacon retired on ${url}`, async () => (((await getJson(`${url}/health`)).body.height as number) > retireAt + 1 ? true : undefined));
      const b = (await getJson(`${url}/api/v1/beacon`)).body;
      assert.equal(b.beats, retireAt - at, `${url} ran the beacon in heights ${at} to ${retireAt - 1}`);
      const p = ((await getJson(`${url}/api/v1/plugins`)).body.plugins as Array<Record<string, unknown>>).find((x) => x.name === 'beacon')!;
      assert.equal(p.status, 'retired');
      assert.equal(p.retire_height, retireAt);
    }
    await sameRootEverywhere();
  });

  test('a plugin\'s metadata over HTTP, generated from its declarations; a declared route answers a refused query 400 naming the field', async () => {
    const r = await getJson(`${rpc(1)}/api/v1/plugins/memo`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const stores = r.body.stores as Array<Record<string, unknown>>;
    assert.deepEqual(stores.map((st) => st.key), ['memo/<address>', 'helper/<account>/<key_id>', 'request/<height>']);
    assert.deepEqual((stores[1]!.value as { properties: Record<string, unknown> }).properties.cap, { type: 'integer', 'x-bigint': true });
    assert.deepEqual((r.body.events as Array<Record<string, unknown>>).map((e) => [e.type, e.socket]), [['memo_set', true]]);
    assert.equal((r.body.operations as Array<Record<string, unknown>>).find((o) => o.name === 'grant_helper')!.main_key_only, 'grant a helper key');
    assert.deepEqual((r.body.params as Array<Record<string, unknown>>)[0], { key: 'memo_max_len', default: 64, min: 1, max: 4096, description: 'longest memo' });
    assert.equal((await getJson(`${rpc()}/api/v1/plugins/staking`)).body.declared, true, 'staking, the last plugin converted, says its stores are declared');
    assert.equal((await getJson(`${rpc()}/api/v1/plugins/nothing`)).status, 404);
    const bad = await getJson(`${rpc()}/api/v1/plugins?limit=0`);
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error, 'query parameter limit: Expected integer to be greater or equal to 1');
  });
});
