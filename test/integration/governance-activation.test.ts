import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { labelledWallet, signTransfer } from '../helpers/chain-fixture.js';
import { getJson, postJson, until, waitConfirmed } from '../helpers/node-process.js';
import { startTestDevnet, type TestDevnet } from '../helpers/devnet.js';
import { WINDOW, governanceDriver, type Signer } from '../helpers/governance.js';

/**
 * A state plugin switched on and off by governance on a real 4-validator devnet under a steady
 * transfer load (the test build, so the `memo` test plugin is listed but not active): every
 * validator switches at the same height with the same state root at every height, and a validator
 * down across the switch replays through it. On a devnet of its own: its two voting windows of 100
 * blocks beside governance.test.ts's passed the suite's 300 s per file under load.
 */
let clock = Date.now();
const nonce = (): number => ++clock;

describe('governance switches a state plugin on a real devnet', () => {
  let net: TestDevnet;
  const carol = labelledWallet('gov-carol');
  const loader = labelledWallet('gov-load');
  const sink = labelledWallet('gov-sink');
  let v1: Signer;
  const { rpc, height, sign, propose, vote, closed, rootAt, validator, fund } = governanceDriver(() => net, nonce);

  before(async () => {
    net = await startTestDevnet({ cli: resolve('dist/test/fixtures/test-chain.js'), enablePlugins: ['memo'], disablePlugins: ['memo'], env: { CHAIN_EMPTY_BLOCK_MS: '80' } });
    v1 = validator(1);
    await fund([carol, loader]);
  });
  after(async () => net?.stop());

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
        // About ten a second keeps transfers in the blocks throughout; a faster load only spent the suite's CPU signing them.
        await new Promise((res) => setTimeout(res, 100));
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
      assert.ok((await height(3)) < at - 1, `validator 3 stops before the switch at ${at}, not at ${await height(3)}`);
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
});
