import { test } from 'node:test';
import assert from 'node:assert/strict';
import { certifiedBlock, labelledWallet, makeChain, refused, signOperation, signTransfer, type Fixture, type Wallet } from './helpers/chain-fixture.js';
import { RouteTable, toHex } from '../kernel/sdk.js';
import { ProvenReads } from '../kernel/node/proven-reads.js';
import type { QueryService } from '../kernel/node/queries.js';
import { genesisDoc } from './helpers/chain-fixture.js';
import { ONE_THIRD, trustFromGenesis, verifyProvenRead } from '../kernel/light-client/index.js';
import { canonicalJson } from '../kernel/codec/json.js';
import { sha3Hex0x } from '../kernel/crypto/hash.js';
import { contracts } from '../plugins/contracts/store.js';
import { contractsPlugin } from '../plugins/contracts/index.js';
import { analyzerPlugin } from '../plugins/analyzer/index.js';
import { contractAddress, DEPLOY_ADDRESS } from '../plugins/contracts/execute.js';
import { templateBytecode } from '../plugins/contracts/templates.js';
import { namesPlugin } from '../plugins/names/index.js';
import { apps, nfts } from '../plugins/names/store.js';

/**
 * `.app` names (decisions.md §42): registered through `nodes/register` as `register_app`, bound to
 * a contract its owner deployed, resolved by the contracts plugin in calls, its record and dry
 * runs; every rule at admission and again in a block whose proposer skipped admission.
 */
const alice = labelledWallet('apps-alice');
const bob = labelledWallet('apps-bob');
const COIN = 1_000_000n;
const PRICE = 10n * COIN; // 8 characters or more
let nonce = 1_820_000_000_000;

const registerApp = (w: Wallet, name: string, contract: string, extra: Record<string, unknown> = {}) =>
  signOperation(w, { kind: 'register_app', actor: w.address, target: 'chain:system.node', nonce: ++nonce, body: { name, owner: w.address, node_address: `chain:${name}.app`, contract, ...extra } });

const ACCOUNTS = [alice, bob].map((w) => ({ address: w.address, balance: 1_000n * COIN }));

async function withToken(services: { query?: QueryService } = {}): Promise<{ f: Fixture; token: string }> {
  const f = await makeChain({ plugins: [contractsPlugin, analyzerPlugin, namesPlugin], accounts: ACCOUNTS, services });
  const data = JSON.stringify({ bytecode_hex: toHex(templateBytecode('token.wasm')), name: 'T', init_args: { name: 'T', symbol: 'T', decimals: 0, total_supply: 1000 } });
  const deploy = await f.chain.admit(signTransfer(alice, { to: DEPLOY_ADDRESS, value: 0, nonce: 1, data, gas_limit: 200 }), 0);
  await f.block();
  assert.equal((await f.chain.queries.getTx(deploy.tx_hash))!.receipt.status, 'confirmed');
  return { f, token: contractAddress(alice.address, deploy.tx_hash) };
}

async function injected(f: Fixture, body: Record<string, unknown>): Promise<{ status: string; error: string | null }> {
  const tx = f.chain.rebuildTx('signed', f.operations.envelope('register_app', body, {}), 1n, 0);
  f.chain.mempool.add(tx);
  await f.block();
  const r = (await f.chain.queries.getTx(tx.hash))!.receipt;
  return { status: r.status, error: r.error };
}

test('an .app name bound to its owner\'s contract: price + fee, the price burned; calls, the record and dry runs resolve it; not an NFT', async () => {
  const { f, token } = await withToken();
  const before = (await f.account(alice.address)).balance;
  const burned = f.chain.head.total_burned;
  const r = await f.chain.admitOperation('register_app', registerApp(alice, 'tokenapp', token), {}, 0);
  const block = await f.block();
  const stored = (await f.chain.queries.getTx(r.tx_hash))!;
  assert.equal(stored.receipt.status, 'confirmed', stored.receipt.error ?? '');
  assert.equal((await f.account(alice.address)).balance, before - PRICE - stored.receipt.fee);
  assert.equal(f.chain.head.total_burned - burned, stored.receipt.fee_burned + PRICE);
  const events = await f.chain.queries.getTxEvents(block.header.height, r.tx_hash);
  assert.deepEqual(events.filter((e) => e.type === 'app_name_registered').map((e) => [e.data.address, e.data.contract, e.data.owner]), [['chain:tokenapp.app', token, alice.address]]);
  assert.equal((await apps.get(f.pluginState('names'), 'chain:tokenapp.app'))?.address, token);
  assert.equal(await nfts.has(f.pluginState('names'), 'chain:tokenapp.app'), false, 'not an NFT');

  // A transaction to the name calls the contract, value and all, exactly as if sent to its address.
  const call = await f.chain.admit(signTransfer(bob, { to: 'chain:tokenapp.app', value: 5, nonce: 1, data: JSON.stringify({ function: 'balance_of', args: { address: alice.address } }) }), 0);
  const b2 = await f.block();
  assert.equal((await f.chain.queries.getTx(call.tx_hash))!.receipt.status, 'confirmed');
  const called = (await f.chain.queries.getTxEvents(b2.header.height, call.tx_hash)).find((e) => e.type === 'contract_called')!;
  assert.equal(called.data.contract, token);
  assert.equal((await f.account(token)).balance, 5n);

  const routes = new RouteTable();
  f.hooks.routes.call(routes);
  const handler = (method: string, path: string) => routes.list().find((x) => x.method === method && x.path === path)!.handler;
  const req = (method: string, path: string, address: string, body?: unknown) => ({ method, path, params: { address }, query: new URLSearchParams(), headers: {}, body, ip: '127.0.0.1' });
  const record = (await handler('GET', '/api/v1/contracts/:address')(req('GET', '/api/v1/contracts/:address', 'chain:tokenapp.app'))) as Record<string, unknown>;
  assert.equal(record.address, token);
  assert.equal(record.app_name, 'chain:tokenapp.app');
  const direct = (await handler('GET', '/api/v1/contracts/:address')(req('GET', '/api/v1/contracts/:address', token))) as Record<string, unknown>;
  assert.equal(direct.app_name, 'chain:tokenapp.app');
  const dry = (await handler('POST', '/api/v1/contracts/:address/call')(req('POST', '/api/v1/contracts/:address/call', 'chain:tokenapp.app', { function: 'balance_of', args: { address: alice.address } }))) as Record<string, unknown>;
  assert.equal(dry.success, true);
  assert.equal(dry.contract, token);
  assert.deepEqual(JSON.parse(String(dry.return_data)), { ok: '1000' });
  // The analyzer reads a contract through the contracts plugin's method, which resolves the name too.
  const analysis = (await handler('POST', '/api/v1/contracts/analyze')({ ...req('POST', '/api/v1/contracts/analyze', ''), params: {}, body: { address: 'chain:tokenapp.app' } })) as Record<string, unknown>;
  assert.deepEqual([analysis.address, analysis.risk_score], [token, 0]);
});

test('register_app refusals at admission with their status, and again in the block', async () => {
  const { f, token } = await withToken();
  await refused(f.chain.admitOperation('register_app', registerApp(bob, 'bobsname', token), {}, 0), 403, /does not own .*its owner is/);
  await refused(f.chain.admitOperation('register_app', registerApp(alice, 'ghostapp', 'chain:0123456789.app'), {}, 0), 404, /no contract at chain:0123456789\.app/);
  await refused(f.chain.admitOperation('register_app', registerApp(alice, '0123456789', token), {}, 0), 400, /10 hex characters, which would shadow/);
  await refused(f.chain.admitOperation('register_app', registerApp(alice, 'tokenapp', token, { node_address: 'chain:other.app' }), {}, 0), 400, /node_address chain:other\.app must be/);
  await refused(f.chain.admitOperation('register_app', registerApp(alice, 'tokenapp', token, { consensus_public_key: 'ab' }), {}, 0), 400, /consensus_public_key is for a \.node/);
  const first = await f.chain.admitOperation('register_app', registerApp(alice, 'tokenapp', token), {}, 0);
  await f.block();
  assert.equal((await f.chain.queries.getTx(first.tx_hash))!.receipt.status, 'confirmed');
  await refused(f.chain.admitOperation('register_app', registerApp(alice, 'secondname', token), {}, 0), 409, /already named chain:tokenapp\.app: one name per contract/);
  await refused(f.chain.admitOperation('register_app', registerApp(alice, 'tokenapp', token), {}, 0), 409, /chain:tokenapp\.app is already registered/);
  // A proposer that skips admission: each fails in the block, nothing but the fee taken.
  const bobBefore = (await f.account(bob.address)).balance;
  const notOwner = await injected(f, registerApp(bob, 'bobsname', token));
  assert.equal(notOwner.status, 'failed');
  assert.match(notOwner.error!, /does not own/);
  const twice = await injected(f, registerApp(alice, 'secondname', token));
  assert.equal(twice.status, 'failed');
  assert.match(twice.error!, /one name per contract/);
  assert.equal(await apps.has(f.pluginState('names'), 'chain:bobsname.app'), false);
  assert.equal(await apps.has(f.pluginState('names'), 'chain:secondname.app'), false);
  assert.ok(bobBefore - (await f.account(bob.address)).balance < PRICE, 'no price charged');
});

test('?prove=true on a contract read through its .app name proves the name\'s record beside the contract\'s, and a client checks both (§84–85)', async () => {
  const services: { query?: QueryService } = {};
  const { f, token } = await withToken(services);
  await f.chain.admitOperation('register_app', registerApp(alice, 'provenapp', token), {}, 0);
  await certifiedBlock(f);
  await certifiedBlock(f);
  const routes = new RouteTable();
  f.hooks.routes.call(routes);
  const route = routes.list().find((r) => r.method === 'GET' && r.path === '/api/v1/contracts/:address')!;
  const proven = new ProvenReads(f.chain, services.query!);
  const get = async (address: string) => (await proven.handlerOf(route)({ method: 'GET', path: route.path, params: { address }, query: new URLSearchParams('prove=true'), headers: {}, body: undefined, ip: '127.0.0.1' })) as Record<string, unknown>;
  const genesis = genesisDoc(ACCOUNTS);
  const trust = trustFromGenesis(JSON.parse(JSON.stringify(genesis, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))), sha3Hex0x(canonicalJson(genesis)));
  const wire = (a: Record<string, unknown>): unknown => JSON.parse(JSON.stringify(a, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v)));
  const keysOf = (a: Record<string, unknown>) => (a.proof as { entries: Array<{ key: string; exists: boolean }> }).entries.map((e) => [e.key, e.exists]);

  const byName = await get('chain:provenapp.app');
  assert.deepEqual([byName.address, byName.app_name], [token, 'chain:provenapp.app']);
  assert.deepEqual(keysOf(byName), [[apps.stateKey('chain:provenapp.app'), true], [contracts.stateKey(token), true]]);
  verifyProvenRead(wire(byName), trust, { kind: 'record', trustLevel: ONE_THIRD });
  // The name's record binds it to this contract: a node answering another contract for the name is refused.
  assert.throws(() => verifyProvenRead(wire({ ...byName, address: 'chain:0123456789.app' }), trust, { kind: 'record', trustLevel: ONE_THIRD }), /answer_field/);

  const direct = await get(token);
  assert.deepEqual(keysOf(direct), [[contracts.stateKey(token), true]]);
  verifyProvenRead(wire(direct), trust, { kind: 'record', trustLevel: ONE_THIRD });
});
