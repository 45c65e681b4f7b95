import { test } from 'node:test';
import assert from 'node:assert/strict';
import { certifiedBlock, genesisDoc, labelledWallet, makeChain, refused, signOperation, signTransfer, type Fixture, type Wallet } from '../../test/helpers/chain-fixture.js';
import { provenGet } from '../../test/helpers/proven-read.js';
import type { NodeServices } from '../../kernel/sdk.js';
import { vaultsPlugin } from './index.js';
import { proposals, vaults } from './store.js';
import { kernelRoutes } from '../../test/helpers/kernel-routes.js';
import { cataloguedPlugin } from '../../test/helpers/catalogued-plugin.js';
const stakingPlugin = cataloguedPlugin('staking');
const namesPlugin = cataloguedPlugin('names');

/**
 * Vaults in consensus: each rule at admission and again in a block whose proposer skipped
 * admission, the threshold edge, expiry at exactly `expires_height`, and payouts that together
 * exceed the balance.
 */
const alice = labelledWallet('vault-alice');
const bob = labelledWallet('vault-bob');
const carol = labelledWallet('vault-carol');
const COIN = 1_000_000n;
const VAULT = 'chain:family-fund.vault';
const EXPIRY = 4;
let nonce = 1_810_000_000_000;

const op = (w: Wallet, kind: string, target: string, body: Record<string, unknown>, value = 0) => signOperation(w, { kind, actor: w.address, target, nonce: ++nonce, body, value });
const register = (w: Wallet, name = 'family-fund') => op(w, 'register_vault', 'chain:system.node', { name, owner: w.address, node_address: `chain:${name}.vault` });
const payout = (w: Wallet, to: string, amount: number) => op(w, 'create_vault_proposal', VAULT, { vault: VAULT, proposer: w.address, to, amount }, amount);
const addMember = (w: Wallet, member: string) => op(w, 'add_vault_member', VAULT, { vault: VAULT, member, requester: w.address });
const removeMember = (w: Wallet, member: string) => op(w, 'remove_vault_member', VAULT, { vault: VAULT, member, requester: w.address, remove: true });
const threshold = (w: Wallet, t: number) => op(w, 'set_vault_threshold', VAULT, { vault: VAULT, threshold: t, requester: w.address });
const sign = (w: Wallet, id: number) => op(w, 'sign_vault_proposal', VAULT, { vault: VAULT, signer: w.address });
const admitSign = (f: Fixture, w: Wallet, id: number) => f.chain.admitOperation('sign_vault_proposal', sign(w, id), { vault: VAULT, id: String(id) }, 0);

async function injected(f: Fixture, name: string, body: Record<string, unknown>, path: Record<string, string> = {}): Promise<{ status: string; error: string | null }> {
  const tx = f.chain.rebuildTx('signed', f.operations.envelope(name, body, path), 1n, 0);
  f.chain.mempool.add(tx);
  await f.block();
  const stored = await f.chain.queries.getTx(tx.hash);
  return { status: stored!.receipt.status, error: stored!.receipt.error };
}

async function confirmedAll(f: Fixture, hashes: string[]): Promise<void> {
  await f.block();
  for (const h of hashes) {
    const r = (await f.chain.queries.getTx(h))!.receipt;
    assert.equal(r.status, 'confirmed', r.error ?? '');
  }
}

async function withVault(expiry = 50): Promise<Fixture> {
  const f = await makeChain({ plugins: [stakingPlugin, namesPlugin, vaultsPlugin], accounts: [alice, bob, carol].map((w) => ({ address: w.address, balance: 1_000n * COIN })), genesisParams: { vault_proposal_expiry_blocks: String(expiry) } });
  const r = await f.chain.admitOperation('register_vault', register(alice), {}, 0);
  await confirmedAll(f, [r.tx_hash]);
  return f;
}
const state = (f: Fixture) => f.pluginState('vaults');
const proposal = async (f: Fixture, id: number) => (await proposals.get(state(f), VAULT, id))!;

test('a vault created, funded by a plain transfer, paid out at threshold 1 in its creating transaction; a plain transaction from it refused', async () => {
  const f = await withVault();
  assert.deepEqual((await vaults.get(state(f), VAULT))?.members, [alice.address]);
  await f.chain.admit(signTransfer(bob, { to: VAULT, value: 5_000, nonce: 1 }), 0);
  await f.block();
  assert.equal((await f.account(VAULT)).balance, 5_000n);
  const carolBefore = (await f.account(carol.address)).balance;
  const r = await f.chain.admitOperation('create_vault_proposal', payout(alice, carol.address, 1_200), { vault: VAULT }, 0);
  await confirmedAll(f, [r.tx_hash]);
  assert.equal((await proposal(f, 1)).status, 'executed');
  assert.equal((await f.account(VAULT)).balance, 3_800n);
  assert.equal((await f.account(carol.address)).balance, carolBefore + 1_200n);
  await refused(f.chain.admit(signTransfer(alice, { from: VAULT, to: bob.address, value: 1, nonce: 1 }), 0), 400, /only by an executed payout/);
  await refused(f.chain.admitOperation('register_vault', register(bob), {}, 0), 409, /already registered/);
  await refused(f.chain.admitOperation('register_node', { ...register(bob, 'other') }, {}, 0), 400, /register_vault body/);
});

test('the signature that reaches the threshold executes, the one before does not; above the balance it is refused and paid once funded', async () => {
  const f = await withVault();
  await f.chain.admit(signTransfer(bob, { to: VAULT, value: 10_000, nonce: 1 }), 0);
  const add = await f.chain.admitOperation('add_vault_member', addMember(alice, bob.address), { vault: VAULT }, 0);
  await confirmedAll(f, [add.tx_hash]);
  const raise = await f.chain.admitOperation('set_vault_threshold', threshold(alice, 2), { vault: VAULT }, 0);
  await confirmedAll(f, [raise.tx_hash]);
  assert.deepEqual(await vaults.get(state(f), VAULT).then((v) => [v?.members, v?.threshold]), [[alice.address, bob.address], 2]);

  // Proposal 3: a payout of 4 000 by alice (one signature of two): open; bob's executes it.
  const carolBefore = (await f.account(carol.address)).balance;
  await confirmedAll(f, [(await f.chain.admitOperation('create_vault_proposal', payout(alice, carol.address, 4_000), { vault: VAULT }, 0)).tx_hash]);
  assert.equal((await proposal(f, 3)).status, 'open');
  assert.equal((await f.account(VAULT)).balance, 10_000n);
  await refused(admitSign(f, alice, 3), 400, /already signed/);
  await refused(admitSign(f, carol, 3), 403, /not a member/);
  await confirmedAll(f, [(await admitSign(f, bob, 3)).tx_hash]);
  assert.equal((await proposal(f, 3)).status, 'executed');
  assert.equal((await f.account(VAULT)).balance, 6_000n);
  assert.equal((await f.account(carol.address)).balance, carolBefore + 4_000n);

  // Proposal 4: above the balance: refused at its last signature, in a block too, then paid once funded.
  await confirmedAll(f, [(await f.chain.admitOperation('create_vault_proposal', payout(alice, carol.address, 9_000), { vault: VAULT }, 0)).tx_hash]);
  await refused(admitSign(f, bob, 4), 400, /the payout is 9000 ucoin and chain:family-fund\.vault holds 6000/);
  const short = await injected(f, 'sign_vault_proposal', sign(bob, 4), { vault: VAULT, id: '4' });
  assert.equal(short.status, 'failed');
  assert.match(short.error!, /insufficient vault balance/);
  assert.deepEqual((await proposal(f, 4)).signatures, [alice.address], 'the failed signature is not recorded');
  await f.chain.admit(signTransfer(bob, { to: VAULT, value: 3_000, nonce: 2 }), 0);
  await f.block();
  await confirmedAll(f, [(await admitSign(f, bob, 4)).tx_hash]);
  assert.equal((await proposal(f, 4)).status, 'executed');
  assert.equal((await f.account(VAULT)).balance, 0n);

  // Checks a proposer skipping admission cannot pass: a non-member's signature, a second signature.
  await confirmedAll(f, [(await f.chain.admitOperation('create_vault_proposal', payout(alice, carol.address, 1), { vault: VAULT }, 0)).tx_hash]);
  assert.match((await injected(f, 'sign_vault_proposal', sign(carol, 5), { vault: VAULT, id: '5' })).error!, /not a member/);
  assert.match((await injected(f, 'sign_vault_proposal', sign(alice, 5), { vault: VAULT, id: '5' })).error!, /already signed/);

  // A threshold change, executed by bob's signature, cancels the open payout 5; a member removed.
  await refused(f.chain.admitOperation('remove_vault_member', removeMember(alice, bob.address), { vault: VAULT }, 0), 400, /fewer than the threshold 2/);
  await refused(f.chain.admitOperation('set_vault_threshold', threshold(alice, 3), { vault: VAULT }, 0), 400, /from 1 to the number of members/);
  await confirmedAll(f, [(await f.chain.admitOperation('set_vault_threshold', threshold(alice, 1), { vault: VAULT }, 0)).tx_hash]);
  assert.equal((await proposal(f, 6)).status, 'open');
  await confirmedAll(f, [(await admitSign(f, bob, 6)).tx_hash]);
  assert.equal((await proposal(f, 6)).status, 'executed');
  assert.equal((await proposal(f, 5)).status, 'cancelled', 'signatures given under another policy');
  await refused(admitSign(f, bob, 5), 400, /is cancelled/);
  await confirmedAll(f, [(await f.chain.admitOperation('remove_vault_member', removeMember(alice, bob.address), { vault: VAULT }, 0)).tx_hash]);
  assert.deepEqual(await vaults.get(state(f), VAULT).then((v) => [v?.members, v?.threshold]), [[alice.address], 1]);
  await refused(f.chain.admitOperation('create_vault_proposal', payout(bob, carol.address, 1), { vault: VAULT }, 0), 403, /not a member/);
});

test('a proposal expires at exactly expires_height; two payouts in one block beyond the balance: the second fails', async () => {
  const f = await withVault(EXPIRY);
  await confirmedAll(f, [(await f.chain.admitOperation('add_vault_member', addMember(alice, bob.address), { vault: VAULT }, 0)).tx_hash]);
  await confirmedAll(f, [(await f.chain.admitOperation('set_vault_threshold', threshold(alice, 2), { vault: VAULT }, 0)).tx_hash]);
  await confirmedAll(f, [(await f.chain.admitOperation('create_vault_proposal', payout(alice, carol.address, 1), { vault: VAULT }, 0)).tx_hash]);
  const p = await proposal(f, 3);
  assert.equal(p.expires_height, p.created_height + EXPIRY);
  while (f.chain.head.height < p.expires_height - 1) await f.block();
  assert.equal((await proposal(f, 3)).status, 'open', 'open at expires_height − 1');
  await f.block();
  assert.equal(f.chain.head.height, p.expires_height);
  assert.equal((await proposal(f, 3)).status, 'expired', 'expired from expires_height');
  await refused(admitSign(f, bob, 3), 400, /is expired: only an open proposal/);

  await confirmedAll(f, [(await f.chain.admitOperation('set_vault_threshold', threshold(alice, 1), { vault: VAULT }, 0)).tx_hash]);
  assert.equal((await proposal(f, 4)).status, 'open');
  await confirmedAll(f, [(await admitSign(f, bob, 4)).tx_hash]);
  await f.chain.admit(signTransfer(carol, { to: VAULT, value: 1_000, nonce: 1 }), 0);
  await f.block();
  const first = await f.chain.admitOperation('create_vault_proposal', payout(alice, carol.address, 700), { vault: VAULT }, 0);
  const second = await f.chain.admitOperation('create_vault_proposal', payout(bob, carol.address, 700), { vault: VAULT }, 0);
  await f.block();
  assert.equal((await f.chain.queries.getTx(first.tx_hash))!.receipt.status, 'confirmed');
  const failed = (await f.chain.queries.getTx(second.tx_hash))!.receipt;
  assert.equal(failed.status, 'failed');
  assert.match(failed.error!, /the payout is 700 ucoin and chain:family-fund\.vault holds 300/);
  assert.equal((await f.account(VAULT)).balance, 300n);
});

test('a pending payout holds nothing of its proposer\'s balance: the vault pays it (decisions.md §43)', async () => {
  const f = await withVault();
  for (const [w, n] of [[bob, 1], [carol, 1]] as const) await f.chain.admit(signTransfer(w, { to: VAULT, value: Number(900n * COIN), nonce: n }), 0);
  await f.block();
  const aliceBefore = (await f.account(alice.address)).balance;
  assert.ok(aliceBefore < 1_200n * COIN);
  // 1 200 COIN from the vault, more than alice holds; then a transfer of most of alice's own coins.
  const pay = await f.chain.admitOperation('create_vault_proposal', payout(alice, carol.address, Number(1_200n * COIN)), { vault: VAULT }, 0);
  const own = await f.chain.admit(signTransfer(alice, { to: bob.address, value: Number(500n * COIN), nonce: 1 }), 0);
  await confirmedAll(f, [pay.tx_hash, own.tx_hash]);
  assert.equal((await f.account(VAULT)).balance, 600n * COIN);
  const fees = (await f.chain.queries.getTx(pay.tx_hash))!.receipt.fee + (await f.chain.queries.getTx(own.tx_hash))!.receipt.fee;
  assert.equal((await f.account(alice.address)).balance, aliceBefore - 500n * COIN - fees, 'alice paid her transfer and two fees, not the payout');
});

test('the expiry sweep expires at most 256 proposals a block, in (height, vault, id) order; the rest in the next block', async () => {
  const f = await makeChain({ plugins: [stakingPlugin, namesPlugin, vaultsPlugin], accounts: [alice, bob].map((w) => ({ address: w.address, balance: 1_000n * COIN })), genesisParams: { vault_proposal_expiry_blocks: String(EXPIRY), max_block_gas: '100000', max_block_bytes: '3500000' }, mempool: { maxTxs: 2_000, maxPerSender: 1_000 } });
  await confirmedAll(f, [(await f.chain.admitOperation('register_vault', register(alice), {}, 0)).tx_hash]);
  await confirmedAll(f, [(await f.chain.admitOperation('add_vault_member', addMember(alice, bob.address), { vault: VAULT }, 0)).tx_hash]);
  await confirmedAll(f, [(await f.chain.admitOperation('set_vault_threshold', threshold(alice, 2), { vault: VAULT }, 0)).tx_hash]);
  // 300 open proposals (ids 3 to 302) created in one block, so they all expire at one height
  // (about 10.7 kB each with key and signature: the block's byte bound raised to its maximum).
  const COUNT = 300;
  for (let i = 0; i < COUNT; i++) f.chain.mempool.add(f.chain.rebuildTx('signed', f.operations.envelope('create_vault_proposal', payout(alice, bob.address, 1), { vault: VAULT }), 1n, 0));
  await f.block();
  const created = await proposal(f, 3);
  assert.equal((await proposal(f, 2 + COUNT)).created_height, created.created_height, 'all in one block');
  while (f.chain.head.height < created.expires_height) await f.block();
  const statuses = async () => Promise.all(Array.from({ length: COUNT }, async (_, i) => (await proposal(f, 3 + i)).status));
  const atExpiry = await statuses();
  assert.deepEqual(atExpiry.slice(0, 256), Array(256).fill('expired'), 'the first 256 by id');
  assert.deepEqual(atExpiry.slice(256), Array(COUNT - 256).fill('open'), 'the rest wait for the next block');
  // One the sweep has not reached is expired all the same: it cannot be signed.
  await refused(admitSign(f, bob, 2 + COUNT), 400, /expired at height/);
  await f.block();
  assert.deepEqual(await statuses(), Array(COUNT).fill('expired'));
});

test('the confirmed transaction that created a proposal carries proposal_id (decisions.md §44); a signature\'s does not', async () => {
  const f = await withVault();
  const get = kernelRoutes(f);
  await confirmedAll(f, [(await f.chain.admitOperation('add_vault_member', addMember(alice, bob.address), { vault: VAULT }, 0)).tx_hash]);
  const raise = await f.chain.admitOperation('set_vault_threshold', threshold(alice, 2), { vault: VAULT }, 0);
  await confirmedAll(f, [raise.tx_hash]);
  await f.chain.admit(signTransfer(carol, { to: VAULT, value: 10, nonce: 1 }), 0);
  const pay = await f.chain.admitOperation('create_vault_proposal', payout(alice, carol.address, 1), { vault: VAULT }, 0);
  await confirmedAll(f, [pay.tx_hash]);
  const signed = await admitSign(f, bob, 3);
  await confirmedAll(f, [signed.tx_hash]);
  assert.equal((await get('/api/v1/transactions/:hash', { hash: raise.tx_hash })).proposal_id, 2);
  const view = await get('/api/v1/transactions/:hash', { hash: pay.tx_hash });
  assert.equal(view.type, 'create_vault_proposal');
  assert.equal(view.proposal_id, 3);
  assert.equal((await get('/api/v1/transactions/:hash', { hash: signed.tx_hash })).proposal_id, undefined);
});

test('a plain transfer into a vault shows type transfer (decisions.md §17) and ?type=transfer lists it beside the account\'s other transfers', async () => {
  const f = await withVault();
  const get = kernelRoutes(f);
  const deposit = await f.chain.admit(signTransfer(carol, { to: VAULT, value: 10, nonce: 1 }), 0);
  const plain = await f.chain.admit(signTransfer(carol, { to: bob.address, value: 10, nonce: 2 }), 0);
  await confirmedAll(f, [deposit.tx_hash as string, plain.tx_hash as string]);
  assert.equal((await get('/api/v1/transactions/:hash', { hash: deposit.tx_hash as string })).type, 'transfer');
  const listed = await get('/api/v1/transactions', {}, `address=${carol.address}&type=transfer`);
  assert.deepEqual((listed.transactions as Array<{ hash: string; type: string }>).map((t) => [t.hash, t.type]).sort(), [[deposit.tx_hash, 'transfer'], [plain.tx_hash, 'transfer']].sort());
  assert.equal(listed.total, 2);
});

test('the other rules of §44 at admission, each with its status, nothing moved: unknown vault or proposal 404, a key not bound 401, amount, recipient, member and threshold 400', async () => {
  const f = await withVault();
  await f.chain.admit(signTransfer(bob, { to: VAULT, value: 5_000, nonce: 1 }), 0);
  await f.block();
  const before = await Promise.all([alice, bob, carol].map(async (w) => (await f.account(w.address)).balance));
  const OTHER = 'chain:no-such-fund.vault';
  await refused(f.chain.admitOperation('create_vault_proposal', op(alice, 'create_vault_proposal', OTHER, { vault: OTHER, proposer: alice.address, to: bob.address, amount: 1 }, 1), { vault: OTHER }, 0), 404, /no-such-fund/);
  await refused(admitSign(f, alice, 99), 404, /99/);
  // carol's key signing as alice, a member: the key is not bound to the member it names.
  const forged = signOperation(carol, { kind: 'create_vault_proposal', actor: alice.address, target: VAULT, nonce: ++nonce, body: { vault: VAULT, proposer: alice.address, to: bob.address, amount: 1 }, value: 1 });
  await assert.rejects(f.chain.admitOperation('create_vault_proposal', forged, { vault: VAULT }, 0), (e: { status?: number }) => e.status === 401);
  for (const amount of [0, -5, 1.5]) {
    const body = op(alice, 'create_vault_proposal', VAULT, { vault: VAULT, proposer: alice.address, to: bob.address, amount }, 0);
    await assert.rejects(f.chain.admitOperation('create_vault_proposal', body, { vault: VAULT }, 0), (e: { status?: number }) => e.status === 400, `amount ${amount}`);
  }
  await refused(f.chain.admitOperation('create_vault_proposal', payout(alice, VAULT, 1), { vault: VAULT }, 0), 400, /to chain:family-fund\.vault is this vault: a payout goes else/);
  await refused(f.chain.admitOperation('create_vault_proposal', payout(alice, 'chain:0123456789.app', 1), { vault: VAULT }, 0), 400, /to chain:0123456789\.app is a contract \(\.app\): a vault pays o/);
  await refused(f.chain.admitOperation('create_vault_proposal', op(alice, 'create_vault_proposal', VAULT, { vault: VAULT, proposer: alice.address, to: bob.address, amount: 1, description: 'x'.repeat(501) }, 1), { vault: VAULT }, 0), 400, /create_vault_proposal: description: Expected string length l/);
  await refused(f.chain.admitOperation('add_vault_member', addMember(alice, alice.address), { vault: VAULT }, 0), 400, /chain:91540586810b87c\.human is already a member of chain:fam/);
  await refused(f.chain.admitOperation('add_vault_member', addMember(alice, 'chain:family-fund.vault'), { vault: VAULT }, 0), 400, /member chain:family-fund\.vault must be a key-derived \.human /);
  await refused(f.chain.admitOperation('remove_vault_member', removeMember(alice, bob.address), { vault: VAULT }, 0), 400, /chain:2c45b188f4f8852\.human is not a member of chain:family-/);
  await refused(f.chain.admitOperation('remove_vault_member', removeMember(alice, alice.address), { vault: VAULT }, 0), 400, /removing chain:91540586810b87c\.human would leave 0 members, /);
  await refused(f.chain.admitOperation('set_vault_threshold', threshold(alice, 1), { vault: VAULT }, 0), 400, /threshold is already 1/);
  await refused(f.chain.admitOperation('set_vault_threshold', threshold(alice, 0), { vault: VAULT }, 0), 400, /threshold must be an integer from 1 to the number of members/);
  assert.equal(f.chain.mempool.size, 0, 'nothing admitted');
  await f.block();
  assert.deepEqual(await Promise.all([alice, bob, carol].map(async (w) => (await f.account(w.address)).balance)), before, 'nothing moved');
  assert.equal((await f.account(VAULT)).balance, 5_000n);
  assert.equal(await proposals.has(state(f), VAULT, 1), false);
});

test('?prove=true on a vault\'s config proves its record and its account (the balance), and a client checks both (§84–85)', async () => {
  const services: { query?: NodeServices['query'] } = {};
  const accounts = [alice, bob, carol].map((w) => ({ address: w.address, balance: 1_000n * COIN }));
  const f = await makeChain({ plugins: [stakingPlugin, namesPlugin, vaultsPlugin], accounts, services });
  await f.chain.admitOperation('register_vault', register(alice), {}, 0);
  await certifiedBlock(f);
  await f.chain.admit(signTransfer(bob, { to: VAULT, value: 7_000, nonce: 1 }), 0);
  await certifiedBlock(f);
  await certifiedBlock(f);
  const { answer, keys } = await provenGet(f, services, genesisDoc(accounts), '/api/v1/vault/:vault/config', { vault: VAULT });
  assert.deepEqual([answer.members, answer.balance], [[alice.address], 7_000]);
  assert.deepEqual(keys, [[vaults.stateKey(VAULT), true], [`acct/${VAULT}`, true]]);
});
