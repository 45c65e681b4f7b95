import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { labelledWallet, signOperation, signTransfer, type Wallet } from '../helpers/chain-fixture.js';
import { getJson, postJson, until, waitConfirmed } from '../helpers/node-process.js';
import { startTestDevnet, type TestDevnet } from '../helpers/devnet.js';
import { WsClient } from '../../plugins/gateway/testing/process.js';

/**
 * Governance in consensus on a real 4-validator devnet (the test build, so the `memo` test plugin
 * is listed but not switched on): parameter changes tallied in endBlock and holding from the same
 * height on every validator, refusals of the rules of part 1 Governance 2–5, and a state plugin
 * activated and retired by governance under a steady transfer load with the same state root on
 * every validator at every height. One devnet serves every scenario.
 */
const COIN = 1_000_000;
const GOV = 'chain:system.governance';
const WINDOW = 100;
let clock = Date.now();
const nonce = (): number => ++clock;

type Signer = Pick<Wallet, 'keys' | 'publicKeyHex'>;

describe('governance on a real devnet', () => {
  let net: TestDevnet;
  const alice = labelledWallet('gov-alice');
  const bob = labelledWallet('gov-bob');
  const carol = labelledWallet('gov-carol');
  const loader = labelledWallet('gov-load');
  const sink = labelledWallet('gov-sink');
  let v0: Signer;
  let v1: Signer;
  const rpc = (i = 0): string => net.rpcUrls[i]!;
  const height = async (i = 0): Promise<number> => (await getJson(`${rpc(i)}/health`)).body.height as number;
  const sign = (w: Signer, actor: string, target: string, body: Record<string, unknown>, value = 0) => signOperation(w, { actor, target, value, nonce: nonce(), body });
  const confirmed = async (path: string, body: Record<string, unknown>): Promise<Record<string, unknown>> => {
    const r = await postJson(`${net.gatewayUrl}${path}`, body);
    assert.equal(r.status, 200, `${path}: ${JSON.stringify(r.body)}`);
    const tx = await waitConfirmed(rpc(), r.body.tx_hash as string);
    assert.equal(tx.status, 'confirmed', `${path}: ${JSON.stringify(tx)}`);
    return tx;
  };
  const propose = (w: Signer, proposer: string, body: Record<string, unknown>) => confirmed('/api/v1/governance/propose', sign(w, proposer, GOV, { proposer, title: 'change', description: 'by test', voting_duration: WINDOW, ...body }));
  const vote = (w: Signer, voter: string, id: number, accept: boolean) => confirmed(`/api/v1/governance/${id}/vote`, sign(w, voter, GOV, { voter, accept }));
  const proposal = async (id: number, i = 0): Promise<Record<string, unknown>> => (await getJson(`${rpc(i)}/api/v1/governance/${id}`)).body;
  const closed = (id: number, i = 0) => until(`proposal ${id} tallied on validator ${i}`, async () => ((await proposal(id, i)).status !== 'active' ? proposal(id, i) : undefined), 120_000);
  const param = async (key: string, i = 0): Promise<number> => (((await getJson(`${rpc(i)}/api/v1/governance/params`)).body.params as Record<string, { value: number }>)[key]!.value);
  const rootAt = async (h: number, i: number): Promise<string> => {
    const b = await until(`block ${h} on validator ${i}`, async () => {
      const r = await getJson(`${rpc(i)}/api/v1/blocks/${h}`);
      return r.status === 200 ? r.body : undefined;
    }, 60_000);
    return b.state_root as string;
  };

  before(async () => {
    // Short empty-block interval: a voting window is at least 100 blocks (part 1, Governance 3).
    net = await startTestDevnet({ cli: resolve('dist/test/fixtures/test-chain.js'), enablePlugins: ['memo', 'beacon'], disablePlugins: ['memo', 'beacon'], env: { CHAIN_EMPTY_BLOCK_MS: '80' } });
    const k0 = net.validatorKey(0);
    const k1 = net.validatorKey(1);
    v0 = { keys: k0.keys, publicKeyHex: k0.file.public_key };
    v1 = { keys: k1.keys, publicKeyHex: k1.file.public_key };
    for (const w of [alice, bob, carol, loader]) {
      const f = await postJson(`${net.gatewayUrl}/api/v1/faucet`, { address: w.address, public_key: w.publicKeyHex });
      assert.equal(f.status, 200, JSON.stringify(f.body));
      await waitConfirmed(rpc(), f.body.tx_hash as string);
    }
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

  test('a state plugin activated by governance under a transfer load: every validator switches at the same height, same state root at every height, a restarted validator replays through the switch; then retired the same way', async () => {
    const owner1 = 'chain:validator-1.node';
    const memo = (text: string) => postJson(`${net.gatewayUrl}/api/v1/memo/set`, sign(carol, carol.address, 'chain:system.memo', { address: carol.address, text }));
    const before = await memo('too early');
    assert.equal(before.status, 403, JSON.stringify(before.body));
    assert.match(String(before.body.error), /plugin "memo" is available, not active/);

    // A steady load of transfers for the whole scenario.
    let stop = false;
    let sent = 0;
    const load = (async () => {
      let n = 1;
      while (!stop) {
        const r = await postJson(`${rpc(1)}/api/v1/transactions`, signTransfer(loader, { to: sink.address, value: 1, nonce: n }));
        if (r.status === 200) {
          sent++;
          n++;
        }
        await new Promise((res) => setTimeout(res, 40));
      }
    })();

    try {
      const start = (await height()) + 1;
      const at = start + WINDOW + 60;
      const p = await propose(v1, owner1, { kind: 'PARAM_CHANGE', payload: { param_key: 'plugin:memo', param_value: `activate@${at}` } });
      const id = Number(((await getJson(`${rpc()}/api/v1/governance/proposals?status=active`)).body.proposals as Array<{ id: number; tx_hash: string }>).find((x) => x.tx_hash === p.hash)!.id);
      await vote(v1, owner1, id, true);
      const tallied = await closed(id);
      assert.equal(tallied.applied, true, String(tallied.apply_error));
      for (let i = 0; i < 4; i++) {
        await closed(id, i);
        const plugins = (await getJson(`${rpc(i)}/api/v1/plugins`)).body.plugins as Array<Record<string, unknown>>;
        const m = plugins.find((x) => x.name === 'memo')!;
        assert.equal(m.activation_height, at, `validator ${i}`);
        assert.equal(m.status, (await height(i)) + 1 >= at ? 'active' : 'scheduled');
      }
      // Validator 3 is down across the switch and catches up through it afterwards.
      await net.stopValidator(3);
      await until('the chain past the activation height', async () => ((await height()) >= at + 3 ? true : undefined), 120_000);
      await net.startValidator(3);
      await until('validator 3 caught up', async () => ((await height(3)) >= at + 3 ? true : undefined), 120_000);
      const ok = await memo('now active');
      assert.equal(ok.status, 200, JSON.stringify(ok.body));
      const memoTx = await waitConfirmed(rpc(), ok.body.tx_hash as string);
      assert.equal(memoTx.status, 'confirmed');
      for (let h = p.block as number; h <= at + 3; h++) {
        const r0 = await rootAt(h, 0);
        for (let i = 1; i < 4; i++) assert.equal(await rootAt(h, i), r0, `state root at height ${h} on validator ${i}`);
      }

      const retireStart = (await height()) + 1;
      const retireAt = retireStart + WINDOW + 40;
      const r = await propose(v1, owner1, { kind: 'PARAM_CHANGE', payload: { param_key: 'plugin:memo', param_value: `retire@${retireAt}` } });
      const rid = Number(((await getJson(`${rpc()}/api/v1/governance/proposals?status=active`)).body.proposals as Array<{ id: number; tx_hash: string }>).find((x) => x.tx_hash === r.hash)!.id);
      await vote(v1, owner1, rid, true);
      assert.equal((await closed(rid)).applied, true);
      for (let i = 0; i < 4; i++) await until(`validator ${i} past the retirement`, async () => ((await height(i)) >= retireAt + 1 ? true : undefined), 120_000);
      const refused = await memo('too late');
      assert.equal(refused.status, 403, JSON.stringify(refused.body));
      assert.match(String(refused.body.error), /plugin "memo" is retired, not active/);
      for (let i = 0; i < 4; i++) {
        const m = ((await getJson(`${rpc(i)}/api/v1/plugins`)).body.plugins as Array<Record<string, unknown>>).find((x) => x.name === 'memo')!;
        assert.equal(m.status, 'retired');
        assert.equal(m.retire_height, retireAt);
        // Its state stays readable.
        const read = await getJson(`${rpc(i)}/api/v1/memo/${carol.address}`);
        assert.equal(read.status, 200);
        assert.equal(read.body.text, 'now active');
      }
      for (let h = retireAt - 2; h <= retireAt + 1; h++) {
        const r0 = await rootAt(h, 0);
        for (let i = 1; i < 4; i++) assert.equal(await rootAt(h, i), r0, `state root at height ${h} on validator ${i}`);
      }
    } finally {
      stop = true;
      await load;
    }
    assert.ok(sent > 50, `the load kept going (${sent} transfers)`);
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
