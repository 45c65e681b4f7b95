import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { certifiedBlock, genesisDoc, makeChain, signOperation, signTransfer, VALIDATOR_KEY, wallet, type Fixture, type Wallet } from '../../test/helpers/chain-fixture.js';
import { provenGet } from '../../test/helpers/proven-read.js';
import { certificates } from './store.js';
import { definePlugin, deriveAddress, isChainError, parseHex, RouteTable, sha3Hex0x, toHex, type NodeServices, type Receipt } from '../../kernel/sdk.js';
import { contractAddress, DEPLOY_ADDRESS, deployBodyGas } from '../contracts/public.js';
import { withNodeKey, withQueries } from '../../test/helpers/query-services.js';
import { analyzerPlugin } from './index.js';
import { tally } from './operators.js';
import { watBytes as wat } from '../../test/helpers/wat.js';
import { cataloguedPlugin } from '../../test/helpers/catalogued-plugin.js';
const contractsPlugin = cataloguedPlugin('contracts');

const alice = wallet(81);
const DEPLOY_GAS = 1_000;


const PRELUDE = `(memory (export "memory") 1) (func (export "alloc") (param i32) (result i32) (i32.const 1024))`;
/** §46's vector: 95. */
export const HOSTILE = wat(`(module ${PRELUDE}
  (func $self (param i32) (result i32) (call $self (local.get 0)))
  (func (export "call") (param i32 i32) (loop $l (drop (memory.grow (i32.const 1))) (br $l))))`);
const SAFE = wat(`(module ${PRELUDE} (func (export "call") (param i32 i32)))`);

async function chain(genesisParams: Record<string, string> = {}, node: { address: string; keys: typeof VALIDATOR_KEY } = { address: 'chain:v0.node', keys: VALIDATOR_KEY }): Promise<Fixture> {
  const services = {};
  withNodeKey(services, node.address, node.keys);
  const f = await makeChain({ plugins: [contractsPlugin, analyzerPlugin], services, genesisParams, accounts: [{ address: alice.address, balance: 10_000_000n }] });
  withQueries(services, f);
  return f;
}

const nonceOf = async (f: Fixture, w: Wallet): Promise<number> => Number((await f.account(w.address)).nonce) + 1;
const plainDeploy = async (f: Fixture, w: Wallet, bytes: Uint8Array) => signTransfer(w, { to: DEPLOY_ADDRESS, value: 0, nonce: await nonceOf(f, w), data: JSON.stringify({ bytecode_hex: toHex(bytes), name: 'x' }), gas_limit: DEPLOY_GAS });
let clock = 1_700_000_000_000;
const opDeploy = (w: Wallet, bytes: Uint8Array) => signOperation(w, { kind: 'deploy', actor: w.address, target: DEPLOY_ADDRESS, nonce: ++clock, body: { owner: w.address, bytecode_hex: toHex(bytes), gas_limit: DEPLOY_GAS } });

async function receipt(f: Fixture, hash: string): Promise<Receipt> {
  const st = await f.chain.queries.getTx(hash);
  assert.ok(st);
  return st.receipt;
}

const contractRecord = async (f: Fixture, address: string): Promise<Record<string, unknown> | undefined> => {
  const raw = await f.chain.queries.state.get(`contracts/contract/${address}`);
  return raw === undefined ? undefined : (JSON.parse(new TextDecoder().decode(raw)) as Record<string, unknown>);
};

const refusedByGate = (e: unknown): boolean => isChainError(e) && e.status === 403 && /risk_score 95/.test(e.message) && /deploy_risk_threshold 80/.test(e.message);

test('the gate: a hostile deploy is 403 at admission (plain transaction and operation), nothing charged; a safe one records its scores', async () => {
  const f = await chain();
  const before = await f.account(alice.address);
  await assert.rejects(f.chain.admit(await plainDeploy(f, alice, HOSTILE), 0), refusedByGate);
  await assert.rejects(f.chain.admitOperation('deploy', opDeploy(alice, HOSTILE), {}, 0), refusedByGate);
  const ok = await f.chain.admit(await plainDeploy(f, alice, SAFE), 0);
  await f.block();
  const r = await receipt(f, ok.tx_hash);
  assert.equal(r.status, 'confirmed', r.error ?? '');
  const after = await f.account(alice.address);
  assert.equal(after.nonce, before.nonce + 1n, 'only the safe deploy took a nonce');
  const rec = await contractRecord(f, contractAddress(alice.address, ok.tx_hash));
  assert.deepEqual([rec?.security_score, rec?.risk_score, rec?.model, rec?.score_source], [100, 0, 'static-v1', 'analyzer']);
});

test('the block checks the gate again: an injected hostile deploy fails, no contract, the base fee only', async () => {
  const f = await chain();
  for (const body of [await plainDeploy(f, alice, HOSTILE)]) {
    const tx = f.chain.rebuildTx('signed', body, 1n, 0);
    f.chain.mempool.add(tx);
    await f.block();
    const r = await receipt(f, tx.hash);
    assert.equal(r.status, 'failed');
    assert.match(r.error!, /risk_score 95 .* at or above deploy_risk_threshold 80/);
    // Refused by the gate after the bytes were stored and metered: the deploy's base, which counts that work (contracts/deploy-gas.ts).
    assert.equal(r.gas, 50 + deployBodyGas({ bytecode_hex: toHex(HOSTILE) }), 'refused by the gate: the base gas');
    assert.equal(await contractRecord(f, contractAddress(alice.address, tx.hash)), undefined);
  }
  const op = f.chain.rebuildTx('signed', f.operations.envelope('deploy', opDeploy(alice, HOSTILE), {}), 1n, 0);
  f.chain.mempool.add(op);
  await f.block();
  const r = await receipt(f, op.hash);
  assert.equal(r.status, 'failed');
  assert.match(r.error!, /risk_score 95/);
  assert.equal(await contractRecord(f, contractAddress(alice.address, op.hash)), undefined);
});

test('with deploy_security_enabled 0 the hostile module deploys with its scores recorded; a threshold of 96 lets it through too', async () => {
  for (const params of [{ deploy_security_enabled: '0' }, { deploy_risk_threshold: '96' }] as Array<Record<string, string>>) {
    const f = await chain(params);
    const ok = await f.chain.admit(await plainDeploy(f, alice, HOSTILE), 0);
    await f.block();
    assert.equal((await receipt(f, ok.tx_hash)).status, 'confirmed');
    const rec = await contractRecord(f, contractAddress(alice.address, ok.tx_hash));
    assert.deepEqual([rec?.security_score, rec?.risk_score, rec?.score_source], [5, 95, 'analyzer']);
  }
  // At the threshold is refused (part 2: "at or above").
  const f = await chain({ deploy_risk_threshold: '95' });
  await assert.rejects(f.chain.admit(await plainDeploy(f, alice, HOSTILE), 0), (e: unknown) => isChainError(e) && e.status === 403);
});

async function analyzeRoute(f: Fixture, body: unknown, path = '/api/v1/contracts/analyze'): Promise<Record<string, unknown>> {
  const routes = new RouteTable();
  f.hooks.routes.call(routes);
  const route = routes.list().find((r) => r.method === 'POST' && r.path === path)!;
  return (await route.handler({ method: 'POST', path: route.path, params: {}, query: new URLSearchParams(), headers: {}, body, ip: '127.0.0.1' })) as Record<string, unknown>;
}

test('POST /api/v1/contracts/analyze answers §47 for bytes and for a deployed contract; 400 and 404 as §47 says', async () => {
  const f = await chain();
  const a = await analyzeRoute(f, { bytecode_hex: toHex(HOSTILE) });
  assert.deepEqual(Object.keys(a).sort(), ['bytecode_hash', 'gas_estimate', 'ml_score', 'model', 'risk_score', 'safe', 'security_score', 'size', 'violations', 'whitelisted']);
  assert.deepEqual([a.risk_score, a.security_score, a.safe, a.ml_score, a.model, a.size, a.whitelisted], [95, 5, false, 0.95, 'static-v1', HOSTILE.length, false]);
  assert.ok(typeof a.gas_estimate === 'number' && a.gas_estimate >= 50);

  const ok = await f.chain.admit(await plainDeploy(f, alice, SAFE), 0);
  await f.block();
  const r = await receipt(f, ok.tx_hash);
  const address = contractAddress(alice.address, ok.tx_hash);
  const b = await analyzeRoute(f, { address });
  assert.deepEqual([b.address, b.code_hash, b.bytecode_hash, b.recorded_security_score, b.recorded_model, b.safe, b.security_score], [address, b.bytecode_hash, b.bytecode_hash, 100, 'static-v1', true, 100]);
  assert.equal(b.gas_estimate, r.gas, 'gas_estimate is what the deploy was charged (no init)');

  const status = async (body: unknown): Promise<number> => {
    try {
      await analyzeRoute(f, body);
      return 200;
    } catch (err) {
      assert.ok(isChainError(err), String(err));
      return err.status;
    }
  };
  assert.equal(await status({}), 400);
  assert.equal(await status({ bytecode_hex: 'abc' }), 400);
  assert.equal(await status({ bytecode_hex: 'zz' }), 400);
  assert.equal(await status({ bytecode_hex: '0061736d' }), 400);
  assert.equal(await status({ bytecode_hex: toHex(new Uint8Array(300_000)) }), 400);
  assert.equal(await status({ address: 'chain:0000000000.app' }), 404);
  // A module the VM would not deploy (a float) is analysed, not refused.
  const float = await analyzeRoute(f, { bytecode_hex: toHex(wat(`(module ${PRELUDE} (func (export "call") (param i32 i32) (drop (f64.const 1))))`)) });
  assert.equal(float.risk_score, 80);
});

test('a network that enables contracts without the analyzer refuses to start, naming both', async () => {
  await assert.rejects(makeChain({ plugins: [contractsPlugin, analyzerPlugin], pluginConfig: [{ name: 'contracts' }] }), (e: unknown) => e instanceof Error && /"contracts" is enabled without "analyzer"/.test(e.message));
});

/** PQClean's ML-DSA-65 (the optional dependency): not the implementation the node signs with (noble). */
interface PqcleanSign {
  verify(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean;
}
const pqclean = createRequire(import.meta.url)('pqclean') as { Sign: new (algorithm: string) => PqcleanSign };

test('POST /api/v1/contracts/attest: §47 plus the ch-ibc-attest-v1 message signed with the node key, verified by PQClean', async () => {
  const f = await chain();
  const a = await analyzeRoute(f, { bytecode_hex: toHex(SAFE) }, '/api/v1/contracts/attest');
  const hash = sha3Hex0x(SAFE);
  assert.deepEqual([a.score, a.security_score, a.timestamp, a.subject, a.signer, a.pubkey], [100, 100, 1_700_000_000_000, hash, 'chain:v0.node', toHex(VALIDATOR_KEY.publicKey)]);
  assert.equal(a.message, `ch-ibc-attest-v1|${hash}|100|static-v1|1700000000000|${hash}`);
  const verifier = new pqclean.Sign('ml-dsa-65');
  const message = new TextEncoder().encode(String(a.message));
  assert.equal(verifier.verify(VALIDATOR_KEY.publicKey, message, parseHex(String(a.signature))!), true);
  const forged = new TextEncoder().encode(String(a.message).replace('|100|', '|99|'));
  assert.equal(verifier.verify(VALIDATOR_KEY.publicKey, forged, parseHex(String(a.signature))!), false, 'the score is signed');

  // A node that is no validator signs as its key-derived address; an address's subject is the address.
  const outsider = wallet(90);
  const g = await chain({}, { address: 'chain:spare.node', keys: outsider.keys });
  const ok = await g.chain.admit(await plainDeploy(g, alice, SAFE), 0);
  await g.block();
  const address = contractAddress(alice.address, ok.tx_hash);
  const b = await analyzeRoute(g, { address }, '/api/v1/contracts/attest');
  assert.deepEqual([b.subject, b.signer, b.address], [address, deriveAddress(outsider.keys.publicKey), address]);
  assert.equal(new pqclean.Sign('ml-dsa-65').verify(outsider.keys.publicKey, new TextEncoder().encode(String(b.message)), parseHex(String(b.signature))!), true);
});

test('tally: more than 2/3 of the active power applies an action, exactly 2/3 does not; inactive approvals do not count', () => {
  const set = [{ address: 'chain:a.node', public_key: '', power: 1n }, { address: 'chain:b.node', public_key: '', power: 1n }, { address: 'chain:c.node', public_key: '', power: 1n }];
  assert.equal(tally(set, ['chain:a.node', 'chain:b.node']).passed, false, 'exactly 2/3');
  assert.equal(tally(set, ['chain:a.node', 'chain:b.node', 'chain:c.node']).passed, true);
  const t = tally(set, ['chain:gone.node', 'chain:a.node']);
  assert.deepEqual([t.approvals, t.approvedPower, t.totalPower], [['chain:a.node'], 1n, 3n]);
  assert.equal(tally([{ address: 'chain:a.node', public_key: '', power: 7n }, { address: 'chain:b.node', public_key: '', power: 3n }], ['chain:a.node']).passed, true, '7 of 10 is more than 2/3');
});

/** Three validators of equal self-stake, each `.node` owned by its key's address (funded), and alice. */
async function operatorChain(seed: number, label: string, count = 3, extra: NonNullable<NonNullable<Parameters<typeof makeChain>[0]>['plugins']> = []): Promise<{ f: Fixture; keys: Wallet[]; nodes: string[] }> {
  const keys = Array.from({ length: count }, (_, i) => wallet(seed + i));
  const nodes = keys.map((_, i) => `chain:${label}${i}.node`);
  const services = {};
  withNodeKey(services, nodes[0]!, keys[0]!.keys);
  const f = await makeChain({
    plugins: [contractsPlugin, analyzerPlugin, ...extra],
    services,
    validators: keys.map((w, i) => ({ address: nodes[i]!, key: w.keys, stake: '10000000000' })),
    accounts: [{ address: alice.address, balance: 10_000_000n }, ...keys.map((w) => ({ address: w.address, balance: 10_000_000n }))],
  });
  withQueries(services, f);
  return { f, keys, nodes };
}

test('whitelist: operators approve at the 2/3 line; a trusted hash deploys with score 100 while a copy with another hash is refused', async () => {
  const { f, keys, nodes } = await operatorChain(101, 'op');
  const hash = sha3Hex0x(HOSTILE);
  const approve = (i: number, body: Record<string, unknown> = {}) => signOperation(keys[i]!, { kind: 'whitelist', actor: nodes[i]!, target: 'chain:system.whitelist', nonce: ++clock, body: { signer: nodes[i]!, bytecode_hash: hash, ...body } });
  const view = async (): Promise<Record<string, unknown>> => {
    const routes = new RouteTable();
    f.hooks.routes.call(routes);
    const route = routes.list().find((r) => r.method === 'GET' && r.path === '/api/v1/contracts/whitelist/:bytecode_hash')!;
    return (await route.handler({ method: 'GET', path: route.path, params: { bytecode_hash: hash }, query: new URLSearchParams(), headers: {}, body: undefined, ip: '127.0.0.1' })) as Record<string, unknown>;
  };
  await assert.rejects(view(), (e: unknown) => isChainError(e) && e.status === 404, 'nothing trusted at genesis');
  // Not an operator: alice's own address, and a .node that is no validator.
  await assert.rejects(f.chain.admitOperation('whitelist', signOperation(alice, { kind: 'whitelist', actor: alice.address, target: 'chain:system.whitelist', nonce: ++clock, body: { signer: alice.address, bytecode_hash: hash } }), {}, 0), (e: unknown) => isChainError(e) && e.status === 403);

  await f.chain.admitOperation('whitelist', approve(0), {}, 0);
  await f.chain.admitOperation('whitelist', approve(1), {}, 0);
  await f.block();
  assert.deepEqual(await view(), { bytecode_hash: hash, status: 'pending', approvals: [nodes[0], nodes[1]], approved_power: 20_000_000_000n, total_power: 30_000_000_000n, trusted_height: null }, 'exactly 2/3 is not enough');
  await assert.rejects(f.chain.admitOperation('whitelist', approve(1), {}, 0), (e: unknown) => isChainError(e) && e.status === 400 && /already approved/.test(e.message));
  await assert.rejects(f.chain.admit(await plainDeploy(f, alice, HOSTILE), 0), refusedByGate);

  await f.chain.admitOperation('whitelist', approve(2), {}, 0);
  const b = await f.block();
  const trusted = await view();
  assert.deepEqual([trusted.status, trusted.approvals, trusted.trusted_height], ['trusted', [], b.header.height]);
  await assert.rejects(f.chain.admitOperation('whitelist', approve(0), {}, 0), (e: unknown) => isChainError(e) && e.status === 400 && /already trusted/.test(e.message));

  const ok = await f.chain.admit(await plainDeploy(f, alice, HOSTILE), 0);
  await f.block();
  assert.equal((await receipt(f, ok.tx_hash)).status, 'confirmed');
  const rec = await contractRecord(f, contractAddress(alice.address, ok.tx_hash));
  assert.deepEqual([rec?.security_score, rec?.risk_score, rec?.score_source], [100, 95, 'whitelist']);
  const analysed = await analyzeRoute(f, { bytecode_hex: toHex(HOSTILE) });
  assert.deepEqual([analysed.whitelisted, analysed.security_score, analysed.safe, analysed.risk_score], [true, 100, true, 95]);
  // The same code with a custom section after it: another hash, not trusted.
  const copy = new Uint8Array([...HOSTILE, 0, 2, 1, 0x78]);
  assert.notEqual(sha3Hex0x(copy), hash);
  await assert.rejects(f.chain.admit(await plainDeploy(f, alice, copy), 0), refusedByGate);
});

test('PATCH score: operators set a contract\'s security_score at more than 2/3 (score_source operators, risk_score kept); unknown contract 404', async () => {
  const { f, keys, nodes } = await operatorChain(111, 'sc');
  const ok = await f.chain.admit(await plainDeploy(f, alice, SAFE), 0);
  await f.block();
  const address = contractAddress(alice.address, ok.tx_hash);
  const approve = (i: number, to = address) => f.chain.admitOperation('score', signOperation(keys[i]!, { kind: 'score', actor: nodes[i]!, target: 'chain:system.score', nonce: ++clock, body: { address: to, signer: nodes[i]!, security_score: 40 } }), { address: to }, 0);
  await assert.rejects(approve(0, 'chain:00000000ff.app'), (e: unknown) => isChainError(e) && e.status === 404);
  await approve(0);
  await approve(1);
  await f.block();
  assert.equal((await contractRecord(f, address))?.security_score, 100, 'exactly 2/3: not applied');
  await assert.rejects(approve(0), (e: unknown) => isChainError(e) && e.status === 400);
  await approve(2);
  await f.block();
  const rec = await contractRecord(f, address);
  assert.deepEqual([rec?.security_score, rec?.risk_score, rec?.score_source], [40, 0, 'operators']);
});

async function getRoute(f: Fixture, path: string, params: Record<string, string> = {}, query = ''): Promise<Record<string, unknown>> {
  const routes = new RouteTable();
  f.hooks.routes.call(routes);
  const route = routes.list().find((r) => r.method === 'GET' && r.path === path)!;
  return (await route.handler({ method: 'GET', path: route.path, params, query: new URLSearchParams(query), headers: {}, body: undefined, ip: '127.0.0.1' })) as Record<string, unknown>;
}

/** A test plugin that takes one validator out of the set at the end of the block it is told (a validator that left). */
function leaver(): { plugin: ReturnType<typeof definePlugin<Record<string, unknown>, NodeServices>>; leave: (address: string) => void } {
  let leaving: string | undefined;
  const plugin = definePlugin<Record<string, unknown>, NodeServices>({
    name: 'leaver',
    kind: 'state',
    description: 'takes a validator out of the set (test)',
    register(api) {
      api.hooks.endBlock.tapPromise(api.name, async (result, ctx) => {
        const set = await ctx.validators.latest();
        const gone = set.find((v) => v.address === leaving);
        leaving = undefined;
        return gone === undefined ? result : { ...result, validatorUpdates: [...result.validatorUpdates, { address: gone.address, public_key: gone.public_key, power: 0n }] };
      });
    },
  });
  return { plugin, leave: (a) => (leaving = a) };
}

test('approvals are tallied against the set active at the tally: an approval of a validator that left does not count', async () => {
  const l = leaver();
  const { f, keys, nodes } = await operatorChain(121, 'ls', 4, [l.plugin]);
  const hash = sha3Hex0x(HOSTILE);
  const approve = (i: number) => f.chain.admitOperation('whitelist', signOperation(keys[i]!, { kind: 'whitelist', actor: nodes[i]!, target: 'chain:system.whitelist', nonce: ++clock, body: { signer: nodes[i]!, bytecode_hash: hash } }), {}, 0);
  const view = () => getRoute(f, '/api/v1/contracts/whitelist/:bytecode_hash', { bytecode_hash: hash });
  await approve(3);
  await f.block();
  l.leave(nodes[3]!);
  await f.block();
  // The new set signs from two heights after the block that made it (decisions.md §22).
  for (let i = 0; i < 3; i++) await f.block();
  assert.deepEqual([(await view()).approvals, (await view()).approved_power, (await view()).total_power], [[], 0n, 30_000_000_000n], 'its approval no longer counts');
  await approve(0);
  await approve(1);
  await f.block();
  // With the leaver counted, 3 of 4 would pass; of the 3 active, 2 is exactly 2/3.
  const pending = await view();
  assert.deepEqual([pending.status, pending.approvals, pending.approved_power, pending.total_power], ['pending', [nodes[0], nodes[1]], 20_000_000_000n, 30_000_000_000n]);
  await approve(2);
  await f.block();
  assert.equal((await view()).status, 'trusted');
});

test('certify (§50): an operator certifies a contract once per code hash; a non-operator is 403 at admission and fails in the block; the reads', async () => {
  const { f, keys, nodes } = await operatorChain(131, 'ce');
  const ok = await f.chain.admit(await plainDeploy(f, alice, SAFE), 0);
  await f.block();
  const address = contractAddress(alice.address, ok.tx_hash);
  const certify = (w: Wallet, signer: string, contract = address, note?: string) => signOperation(w, { kind: 'certify', actor: signer, target: 'chain:system.cert', nonce: ++clock, body: { signer, contract, ...(note === undefined ? {} : { note }) } });
  const status = (e: unknown, code: number) => isChainError(e) && e.status === code;
  await assert.rejects(f.chain.admitOperation('certify', certify(alice, alice.address), {}, 0), (e) => status(e, 403));
  await assert.rejects(f.chain.admitOperation('certify', certify(keys[0]!, nodes[0]!, 'chain:00000000ff.app'), {}, 0), (e) => status(e, 404));
  await assert.rejects(getRoute(f, '/api/v1/certificates/contract/:address', { address }), (e) => status(e, 404));

  // A proposer that skipped admission: the block refuses the non-operator the same way.
  const injected = f.chain.rebuildTx('signed', f.operations.envelope('certify', certify(alice, alice.address), {}), 1n, 0);
  f.chain.mempool.add(injected);
  await f.chain.admitOperation('certify', certify(keys[0]!, nodes[0]!, address, 'audited by hand'), {}, 0);
  const b = await f.block();
  const bad = await receipt(f, injected.hash);
  assert.equal(bad.status, 'failed');
  assert.match(bad.error!, /not an analyzer operator/);

  const cert = await getRoute(f, '/api/v1/certificates/:id', { id: '1' });
  assert.deepEqual({ ...cert, tx_hash: undefined }, { id: 1, contract: address, owner: alice.address, issuer: nodes[0], code_hash: sha3Hex0x(SAFE), security_score: 100, risk_score: 0, model: 'static-v1', note: 'audited by hand', height: b.header.height, tx_hash: undefined });
  assert.deepEqual(await getRoute(f, '/api/v1/certificates/contract/:address', { address }), cert);
  await assert.rejects(getRoute(f, '/api/v1/certificates/:id', { id: '2' }), (e) => status(e, 404));
  await assert.rejects(f.chain.admitOperation('certify', certify(keys[0]!, nodes[0]!), {}, 0), (e) => status(e, 400));

  await f.chain.admitOperation('certify', certify(keys[1]!, nodes[1]!), {}, 0);
  await f.block();
  const all = await getRoute(f, '/api/v1/certificates', {}, '');
  assert.deepEqual([(all.certificates as Array<{ id: number }>).map((c) => c.id), all.total], [[2, 1], 2], 'newest first');
  const list = (q: Record<string, unknown>) => listWith(f, q);
  assert.deepEqual(await list({ issuer: nodes[1] }), [2]);
  assert.deepEqual(await list({ owner: alice.address }), [2, 1]);
  assert.deepEqual(await list({ owner: nodes[0] }), []);
  assert.deepEqual(await list({ contract: address, issuer: nodes[0] }), [1]);
  assert.equal((await getRoute(f, '/api/v1/certificates/contract/:address', { address })).id, 2, 'the newest');
});

async function listWith(f: Fixture, q: Record<string, unknown>): Promise<number[]> {
  const routes = new RouteTable();
  f.hooks.routes.call(routes);
  const route = routes.list().find((r) => r.method === 'GET' && r.path === '/api/v1/certificates')!;
  const answer = (await route.handler({ method: 'GET', path: route.path, params: {}, query: new URLSearchParams(q as Record<string, string>), headers: {}, body: undefined, ip: '127.0.0.1' })) as { certificates: Array<{ id: number }> };
  return answer.certificates.map((c) => c.id);
}

test('the node budgets analyses per IP (analysis_rpm, analyze and attest together): 429 with Retry-After past it', async () => {
  const services = {};
  withNodeKey(services, 'chain:v0.node', VALIDATOR_KEY);
  const f = await makeChain({ plugins: [contractsPlugin, analyzerPlugin], pluginConfig: [{ name: 'contracts' }, { name: 'analyzer', options: { analysis_rpm: 2 } }], services });
  withQueries(services, f);
  assert.equal((await analyzeRoute(f, { bytecode_hex: toHex(SAFE) })).risk_score, 0);
  assert.equal((await analyzeRoute(f, { bytecode_hex: toHex(SAFE) }, '/api/v1/contracts/attest')).score, 100);
  const over = (await analyzeRoute(f, { bytecode_hex: toHex(SAFE) })) as unknown as { status: number; body: { error: string }; headers: Record<string, string> };
  assert.equal(over.status, 429);
  assert.equal(over.body.error, 'rate limit exceeded');
  assert.ok(Number(over.headers['Retry-After']) >= 59);
});

test('?prove=true on a contract\'s newest certificate proves that certificate\'s record, and a client checks it (§84–85)', async () => {
  const operator = wallet(151);
  const validators = [{ address: 'chain:v0.node', key: VALIDATOR_KEY, stake: '10000000000' }, { address: 'chain:pc0.node', key: operator.keys, stake: '10000000' }];
  const accounts = [{ address: alice.address, balance: 10_000_000n }, { address: operator.address, balance: 10_000_000n }];
  const services: { query?: NodeServices['query']; nodeKey?: NodeServices['nodeKey']; now?: () => number } = {};
  withNodeKey(services, 'chain:v0.node', VALIDATOR_KEY);
  const f = await makeChain({ plugins: [contractsPlugin, analyzerPlugin], services, validators, accounts });
  const deployed = await f.chain.admit(await plainDeploy(f, alice, SAFE), 0);
  await certifiedBlock(f);
  const address = contractAddress(alice.address, deployed.tx_hash);
  await f.chain.admitOperation('certify', signOperation(operator, { kind: 'certify', actor: 'chain:pc0.node', target: 'chain:system.cert', nonce: ++clock, body: { signer: 'chain:pc0.node', contract: address } }), {}, 0);
  await certifiedBlock(f);
  await certifiedBlock(f);
  const { answer, keys } = await provenGet(f, services, genesisDoc(accounts, {}, validators), '/api/v1/certificates/contract/:address', { address });
  assert.deepEqual([answer.id, answer.contract, answer.issuer], [1, address, 'chain:pc0.node']);
  assert.deepEqual(keys, [[certificates.stateKey(1), true]]);
});
