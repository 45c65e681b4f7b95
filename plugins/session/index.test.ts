import { test } from 'node:test';
import assert from 'node:assert/strict';
import { labelledWallet, makeChain, signOperation, signTransfer, type Fixture, type Wallet } from '../../test/helpers/chain-fixture.js';
import { Type } from '@sinclair/typebox';
import { defineOperation, definePlugin, isChainError, type NodeServices } from '../../kernel/sdk.js';
import { sessionPlugin } from './index.js';
import { cataloguedPlugin } from '../../test/helpers/catalogued-plugin.js';
const stakingPlugin = cataloguedPlugin('staking');

const owner = labelledWallet('session-owner');
const agent = labelledWallet('session-agent');
const shop = labelledWallet('session-shop');
const other = labelledWallet('session-other');
const SESSION = 'chain:system.session';
let clock = 1_800_000_000_000;

async function chain(): Promise<Fixture> {
  return makeChain({ plugins: [sessionPlugin], accounts: [{ address: owner.address, balance: 10_000_000n }] });
}

const grantBody = (w: Wallet, body: Record<string, unknown>, account = owner.address, kind = 'grant_session') => signOperation(w, { kind, actor: account, target: SESSION, nonce: ++clock, body: { account, ...body } });

async function expectRefused(p: Promise<unknown>, status: number, re: RegExp): Promise<void> {
  await assert.rejects(p, (e: unknown) => isChainError(e) && e.status === status && re.test(e.message));
}

async function receiptOf(f: Fixture, hash: string) {
  return (await f.chain.lookupTx(hash))!.receipt!;
}

async function grant(f: Fixture, body: Record<string, unknown>): Promise<void> {
  const r = await f.chain.admitOperation('grant_session', grantBody(owner, { session_pk: agent.publicKeyHex, ...body }), {}, 0);
  await f.block();
  assert.equal((await receiptOf(f, r.tx_hash)).status, 'confirmed');
}

const nextNonce = async (f: Fixture): Promise<number> => Number((await f.account(owner.address)).nonce) + 1;
const asAgent = async (f: Fixture, to: string, value: number, nonce?: number) => signTransfer(agent, { from: owner.address, to, value, nonce: nonce ?? (await nextNonce(f)) });

test('a session key sends within scope and cap; the cap counts value, not fees; beyond it, another address or the expiry block is 401', async () => {
  const f = await chain();
  await grant(f, { scope: [shop.address], cap: 1000, expiry_block: 6 });
  const ok = await f.chain.admit(await asAgent(f, shop.address, 600), 0);
  await f.block();
  assert.equal((await receiptOf(f, ok.tx_hash)).status, 'confirmed');
  assert.equal((await f.account(shop.address)).balance, 600n);
  await expectRefused(f.chain.admit(await asAgent(f, shop.address, 401), 0), 401, /session spend cap exceeded: 600 of 1000 ucoin spent, 401 more asked/);
  await expectRefused(f.chain.admit(await asAgent(f, other.address, 1), 0), 401, /scope does not include/);
  const last = await f.chain.admit(await asAgent(f, shop.address, 400), 0);
  await f.block();
  assert.equal((await receiptOf(f, last.tx_hash)).status, 'confirmed', 'exactly the cap is inside it, fees on top');
  // Heights so far: 1 grant, 2 and 3 transfers; block 6 is the expiry block.
  await grant(f, { scope: '*', cap: 1000, expiry_block: 6 });
  await f.block();
  await expectRefused(f.chain.admit(await asAgent(f, other.address, 1), 0), 401, /expired: valid in blocks below expiry_block 6, this is block 6/);
});

test('the cap counts the key\'s pending transactions at admission: a second transfer that would pass it with the first is 401, not admitted to fail in its block', async () => {
  const f = await chain();
  await grant(f, { scope: '*', cap: 1000, expiry_block: 100 });
  const n = await nextNonce(f);
  const first = await f.chain.admit(await asAgent(f, shop.address, 600, n), 0);
  await expectRefused(f.chain.admit(await asAgent(f, shop.address, 401, n + 1), 0), 401, /session spend cap exceeded: 0 of 1000 ucoin spent and 600 held by pending transactions, 401 more asked/);
  // Within the cap with the pending one, the next nonce is taken; the owner's main key is not a session key's cap.
  const second = await f.chain.admit(await asAgent(f, shop.address, 400, n + 1), 0);
  const main = await f.chain.admit(signTransfer(owner, { to: shop.address, value: 5000, nonce: n + 2 }), 0);
  await f.block();
  for (const r of [first, second, main]) assert.equal((await receiptOf(f, r.tx_hash)).status, 'confirmed');
  assert.equal((await f.account(shop.address)).balance, 6000n);
});

test('a session key cannot grant or revoke keys, whatever its scope; in a block whose proposer skipped checkTx the over-cap transfer fails with nothing charged', async () => {
  const f = await chain();
  await grant(f, { scope: '*', cap: 100, expiry_block: 100 });
  const bySession = grantBody(agent, { session_pk: other.publicKeyHex, scope: '*', cap: 10, expiry_block: 100 });
  await expectRefused(f.chain.admitOperation('grant_session', bySession, {}, 0), 401, /only a main key of the account may grant session keys: a session key may not/);
  const revokeBySession = signOperation(agent, { kind: 'revoke_session', actor: owner.address, target: SESSION, nonce: ++clock, body: { account: owner.address, session_pk: agent.publicKeyHex } });
  await expectRefused(f.chain.admitOperation('revoke_session', revokeBySession, {}, 0), 401, /only a main key/);
  await grant(f, { scope: [shop.address], cap: 100, expiry_block: 100 });
  await expectRefused(f.chain.admitOperation('grant_session', grantBody(agent, { session_pk: other.publicKeyHex, scope: '*', cap: 10, expiry_block: 100 }), {}, 0), 401, /only a main key of the account may grant session keys/);

  const before = (await f.account(owner.address)).balance;
  f.chain.mempool.add(f.chain.rebuildTx('signed', await asAgent(f, shop.address, 101), 1n, 0));
  f.chain.mempool.add(f.chain.rebuildTx('signed', f.operations.envelope('grant_session', bySession, {}), 1n, 0));
  const b = await f.block();
  const receipts = await Promise.all(b.tx_hashes.map((h) => receiptOf(f, h)));
  assert.deepEqual(receipts.map((r) => r.status), ['failed', 'failed']);
  assert.match(receipts[0]!.error!, /session spend cap exceeded/);
  assert.match(receipts[1]!.error!, /only a main key/);
  assert.equal((await f.account(owner.address)).balance, before, 'both were refused in authorization: nothing moved, no fee');
});

test('revocation takes effect from the next block: admission refuses, and a transaction still pending or injected later fails in the block', async () => {
  const f = await chain();
  await grant(f, { scope: '*', cap: 1000, expiry_block: 100 });
  const pending = await asAgent(f, shop.address, 5);
  const revoke = await f.chain.admitOperation('revoke_session', grantBody(owner, { session_pk: agent.publicKeyHex }, owner.address, 'revoke_session'), {}, 0);
  const revokedIn = await f.block();
  assert.equal((await receiptOf(f, revoke.tx_hash)).status, 'confirmed');
  await expectRefused(f.chain.admit(pending, 0), 401, new RegExp(`session key revoked: revoked in block ${revokedIn.header.height}, refused from block ${revokedIn.header.height + 1}`));
  f.chain.mempool.add(f.chain.rebuildTx('signed', pending, 1n, 0));
  const b = await f.block();
  const r = await receiptOf(f, b.tx_hashes[0]!);
  assert.equal(r.status, 'failed');
  assert.match(r.error!, /session key revoked/);
  assert.equal((await f.account(shop.address)).balance, 0n);
});

test('grant rules: scope entries are addresses, expiry above the current block, a main key is no session key; revoke names a granted key', async () => {
  const f = await chain();
  const tryGrant = (body: Record<string, unknown>) => f.chain.admitOperation('grant_session', grantBody(owner, { session_pk: agent.publicKeyHex, scope: '*', cap: 1, expiry_block: 50, ...body }), {}, 0);
  await expectRefused(tryGrant({ scope: ['nowhere'] }), 400, /scope: "nowhere" is not a chain address/);
  await expectRefused(tryGrant({ scope: [] }), 400, /scope/);
  await expectRefused(tryGrant({ expiry_block: 1 }), 400, /expiry_block 1 is not above block 1/);
  await expectRefused(tryGrant({ session_pk: owner.publicKeyHex }), 400, /main key of the account/);
  await expectRefused(tryGrant({ cap: '5' }), 400, /cap/);
  const unknown = grantBody(owner, { session_pk: other.publicKeyHex }, owner.address, 'revoke_session');
  await expectRefused(f.chain.admitOperation('revoke_session', unknown, {}, 0), 404, /no session key/);
  const stranger = signOperation(other, { kind: 'grant_session', actor: owner.address, target: SESSION, nonce: ++clock, body: { account: owner.address, session_pk: other.publicKeyHex, scope: '*', cap: 1, expiry_block: 50 } });
  await expectRefused(f.chain.admitOperation('grant_session', stranger, {}, 0), 401, /not bound to/);
});

/** An operation that says it takes nothing and takes `amount` (a plugin whose declaration is wrong, or lies). */
const undeclared = defineOperation({
  name: 'undeclared_debit',
  description: 'test: debits the account without declaring it',
  routes: [{ method: 'POST', path: '/test/undeclared' }],
  schema: Type.Object({ account: Type.String(), amount: Type.Integer({ minimum: 0 }) }, { additionalProperties: false }),
  signsFor: 'chain:system.probe',
  value: null,
  gas: 20,
  debits: () => 0n,
  async execute(ctx, op) {
    await ctx.accounts.transfer(op.actor, shop.address, BigInt(op.body.amount));
  },
});
const probe = definePlugin<Record<string, never>, NodeServices>({ name: 'probe', kind: 'state', description: 'test', operations: [undeclared], register() {} });

test('the cap counts every ucoin an operation takes, fees aside (decisions.md §95): register_node through a session key is 401 against a 1 000-ucoin cap, and fails in a block with nothing charged', async () => {
  const f = await makeChain({ plugins: [stakingPlugin, sessionPlugin, probe], accounts: [{ address: owner.address, balance: 100_000_000n }], genesisParams: { min_stake: '10000000' } });
  await grant(f, { scope: '*', cap: 1000, expiry_block: 100 });
  const register = signOperation(agent, { kind: 'register_node', actor: owner.address, target: 'chain:system.node', nonce: ++clock, body: { name: 'capped', owner: owner.address } });
  await expectRefused(f.chain.admitOperation('register_node', register, {}, 0), 401, /session spend cap exceeded: 0 of 1000 ucoin spent, 10000000 more asked/);
  const before = (await f.account(owner.address)).balance;
  f.chain.mempool.add(f.chain.rebuildTx('signed', f.operations.envelope('register_node', register, {}), 1n, 0));
  const b = await f.block();
  const r = await receiptOf(f, b.tx_hashes[0]!);
  assert.deepEqual([r.status, r.fee], ['failed', 0n]);
  assert.match(r.error!, /session spend cap exceeded/);
  assert.equal((await f.account(owner.address)).balance, before, 'nothing bonded, nothing charged');
});

test('what an operation really took is counted, whatever it declared: past the cap it fails in the block, its writes rolled back; within it, spent grows by it', async () => {
  const f = await makeChain({ plugins: [sessionPlugin, probe], accounts: [{ address: owner.address, balance: 10_000_000n }] });
  await grant(f, { scope: '*', cap: 1000, expiry_block: 100 });
  const take = (amount: number) => signOperation(agent, { kind: 'undeclared_debit', actor: owner.address, target: 'chain:system.probe', nonce: ++clock, body: { account: owner.address, amount } });
  const within = await f.chain.admitOperation('undeclared_debit', take(600), {}, 0);
  await f.block();
  assert.equal((await receiptOf(f, within.tx_hash)).status, 'confirmed');
  const beyond = await f.chain.admitOperation('undeclared_debit', take(5000), {}, 0);
  const before = (await f.account(owner.address)).balance;
  await f.block();
  const r = await receiptOf(f, beyond.tx_hash);
  assert.equal(r.status, 'failed');
  assert.match(r.error!, /session spend cap exceeded: 600 of 1000 ucoin spent, 5000 more asked/);
  assert.equal((await f.account(owner.address)).balance, before - 20n, 'only the fee: the 5 000 came back with the rollback');
  assert.equal((await f.account(shop.address)).balance, 600n);
  const list = (await f.chain.queries.state.scan('session/grant/')).map(([, v]) => JSON.parse(new TextDecoder().decode(v)) as { spent: { $big: string } | number });
  assert.deepEqual(list.map((g) => g.spent), [{ $big: '600' }]);
});

test('a session key may not set gas_price above base_fee (401): it would hand the balance to a proposer as fees the cap does not count; nor in a block', async () => {
  const f = await chain();
  await grant(f, { scope: '*', cap: 1000, expiry_block: 100 });
  const pricey = signTransfer(agent, { from: owner.address, to: shop.address, value: 1, nonce: await nextNonce(f), gas_price: 1_000_000 });
  await expectRefused(f.chain.admit(pricey, 0), 401, /session key may not set gas_price above base_fee: 1000000 > 1/);
  const before = (await f.account(owner.address)).balance;
  f.chain.mempool.add(f.chain.rebuildTx('signed', pricey, 1n, 0));
  const b = await f.block();
  const r = await receiptOf(f, b.tx_hashes[0]!);
  assert.deepEqual([r.status, r.fee], ['failed', 0n]);
  assert.equal((await f.account(owner.address)).balance, before);
  const atBase = await f.chain.admit(signTransfer(agent, { from: owner.address, to: shop.address, value: 1, nonce: await nextNonce(f), gas_price: 1 }), 0);
  await f.block();
  assert.equal((await receiptOf(f, atBase.tx_hash)).status, 'confirmed');
});
