import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { labelledWallet, signOperation, signTransfer } from '../helpers/chain-fixture.js';
import { getJson, postJson, until, waitConfirmed } from '../helpers/node-process.js';
import { startTestDevnet, type TestDevnet } from '../helpers/devnet.js';
import { GOV, WINDOW, governanceDriver, type Signer } from '../helpers/governance.js';
import { WsClient } from '../../plugins/gateway/testing/process.js';

/**
 * Governance in consensus on a real 4-validator devnet (the test build, so the `beacon` test plugin
 * is listed but not switched on): parameter changes tallied in endBlock and holding from the same
 * height on every validator, refusals of the rules of part 1 Governance 2–5, `chain devnet
 * enable|disable`, and a proposal's text priced. One devnet serves these scenarios. A plugin
 * switched by governance under load is governance-activation.test.ts, on a devnet of its own:
 * each voting window is 100 blocks, and all of them on one devnet passed the suite's 300 s per
 * file under the suite's load (224 s for that scenario alone in CI).
 */
const COIN = 1_000_000;
let clock = Date.now();
const nonce = (): number => ++clock;

describe('governance on a real devnet', () => {
  let net: TestDevnet;
  const alice = labelledWallet('gov-alice');
  const bob = labelledWallet('gov-bob');
  const carol = labelledWallet('gov-carol');
  const sink = labelledWallet('gov-sink');
  let v0: Signer;
  const { rpc, height, sign, confirmed, propose, vote, closed, param, rootAt, validator, fund } = governanceDriver(() => net, nonce);

  before(async () => {
    // Short empty-block interval: a voting window is at least 100 blocks (part 1, Governance 3).
    net = await startTestDevnet({ cli: resolve('dist/test/fixtures/test-chain.js'), enablePlugins: ['beacon'], disablePlugins: ['beacon'], env: { CHAIN_EMPTY_BLOCK_MS: '80' } });
    v0 = validator(0);
    await fund([alice, bob, carol]);
    // alice's self-stake exists before any proposal; bob's comes later.
    await confirmed('/api/v1/staking/stake', sign(alice, alice.address, 'chain:system.stake', { address: alice.address, amount: 10 * COIN }, 10 * COIN));
  });
  after(async () => net?.stop());

  test('PARAM_CHANGE of max_block_gas passes and every validator has it from the same height; out of range passes and keeps the old value; short of quorum is rejected; late stake and a .human below min_stake are refused', async () => {
    assert.equal(await param('max_block_gas'), 10_000);
    // Blocks respect the old bound: a transaction declaring more gas than any block may hold is refused.
    const big = signTransfer(alice, { to: sink.address, value: 1, nonce: 1, gas_limit: 15_000 });
    const early = await postJson(`${rpc()}/api/v1/transactions`, big);
    assert.equal(early.status, 400, JSON.stringify(early.body));
    assert.match(String(early.body.error), /exceeds max_block_gas 10000/);

    const lowProposer = await postJson(`${net.gatewayUrl}/api/v1/governance/propose`, sign(carol, carol.address, GOV, { proposer: carol.address, title: 'x', kind: 'text' }));
    assert.equal(lowProposer.status, 403, JSON.stringify(lowProposer.body));
    assert.match(String(lowProposer.body.error), /self-stake of at least min_stake/);

    const owner0 = 'chain:validator-0.node';
    const t1 = await propose(v0, owner0, { kind: 'PARAM_CHANGE', payload: { param_key: 'max_block_gas', param_value: '20000' } });
    const created = t1.block as number;
    await propose(v0, owner0, { kind: 'PARAM_CHANGE', payload: { param_key: 'max_block_gas', param_value: '0' } });
    await propose(alice, alice.address, { kind: 'PARAM_CHANGE', payload: { param_key: 'max_block_gas', param_value: '30000' } });
    const listed = (await getJson(`${net.gatewayUrl}/api/v1/governance/proposals?status=active`)).body;
    assert.equal(listed.total, 3, JSON.stringify(listed));

    // bob bonds after the proposals were created: his stake cannot vote on them.
    await confirmed('/api/v1/staking/stake', sign(bob, bob.address, 'chain:system.stake', { address: bob.address, amount: 10 * COIN }, 10 * COIN));
    const late = await postJson(`${net.gatewayUrl}/api/v1/governance/1/vote`, sign(bob, bob.address, GOV, { voter: bob.address, accept: true }));
    assert.equal(late.status, 403, JSON.stringify(late.body));
    assert.match(String(late.body.error), /not before proposal 1 was created/);

    // One genesis validator is 25% of the self-stake: quorum (20%) with its yes.
    await vote(v0, owner0, 1, true);
    await vote(v0, owner0, 2, true);
    // alice votes through the gateway's socket: cast_vote, ch-tx-v3 with the id in the signed body.
    const ws = await WsClient.connect(`${net.gatewayUrl.replace('http', 'ws')}/ws`);
    try {
      await ws.next('init', (m) => m.type === 'init');
      const cast = await ws.rpc('cast_vote', signOperation(alice, { actor: alice.address, target: GOV, nonce: nonce(), body: { id: '3', voter: alice.address, accept: true }, version: 'v3' }));
      assert.equal(cast.error, null, JSON.stringify(cast));
      assert.equal((await waitConfirmed(rpc(), (cast.result as { tx_hash: string }).tx_hash)).status, 'confirmed');
      const one = (await ws.rpc('get_proposal', { id: 3 })).result as Record<string, unknown>;
      assert.equal(one.title, 'change');
      assert.equal((one.votes as Array<{ voter: string }>)[0]?.voter, alice.address);
      const listed = (await ws.rpc('get_proposals', { status: 'active', limit: 2 })).result as Record<string, unknown>;
      assert.equal(listed.total, 3);
      assert.equal((listed.proposals as unknown[]).length, 2);
      assert.equal(listed.has_more, true);
    } finally {
      ws.close();
    }
    const twice = await postJson(`${net.gatewayUrl}/api/v1/governance/1/vote`, sign(v0, owner0, GOV, { voter: owner0, accept: false }));
    assert.equal(twice.status, 400, JSON.stringify(twice.body));
    assert.match(String(twice.body.error), /already voted/);

    const end = created + WINDOW;
    for (let i = 0; i < 4; i++) {
      const p1 = await closed(1, i);
      assert.equal(p1.status, 'passed');
      assert.equal(p1.applied, true);
      assert.equal(p1.end_height, end);
      const p2 = await closed(2, i);
      assert.equal(p2.status, 'passed');
      assert.equal(p2.applied, false);
      assert.match(String(p2.apply_error), /must be between 1 and 1000000000/);
      assert.equal((await closed(3, i)).status, 'rejected', 'alice alone is short of quorum');
      assert.equal(await param('max_block_gas', i), 20_000, `validator ${i} has the new value`);
      // The change is recorded in the same block, the tally's, on every validator.
      const events = (await getJson(`${rpc(i)}/api/v1/blocks/${end}/events`)).body.events as Array<{ type: string; data: Record<string, unknown> }>;
      const changed = events.filter((e) => e.type === 'param_changed');
      assert.deepEqual(changed.map((e) => e.data), [{ key: 'max_block_gas', value: '20000' }], `validator ${i}`);
      assert.equal(await rootAt(end, i), await rootAt(end, 0));
    }
    // The gateway serves the proposal and the socket-free list with the outcome.
    const viaGateway = (await getJson(`${net.gatewayUrl}/api/v1/governance/2`)).body;
    assert.equal(viaGateway.applied, false);
    assert.equal((viaGateway.votes as unknown[]).length, 1);

    // Blocks respect the new bound: the same 15 000-gas transaction is admitted and confirmed.
    const after = await postJson(`${rpc()}/api/v1/transactions`, signTransfer(alice, { to: sink.address, value: 1, nonce: 1, gas_limit: 15_000 }));
    assert.equal(after.status, 200, JSON.stringify(after.body));
    assert.equal((await waitConfirmed(rpc(), after.body.tx_hash as string)).status, 'confirmed');
  });

  test('chain devnet enable|disable <plugin>: files the proposal, every validator votes, it prints the height, and the plugin runs from that height to its retirement on every validator', async () => {
    const port = new URL(rpc(0)).port;
    const { stdout } = await promisify(execFile)(process.execPath, [resolve('dist/test/fixtures/test-chain.js'), 'devnet', 'enable', 'beacon', '--dir', net.dir, '--base-port', port, '--wait'], { timeout: 300_000 });
    const m = /beacon activates at height (\d+)/.exec(stdout);
    assert.ok(m, stdout);
    const at = Number(m[1]);
    assert.match(stdout, new RegExp(`beacon is active from height ${at}`));
    for (let i = 0; i < 4; i++) {
      const beats = await until(`beacon on validator ${i}`, async () => {
        const r = await getJson(`${rpc(i)}/api/v1/beacon`);
        return r.status === 200 && r.body.first !== null ? r.body : undefined;
      }, 60_000);
      assert.equal(beats.first, at, `validator ${i} ran beacon from height ${at}`);
    }
    const again = promisify(execFile)(process.execPath, [resolve('dist/test/fixtures/test-chain.js'), 'devnet', 'enable', 'beacon', '--dir', net.dir, '--base-port', port]);
    await assert.rejects(again, /plugin "beacon" is already active/);

    const off = await promisify(execFile)(process.execPath, [resolve('dist/test/fixtures/test-chain.js'), 'devnet', 'disable', 'beacon', '--dir', net.dir, '--base-port', port, '--wait'], { timeout: 300_000 });
    const r = /beacon retires at height (\d+)/.exec(off.stdout);
    assert.ok(r, off.stdout);
    const retiredAt = Number(r[1]);
    for (let i = 0; i < 4; i++) {
      await until(`validator ${i} past ${retiredAt}`, async () => ((await height(i)) > retiredAt + 1 ? true : undefined), 60_000);
      const beats = (await getJson(`${rpc(i)}/api/v1/beacon`)).body;
      assert.equal(beats.beats, retiredAt - at, `validator ${i} ran beacon from ${at} up to ${retiredAt} only`);
      const entry = ((await getJson(`${rpc(i)}/api/v1/plugins`)).body.plugins as Array<Record<string, unknown>>).find((x) => x.name === 'beacon')!;
      assert.equal(entry.status, 'retired');
    }
  });

  test('a .node proposer\'s 15 KB proposal pays for its text: the estimate\'s base plus 1 gas per 10 bytes beyond 2 KiB, fee = gas × base_fee (issue 29 item 9)', async () => {
    const base = ((await getJson(`${rpc()}/api/v1/gas/estimate`)).body.operations as Record<string, number>).propose!;
    assert.equal(base, 100, 'the estimate lists the base');
    // The CLI scenario before signed for validator-0.node with its own clock: operation nonces only increase.
    clock = Math.max(clock, Date.now());
    const tx = await propose(v0, 'chain:validator-0.node', { kind: 'text', title: 'bulk', description: 'x'.repeat(5_000), payload: { note: 'y'.repeat(10_000) } });
    // title, description and the payload's key and value: 4 + 5 000 + 4 + 10 000 bytes, 2 048 of them covered by the base.
    assert.equal(tx.gas, base + Math.ceil((15_008 - 2_048) / 10));
    assert.equal(tx.fee, (tx.gas as number) * (await param('base_fee')));
  });
});
