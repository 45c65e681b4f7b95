import { test } from 'node:test';
import assert from 'node:assert/strict';
import { certifiedBlock, genesisDoc, makeChain, signOperation, signTransfer, VALIDATOR_KEY, wallet, type Fixture, type Wallet } from '../../test/helpers/chain-fixture.js';
import { isChainError, RouteTable, sha3Hex0x, toHex, type NodeServices, type Receipt } from '../../kernel/sdk.js';
import { provenGet } from '../../test/helpers/proven-read.js';
import { templateUsage, templates } from './template-store.js';
import { code } from './store.js';
import { contractsPlugin } from './index.js';
import { contractAddress, DEPLOY_ADDRESS } from './execute.js';
import { templateId } from './operations/templates.js';
import { kernelRoutes } from '../../test/helpers/kernel-routes.js';
import { wat } from './testing/hostile.js';
import { cataloguedPlugin } from '../../test/helpers/catalogued-plugin.js';
const analyzerPlugin = cataloguedPlugin('analyzer');

const alice = wallet(141);
const ownerKey = wallet(142);
const other = wallet(143);
const AUTHOR = 'chain:author.node';
const OTHER = 'chain:other.node';
const FEE = 1_234_567;
/** decisions.md §46's vector: risk 95. */
const HOSTILE = wat(`(module (memory (export "memory") 1) (func (export "alloc") (param i32) (result i32) (i32.const 1024))
  (func $self (param i32) (result i32) (call $self (local.get 0)))
  (func (export "call") (param i32 i32) (loop $l (drop (memory.grow (i32.const 1))) (br $l))))`);
const TRAPPING = wat(`(module (memory (export "memory") 1) (func (export "alloc") (param i32) (result i32) (i32.const 1024)) (func (export "call") (param i32 i32) unreachable))`);
const MODULE = wat(`(module (memory (export "memory") 1) (func (export "alloc") (param i32) (result i32) (i32.const 1024)) (func (export "call") (param i32 i32)))`);

/** The fixture validator proposes; two more `.node`s, each owned by its key's address, may author templates. */
const VALIDATORS = [{ address: 'chain:v0.node', key: VALIDATOR_KEY, stake: '10000000000' }, { address: AUTHOR, key: ownerKey.keys, stake: '10000000' }, { address: OTHER, key: other.keys, stake: '10000000' }];
const ACCOUNTS = [alice, ownerKey, other].map((w) => ({ address: w.address, balance: 100_000_000n }));

async function chain(services?: { query?: NodeServices['query'] }): Promise<Fixture> {
  return makeChain({ plugins: [contractsPlugin, analyzerPlugin], validators: VALIDATORS, accounts: ACCOUNTS, ...(services ? { services } : {}) });
}

let clock = 1_700_000_000_000;
const register = (w: Wallet, author: string, body: Record<string, unknown> = {}) => signOperation(w, { kind: 'register_template', actor: author, target: 'chain:system.templates', nonce: ++clock, body: { author, name: 'plain', description: 'does nothing', category: 'demo', bytecode_hex: toHex(MODULE), abi_json: '{"functions":[]}', fee_unro: FEE, ...body } });
const deprecate = (w: Wallet, author: string, id: string, del?: boolean) => signOperation(w, { kind: 'deprecate_template', actor: author, target: 'chain:system.templates', nonce: ++clock, body: { template_id: id, author, ...(del === undefined ? {} : { delete: del }) } });
const nonceOf = async (f: Fixture, w: Wallet): Promise<number> => Number((await f.account(w.address)).nonce) + 1;
const deployTx = async (f: Fixture, w: Wallet, fields: Record<string, unknown>, gasLimit = 1_000) => signTransfer(w, { to: DEPLOY_ADDRESS, value: 0, nonce: await nonceOf(f, w), data: JSON.stringify({ name: 'x', ...fields }), gas_limit: gasLimit });
const status = (code: number, re?: RegExp) => (e: unknown) => isChainError(e) && e.status === code && (re === undefined || re.test(e.message));

async function receipt(f: Fixture, hash: string): Promise<Receipt> {
  const st = await f.chain.queries.getTx(hash);
  assert.ok(st);
  return st.receipt;
}

async function get(f: Fixture, path: string, params: Record<string, string> = {}, query: Record<string, string> = {}): Promise<Record<string, unknown>> {
  const routes = new RouteTable();
  f.hooks.routes.call(routes);
  const route = routes.list().find((r) => r.method === 'GET' && r.path === path)!;
  return (await route.handler({ method: 'GET', path: route.path, params, query: new URLSearchParams(query), headers: {}, body: undefined, ip: '127.0.0.1' })) as Record<string, unknown>;
}

/** The registration's transaction hash of each template `registered` made. */
const registration = new Map<string, string>();

async function registered(f: Fixture): Promise<string> {
  const sent = await f.chain.admitOperation('register_template', register(ownerKey, AUTHOR), {}, 0);
  await f.block();
  assert.equal((await receipt(f, sent.tx_hash)).status, 'confirmed');
  const id = templateId(AUTHOR, sent.tx_hash);
  registration.set(id, sent.tx_hash);
  return id;
}

test('register (§51): a .node through its owner; another kind 403, a taken name 409, a bad abi 400, hostile bytes 403; listed with the shipped one', async () => {
  const f = await chain();
  await assert.rejects(f.chain.admitOperation('register_template', register(alice, alice.address), {}, 0), status(403, /not a \.node/));
  await assert.rejects(f.chain.admitOperation('register_template', register(ownerKey, AUTHOR, { abi_json: '7' }), {}, 0), status(400, /array or object/));
  await assert.rejects(f.chain.admitOperation('register_template', register(ownerKey, AUTHOR, { bytecode_hex: toHex(HOSTILE) }), {}, 0), status(403, /deploy refused by the contract analyzer/));
  await assert.rejects(f.chain.admitOperation('register_template', register(ownerKey, AUTHOR, { bytecode_hex: '0061736d01000000ff' }), {}, 0), status(400));
  const id = await registered(f);
  await assert.rejects(f.chain.admitOperation('register_template', register(ownerKey, AUTHOR), {}, 0), status(409));
  const one = await get(f, '/api/v1/templates/:id', { id });
  assert.deepEqual([one.id, one.author, one.fee_unro, one.fee_unro_human, one.status, one.builtin, one.uses, one.earned, one.bytecode_hash, one.abi], [id, AUTHOR, 1_234_567n, '1.234567 COIN', 'active', false, 0, 0n, sha3Hex0x(MODULE), { functions: [] }]);
  const all = (await get(f, '/api/v1/templates', {}, { limit: '20' })).templates as Array<Record<string, unknown>>;
  assert.deepEqual(all.map((t) => [t.id, t.builtin, t.author]), [['fungible-token', true, 'chain:system.templates'], [id, false, AUTHOR]]);
  assert.deepEqual(((await get(f, '/api/v1/templates', {}, { limit: '20', author: AUTHOR })).templates as Array<{ id: string }>).map((t) => t.id), [id]);
  assert.deepEqual(((await get(f, '/api/v1/templates', {}, { limit: '20', category: 'token' })).templates as Array<{ id: string }>).map((t) => t.id), ['fungible-token']);
});

test('a deploy naming a template pays its fee to the author\'s owner exactly (what alice loses besides gas fees, no more, no less); a failed deploy pays nothing', async () => {
  const f = await chain();
  const id = await registered(f);

  // Its initialize traps: fails in the block after the gate; no template fee moves, no use counted.
  const trapping = await f.chain.admitOperation('register_template', register(ownerKey, AUTHOR, { name: 'trapping', bytecode_hex: toHex(TRAPPING) }), {}, 0);
  await f.block();
  const trapId = templateId(AUTHOR, trapping.tx_hash);
  const owner0 = (await f.account(ownerKey.address)).balance;
  const alice0 = (await f.account(alice.address)).balance;
  const failed = await f.chain.admit(await deployTx(f, alice, { template: trapId, init_args: {} }), 0);
  await f.block();
  const rf = await receipt(f, failed.tx_hash);
  assert.equal(rf.status, 'failed', 'the deploy trapped');
  assert.equal((await f.account(ownerKey.address)).balance, owner0, 'a failed deploy pays no template fee');
  assert.equal((await f.account(alice.address)).balance, alice0 - rf.fee - (rf.storage_fee ?? 0n) - (rf.unused_gas_fee ?? 0n));
  assert.equal((await get(f, '/api/v1/templates/:id', { id: trapId })).uses, 0);

  // Bytes omitted: the template's are used.
  const ok = await f.chain.admit(await deployTx(f, alice, { template: id }), 0);
  await f.block();
  const r = await receipt(f, ok.tx_hash);
  assert.equal(r.status, 'confirmed', r.error ?? '');
  assert.equal((await f.account(ownerKey.address)).balance, owner0 + BigInt(FEE), 'the author\'s owner got exactly the fee');
  const paid = (x: Receipt): bigint => x.fee + (x.storage_fee ?? 0n) + (x.unused_gas_fee ?? 0n);
  assert.equal((await f.account(alice.address)).balance, alice0 - paid(rf) - paid(r) - BigInt(FEE));
  const t = await get(f, '/api/v1/templates/:id', { id });
  assert.deepEqual([t.uses, t.earned, t.earned_human], [1, BigInt(FEE), '1.234567 COIN']);
  const view = await kernelRoutes(f)('/api/v1/transactions/:hash', { hash: ok.tx_hash });
  assert.deepEqual([view.template_fee, view.template_fee_human], [BigInt(FEE), '1.234567 COIN'], 'a plain-transaction deploy shows the fee too');
  assert.equal(view.type, 'deploy', 'a plain transaction to chain:system.deploy is a deploy (decisions.md §17), as the operation is');
  const rec = await f.chain.queries.state.get(`contracts/contract/${contractAddress(alice.address, ok.tx_hash)}`);
  assert.equal((JSON.parse(new TextDecoder().decode(rec!)) as { template: string }).template, id);

  // Bytes differing from the template's: 400; unknown template 404.
  await assert.rejects(f.chain.admit(await deployTx(f, alice, { template: id, bytecode_hex: toHex(wat('(module (func (export "call") (param i32 i32)))')) }), 0), status(400, /differs/));
  await assert.rejects(f.chain.admit(await deployTx(f, alice, { template: 'tpl-0000000000000000' }), 0), status(404));
  // Not covered at admission: 400, nothing charged.
  const poor = wallet(150);
  await assert.rejects(f.chain.admit(await deployTx(f, poor, { template: id }), 0), (e: unknown) => isChainError(e) && e.status >= 400);

  // Bytes omitted and no gas_limit (all a v2 or v3 client can sign, §95): the template's bytes were
  // metered at its registration, so the base gas covers storing them, as for a shipped template.
  const bare = await f.chain.admit(signTransfer(alice, { to: DEPLOY_ADDRESS, value: 0, nonce: await nonceOf(f, alice), data: JSON.stringify({ name: 'bare', template: id }) }), 0);
  await f.block();
  const rb = await receipt(f, bare.tx_hash);
  assert.equal(rb.status, 'confirmed', rb.error ?? '');
  assert.equal(rb.gas, 50);
  // The same bytes sent without naming the template pay their metering (§47's gas_estimate).
  const raw = await f.chain.admit(signTransfer(alice, { to: DEPLOY_ADDRESS, value: 0, nonce: await nonceOf(f, alice), data: JSON.stringify({ name: 'raw', bytecode_hex: toHex(MODULE) }) }), 0);
  await f.block();
  const rr = await receipt(f, raw.tx_hash);
  assert.equal(rr.status, 'confirmed', rr.error ?? '');
  assert.ok(rr.gas > 150, `metering costs at least 150 gas, charged ${rr.gas}`);
  // The registration paid that metering, once for all its deploys: its gas is the raw deploy's.
  const reg = (await f.chain.queries.getTx(registration.get(id)!))!.receipt;
  assert.equal(reg.gas, rr.gas, 'a registration pays its bytes\' storing and metering, as a deploy of them would');
});

test('deprecate refuses new deploys (400, also in the block), delete removes the record (404) and frees the name; the shipped template cannot be deprecated; another author 403', async () => {
  const f = await chain();
  const id = await registered(f);
  await assert.rejects(f.chain.admitOperation('deprecate_template', deprecate(other, OTHER, id), {}, 0), status(403, /not the author/));
  await assert.rejects(f.chain.admitOperation('deprecate_template', deprecate(ownerKey, AUTHOR, 'fungible-token'), {}, 0), status(403, /ships with the node/));
  await assert.rejects(f.chain.admitOperation('deprecate_template', deprecate(ownerKey, AUTHOR, 'tpl-00000000000000ff'), {}, 0), status(404));
  // Admitted before the deprecation, included in the same block after it: the block refuses it.
  const racing = await f.chain.admit(await deployTx(f, alice, { template: id }), 0);
  await f.chain.admitOperation('deprecate_template', deprecate(ownerKey, AUTHOR, id), {}, 0);
  await f.block();
  const raced = await receipt(f, racing.tx_hash);
  assert.equal(raced.status, 'confirmed', 'the deploy came first in the block');
  const late = f.chain.rebuildTx('signed', await deployTx(f, alice, { template: id }), 1n, 0);
  f.chain.mempool.add(late);
  await f.block();
  const lr = await receipt(f, late.hash);
  assert.equal(lr.status, 'failed');
  assert.match(lr.error!, /deprecated/);
  assert.equal((await get(f, '/api/v1/templates/:id', { id })).status, 'deprecated', 'still readable');
  await assert.rejects(f.chain.admit(await deployTx(f, alice, { template: id }), 0), status(400, /deprecated/));
  await assert.rejects(f.chain.admitOperation('deprecate_template', deprecate(ownerKey, AUTHOR, id), {}, 0), status(400, /already deprecated/));

  await f.chain.admitOperation('deprecate_template', deprecate(ownerKey, AUTHOR, id, true), {}, 0);
  await f.block();
  await assert.rejects(get(f, '/api/v1/templates/:id', { id }), status(404));
  assert.deepEqual(((await get(f, '/api/v1/templates', {}, { limit: '20' })).templates as Array<{ id: string }>).map((t) => t.id), ['fungible-token']);
  await assert.rejects(f.chain.admit(await deployTx(f, alice, { template: id }), 0), status(404));
  const again = await registered(f);
  assert.notEqual(again, id, 'the name is free again, under a new id');
});

test('?prove=true on a template proves a registered one\'s record and every template\'s usage, and a client checks them (§84–85)', async () => {
  const services: { query?: NodeServices['query'] } = {};
  const f = await chain(services);
  const sent = await f.chain.admitOperation('register_template', register(ownerKey, AUTHOR), {}, 0);
  await certifiedBlock(f);
  const id = templateId(AUTHOR, sent.tx_hash);
  await f.chain.admit(await deployTx(f, alice, { template: id }), 0);
  await certifiedBlock(f);
  await certifiedBlock(f);
  const genesis = genesisDoc(ACCOUNTS, {}, VALIDATORS);
  const registeredOne = await provenGet(f, services, genesis, '/api/v1/templates/:id', { id });
  assert.deepEqual([registeredOne.answer.uses, registeredOne.answer.fee_unro], [1, FEE]);
  assert.deepEqual(registeredOne.keys, [[templates.stateKey(id), true], [code.stateKey(sha3Hex0x(MODULE)), true], [templateUsage.stateKey(id), true]]);
  const codeEntry = (registeredOne.answer.proof as { entries: Array<{ value_hex: string }> }).entries[1]!;
  assert.equal(codeEntry.value_hex, registeredOne.answer.bytecode_hex, 'the proven code entry is the bytecode served');
  const shipped = await provenGet(f, services, genesis, '/api/v1/templates/:id', { id: 'fungible-token' });
  assert.deepEqual([shipped.answer.builtin, shipped.answer.uses, shipped.keys], [true, 0, [[templateUsage.stateKey('fungible-token'), false]]]);
});
