import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeChain, signOperation, signTransfer, wallet, type Fixture } from './helpers/chain-fixture.js';
import { faucetPlugin } from '../plugins/faucet/index.js';
import { FAUCET_SENDER, FAUCET_TX } from '../plugins/faucet/credit.js';
import { beaconPlugin, memoPlugin } from './fixtures/sdk-test-plugins.js';
import { LEDGER_TARGET, ledgerPlugin, PEEK_TARGET, peekPlugin, SWAP_TARGET, swapPlugin } from './fixtures/method-test-plugins.js';
import { METER_ADDRESS, meterPlugin } from './fixtures/gas-test-plugins.js';
import { LEGACY_PLUGINS } from './fixtures/legacy-plugins.js';
import { canonicalJson } from '../kernel/sdk.js';

/*
 * A plugin converted to declared stores and events must keep its state bytes, so a chain that
 * upgrades its build keeps its state roots. One scenario runs on a chain of the legacy (raw
 * `ctx.store`) test plugins and on one of the converted fixtures, the converted faucet on both:
 * same keys, same bytes, same root, same events, block after block.
 */

const alice = wallet(81);
const bob = wallet(82);
const helper = wallet(83);
const MEMO = 'chain:system.memo';
const COIN = 1_000_000n;

type Plugins = Parameters<typeof makeChain>[0] extends infer O ? (O extends { plugins?: infer P } ? P : never) : never;

async function scenario(plugins: Plugins): Promise<{ roots: string[]; state: Array<[string, string]>; events: string[]; receipts: string[] }> {
  const f: Fixture = await makeChain({ plugins: [faucetPlugin, ...(plugins ?? [])], accounts: [{ address: alice.address, balance: 10n * COIN }, { address: bob.address, balance: COIN }] });
  const roots: string[] = [];
  const events: string[] = [];
  const receipts: string[] = [];
  let time = 1_800_000_000_000;
  const block = async (): Promise<void> => {
    const b = await f.block((time += 1000));
    roots.push(b.state_root);
    for (const h of b.tx_hashes) receipts.push(`${(await f.chain.queries.getTx(h))?.receipt.status}`);
    for (const e of await f.chain.queries.getBlockEvents(b.header.height)) events.push(canonicalJson({ type: e.type, data: e.data, phase: e.phase, tx: e.tx_hash }));
  };
  let nonce = 1_800_000_000_000;
  const op = (name: string, target: string, body: Record<string, unknown>) => f.chain.admitOperation(name, signOperation(alice, { actor: alice.address, target, nonce: ++nonce, body: { address: alice.address, ...body } }), {}, nonce);

  await f.chain.admitSystem(FAUCET_TX, FAUCET_SENDER, helper.address, 5n, { address: helper.address, public_key: helper.publicKeyHex, amount: 5, requested_at: 1 }, 1);
  await op('set_memo', MEMO, { text: 'hello' });
  await op('grant_helper', MEMO, { helper_key: helper.publicKeyHex, cap: 1000 });
  await op('mint_tokens', LEDGER_TARGET, { tokens: 500 });
  await block();
  await op('swap_pay', SWAP_TARGET, { to: bob.address, tokens: 120 });
  await op('peek_balance', PEEK_TARGET, {});
  await op('set_memo', MEMO, { text: 'fail: rolled back' });
  await op('metered_work', METER_ADDRESS, { work: 20 });
  await f.chain.admit(signTransfer(alice, { to: METER_ADDRESS, value: 0, nonce: 1, data: JSON.stringify({ gas: 20 }), version: 'v3' }), 0);
  await block();
  await f.chain.admit(signTransfer(helper, { from: alice.address, to: bob.address, value: 300, nonce: 2 }), 0);
  await op('request_update', MEMO, { kind: 'activate', plugin: 'beacon', height: 9 });
  await op('swap_pay', SWAP_TARGET, { to: bob.address, tokens: 5, fail_after: true });
  await block();
  await block();

  const decoder = new TextDecoder();
  const state = (await f.chain.queries.state.scan('')).map(([k, v]) => [k, decoder.decode(v)] as [string, string]);
  return { roots, state, events, receipts };
}

test('the converted test plugins and faucet write exactly the keys, bytes and events the legacy ones did: the same state root at every height', async () => {
  const legacy = await scenario(LEGACY_PLUGINS);
  const converted = await scenario([memoPlugin, beaconPlugin, ledgerPlugin, swapPlugin, peekPlugin, meterPlugin]);
  // The scenario reached every plugin's records (a scenario that failed early would compare nothing).
  const namespaces = new Set(legacy.state.map(([k]) => k.slice(0, k.indexOf('/'))));
  for (const ns of ['memo', 'beacon', 'ledger', 'swap', 'peek', 'meter']) assert.ok(namespaces.has(ns), `the scenario wrote ${ns}'s records`);
  assert.ok(legacy.events.some((e) => e.includes('"faucet"')) && legacy.events.some((e) => e.includes('"ledger_moved"')), 'the scenario emitted events');
  assert.deepEqual(legacy.receipts.filter((r) => r === 'failed').length, 2, 'two transactions fail on purpose, the rest apply');
  assert.deepEqual(converted.receipts, legacy.receipts);
  assert.deepEqual(converted.state, legacy.state);
  assert.deepEqual(converted.events, legacy.events);
  assert.deepEqual(converted.roots, legacy.roots);
});
