import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeChain, wallet } from '../../test/helpers/chain-fixture.js';
import { faucetPlugin } from './index.js';
import { checkCredit, FAUCET_SENDER, FAUCET_TX } from './credit.js';
import { ONE_SHARD, shardOf, shardView } from '../../kernel/sdk.js';

const owner = wallet(71);
const attacker = wallet(72);
const MAX = 1_000_000_000n;

async function faucetChain() {
  return makeChain({ plugins: [faucetPlugin], pluginConfig: [{ name: 'faucet', options: { default_amount: 50_000_000, max_amount: Number(MAX) } }] });
}

test('the faucet binds a key only to its own derived address: another key\'s address is 409, record and system addresses 400', async () => {
  const f = await faucetChain();
  const ctx = { env: 'testnet' as const, shard: ONE_SHARD, accounts: { get: f.account, getCore: f.account, exists: async (a: string) => (await f.account(a)).balance > 0n, mainKeys: async () => ({ keys: [], version: 0 }) } };
  const ask = (address: string, w = attacker) => checkCredit(ctx, { address, publicKey: w.publicKeyHex, amount: 1n }, MAX);
  assert.equal(await ask(attacker.address), undefined);
  const stolen = await ask(owner.address);
  assert.equal(stolen?.status, 409);
  assert.match(stolen!.message, /derived from another public key/);
  for (const address of ['chain:v0.node', 'chain:validator-3.node', 'chain:system.deploy', 'chain:system.stake', 'chain:ibc.escrow.chan-0', 'chain:someone.human', 'chain:foo.vault']) {
    const r = await ask(address);
    assert.equal(r?.status, 400, address);
    assert.match(r!.message, new RegExp(`only to the address derived from it: ${attacker.address.replace(/\./g, '\\.')}`));
  }
});

test('a faucet credit that steals an address fails in a block whose proposer skipped checkTx; the owner is credited later', async () => {
  const f = await faucetChain();
  const body = (w: typeof owner) => ({ address: owner.address, public_key: w.publicKeyHex, amount: 5, requested_at: 1, type: FAUCET_TX, from: FAUCET_SENDER, to: owner.address, value: 5 });
  const theft = f.chain.rebuildTx('system', body(attacker), 0n, 0);
  f.chain.mempool.add(theft);
  await f.block();
  const stored = await f.chain.queries.getTx(theft.hash);
  assert.equal(stored?.receipt.status, 'failed');
  assert.match(stored?.receipt.error ?? '', /derived from another public key/);
  assert.equal((await f.account(owner.address)).public_key, undefined, 'no key was bound');
  assert.equal((await f.account(owner.address)).balance, 0n);

  const tx = await f.chain.admitSystem(FAUCET_TX, FAUCET_SENDER, owner.address, 5n, { address: owner.address, public_key: owner.publicKeyHex, amount: 5, requested_at: 2 }, 2);
  await f.block();
  assert.equal((await f.chain.queries.getTx(tx.hash))?.receipt.status, 'confirmed');
  assert.equal((await f.account(owner.address)).balance, 5n);
  assert.equal((await f.account(owner.address)).public_key, owner.publicKeyHex);
});

test('a faucet request for an address another shard owns is 400 with that shard (decisions.md §73)', async () => {
  const f = await faucetChain();
  const here = shardOf(attacker.address, 2);
  const accounts = { get: f.account, getCore: f.account, exists: async () => false, mainKeys: async () => ({ keys: [], version: 0 }) };
  const elsewhere = await checkCredit({ env: 'testnet', shard: shardView(1 - here, 2), accounts }, { address: attacker.address, publicKey: attacker.publicKeyHex, amount: 1n }, MAX);
  assert.equal(elsewhere?.status, 400);
  assert.equal(elsewhere?.extra?.shard, here);
  assert.match(elsewhere!.message, new RegExp(`belongs to shard ${here}`));
  assert.equal(await checkCredit({ env: 'testnet', shard: shardView(here, 2), accounts }, { address: attacker.address, publicKey: attacker.publicKeyHex, amount: 1n }, MAX), undefined);
});
