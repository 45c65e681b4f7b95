import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { labelledWallet, signOperation, signTransfer } from '../helpers/chain-fixture.js';
import { getJson, postJson, waitConfirmed } from '../helpers/node-process.js';
import { failsInBlock, sameRootEverywhere, startTestDevnet, type TestDevnet } from '../helpers/devnet.js';
import { parseHex, sha3Hex0x, toHex } from '../../kernel/sdk.js';
import { templateBytecode } from '../../plugins/contracts/templates.js';
import { deployBodyGas } from '../../plugins/contracts/public.js';
import { watBytes as wat } from '../helpers/wat.js';

/**
 * The contract analyzer on a real 4-validator devnet (issue 32), as a client: the token analyses
 * safe on every validator; a hostile deploy is refused 403 at admission (operation and plain
 * transaction) with nothing charged, and fails the same on every validator when a proposer skips
 * admission; operators trust its hash at the 2/3 line; an attestation verifies with PQClean; a
 * non-operator's approval is 403; certify by a non-operator is 403 (and fails in the block when a
 * proposer skips admission), by a validator's owner it lists a certificate; a `.node` registers a
 * template with a fee, a deploy naming it pays the author exactly, deprecate refuses new deploys
 * (also in the block), delete removes it; every validator ends with the same state root.
 */
const DEPLOY = 'chain:system.deploy';
let clock = Date.now();

/** decisions.md §46's vector: endless memory growth and a self-calling function, risk 95. */
const HOSTILE = wat(`(module (memory (export "memory") 1) (func (export "alloc") (param i32) (result i32) (i32.const 1024))
  (func $self (param i32) (result i32) (call $self (local.get 0)))
  (func (export "call") (param i32 i32) (loop $l (drop (memory.grow (i32.const 1))) (br $l))))`);
/** A module that analyses safe (risk 0): a template of one's own. */
const PLAIN = wat(`(module (memory (export "memory") 1) (func (export "alloc") (param i32) (result i32) (i32.const 1024)) (func (export "call") (param i32 i32)))`);
const pqclean = createRequire(import.meta.url)('pqclean') as { Sign: new (a: string) => { verify(pk: Uint8Array, m: Uint8Array, s: Uint8Array): boolean } };

describe('the contract analyzer on a real devnet', () => {
  let net: TestDevnet;
  const alice = labelledWallet('analyzer-alice');
  const rpc = (i = 0): string => net.rpcUrls[i]!;
  const account = async (a: string, i = 0) => (await getJson(`${rpc(i)}/api/v1/accounts/${a}`)).body;
  const refused403 = (r: { status: number; body: Record<string, unknown> }): void => {
    assert.equal(r.status, 403, JSON.stringify(r.body));
    assert.match(r.body.error as string, /risk_score 95 .*at or above deploy_risk_threshold 80/);
  };

  before(async () => {
    net = await startTestDevnet({ cli: resolve('dist/test/fixtures/test-chain.js'), enablePlugins: ['memo'] });
    const f = await postJson(`${net.gatewayUrl}/api/v1/faucet`, { address: alice.address, public_key: alice.publicKeyHex });
    assert.equal(f.status, 200, JSON.stringify(f.body));
    for (const u of net.rpcUrls) await waitConfirmed(u, f.body.tx_hash as string);
  });
  after(async () => net?.stop());

  test('the token template analyses safe on every validator, the same answer everywhere', async () => {
    const answers = await Promise.all(net.rpcUrls.map((u) => postJson(`${u}/api/v1/contracts/analyze`, { bytecode_hex: toHex(templateBytecode('token.wasm')) })));
    for (const a of answers) assert.equal(a.status, 200, JSON.stringify(a.body));
    assert.equal(new Set(answers.map((a) => JSON.stringify(a.body))).size, 1);
    const a = answers[0]!.body;
    assert.deepEqual([a.risk_score, a.security_score, a.safe, a.model, a.whitelisted, a.bytecode_hash], [0, 100, true, 'static-v1', false, sha3Hex0x(templateBytecode('token.wasm'))]);
  });

  test('a hostile deploy: 403 at admission as an operation and as a plain transaction, nothing charged, no contract; injected, it fails on every validator', async () => {
    const before = await account(alice.address);
    const op = signOperation(alice, { kind: 'deploy', actor: alice.address, target: DEPLOY, nonce: ++clock, body: { owner: alice.address, bytecode_hex: toHex(HOSTILE), gas_limit: 1_000 } });
    refused403(await postJson(`${rpc()}/api/v1/contracts/deploy`, op));
    const plain = signTransfer(alice, { to: DEPLOY, value: 0, nonce: Number(before.next_nonce), data: JSON.stringify({ bytecode_hex: toHex(HOSTILE) }), gas_limit: 1_000 });
    refused403(await postJson(`${net.gatewayUrl}/api/v1/transactions`, plain));
    const after = await account(alice.address);
    assert.deepEqual([after.balance, after.next_nonce], [before.balance, before.next_nonce], 'nothing charged, no nonce taken');

    const tx = await failsInBlock(net, plain, /risk_score 95 .*at or above deploy_risk_threshold 80/);
    // The base: 50 and the bytes' storing and metering, done before the gate refused them (contracts/deploy-gas.ts).
    assert.equal(tx.gas, 50 + deployBodyGas({ bytecode_hex: toHex(HOSTILE) }), 'the base gas only');
    const contracts = (await getJson(`${rpc(2)}/api/v1/contracts?owner=${alice.address}`)).body.contracts as unknown[];
    assert.deepEqual(contracts, []);
    await sameRootEverywhere(net);
  });

  test('operators trust the hostile hash at the 2/3 line (2 of 4 pending, 3 apply); a non-operator is 403; it then deploys with score 100', async () => {
    const hash = sha3Hex0x(HOSTILE);
    const nobody = signOperation(alice, { kind: 'whitelist', actor: alice.address, target: 'chain:system.whitelist', nonce: ++clock, body: { signer: alice.address, bytecode_hash: hash } });
    assert.equal((await postJson(`${rpc()}/api/v1/contracts/whitelist`, nobody)).status, 403);

    const approve = async (i: number): Promise<void> => {
      const k = net.validatorKey(i);
      const node = k.file.node_address!;
      const body = signOperation({ keys: k.keys, publicKeyHex: k.file.public_key }, { kind: 'whitelist', actor: node, target: 'chain:system.whitelist', nonce: ++clock, body: { signer: node, bytecode_hash: hash } });
      const r = await postJson(`${rpc(i)}/api/v1/contracts/whitelist`, body);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      for (const u of net.rpcUrls) assert.equal((await waitConfirmed(u, r.body.tx_hash as string)).status, 'confirmed');
    };
    await approve(0);
    await approve(1);
    const half = await getJson(`${rpc(3)}/api/v1/contracts/whitelist/${hash}`);
    assert.equal(half.status, 200, JSON.stringify(half.body));
    assert.deepEqual([half.body.status, (half.body.approvals as unknown[]).length, half.body.trusted_height], ['pending', 2, null]);
    assert.ok((half.body.approved_power as number) * 3 <= (half.body.total_power as number) * 2);
    await approve(2);
    const trusted = await getJson(`${rpc(1)}/api/v1/contracts/whitelist/${hash}`);
    assert.equal(trusted.body.status, 'trusted');

    const nonce = Number((await account(alice.address)).next_nonce);
    const r = await postJson(`${net.gatewayUrl}/api/v1/transactions`, signTransfer(alice, { to: DEPLOY, value: 0, nonce, data: JSON.stringify({ bytecode_hex: toHex(HOSTILE) }), gas_limit: 1_000 }));
    assert.equal(r.status, 200, JSON.stringify(r.body));
    let address = '';
    for (const u of net.rpcUrls) {
      const tx = await waitConfirmed(u, r.body.tx_hash as string);
      assert.equal(tx.status, 'confirmed', JSON.stringify(tx));
      address = (tx.events as Array<{ type: string; data: Record<string, unknown> }>).find((e) => e.type === 'contract_deployed')!.data.address as string;
    }
    const rec = (await getJson(`${rpc(3)}/api/v1/contracts/${address}`)).body;
    assert.deepEqual([rec.security_score, rec.risk_score, rec.score_source], [100, 95, 'whitelist']);
    await sameRootEverywhere(net);
  });

  test("an attestation is signed with the node's own key: PQClean verifies it against the key file's public key", async () => {
    const r = await postJson(`${rpc(1)}/api/v1/contracts/attest`, { bytecode_hex: toHex(templateBytecode('token.wasm')) });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const k = net.validatorKey(1);
    const a = r.body;
    assert.deepEqual([a.signer, a.pubkey, a.score], [k.file.node_address, k.file.public_key, 100]);
    assert.equal(a.message, `ch-ibc-attest-v1|${a.bytecode_hash}|100|static-v1|${a.timestamp}|${a.bytecode_hash}`);
    assert.equal(new pqclean.Sign('ml-dsa-65').verify(parseHex(k.file.public_key)!, new TextEncoder().encode(a.message as string), parseHex(a.signature as string)!), true);
  });

  /** Validator i's .node acting through its owner's key (a devnet validator's owner is its key's address). */
  const asNode = (i: number) => {
    const k = net.validatorKey(i);
    return { node: k.file.node_address!, signer: { keys: k.keys, publicKeyHex: k.file.public_key } };
  };
  const confirmedEverywhere = async (hash: string): Promise<Record<string, unknown>> => {
    let tx: Record<string, unknown> = {};
    for (const u of net.rpcUrls) tx = await waitConfirmed(u, hash);
    assert.equal(tx.status, 'confirmed', JSON.stringify(tx));
    return tx;
  };
  const deployData = (fields: Record<string, unknown>) => JSON.stringify({ name: 'from a template', ...fields });

  test('certify: a non-operator is 403 (and fails in the block when a proposer skips admission); a validator\'s owner certifies, the certificate is listed', async () => {
    const nonce = Number((await account(alice.address)).next_nonce);
    const r = await postJson(`${net.gatewayUrl}/api/v1/transactions`, signTransfer(alice, { to: DEPLOY, value: 0, nonce, data: JSON.stringify({ bytecode_hex: toHex(PLAIN), name: 'plain' }), gas_limit: 1_000 }));
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const deployed = await confirmedEverywhere(r.body.tx_hash as string);
    const contract = (deployed.events as Array<{ type: string; data: Record<string, unknown> }>).find((e) => e.type === 'contract_deployed')!.data.address as string;

    const byAlice = signOperation(alice, { kind: 'certify', actor: alice.address, target: 'chain:system.cert', nonce: ++clock, body: { signer: alice.address, contract } });
    const refused = await postJson(`${net.gatewayUrl}/api/v1/contracts/certify`, byAlice);
    assert.equal(refused.status, 403, JSON.stringify(refused.body));
    assert.match(refused.body.error as string, /not an analyzer operator/);
    await failsInBlock(net, signOperation(alice, { kind: 'certify', actor: alice.address, target: 'chain:system.cert', nonce: ++clock, body: { signer: alice.address, contract } }), /not an analyzer operator/, 'certify');

    const { node, signer } = asNode(2);
    const ok = await postJson(`${net.gatewayUrl}/api/v1/contracts/certify`, signOperation(signer, { kind: 'certify', actor: node, target: 'chain:system.cert', nonce: ++clock, body: { signer: node, contract, note: 'reviewed' } }));
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    const tx = await confirmedEverywhere(ok.body.tx_hash as string);
    const list = await getJson(`${net.gatewayUrl}/api/v1/certificates?owner=${alice.address}`);
    assert.equal(list.status, 200, JSON.stringify(list.body));
    const certs = list.body.certificates as Array<Record<string, unknown>>;
    assert.equal(certs.length, 1);
    assert.deepEqual([certs[0]!.contract, certs[0]!.owner, certs[0]!.issuer, certs[0]!.code_hash, certs[0]!.security_score, certs[0]!.note, certs[0]!.tx_hash], [contract, alice.address, node, sha3Hex0x(PLAIN), 100, 'reviewed', tx.hash ?? ok.body.tx_hash]);
    assert.deepEqual((await getJson(`${rpc(3)}/api/v1/certificates/contract/${contract}`)).body, certs[0]);
    assert.equal((await getJson(`${net.gatewayUrl}/api/v1/certificates/${String(certs[0]!.id)}`)).body.id, certs[0]!.id);
    const again = await postJson(`${rpc(2)}/api/v1/contracts/certify`, signOperation(signer, { kind: 'certify', actor: node, target: 'chain:system.cert', nonce: ++clock, body: { signer: node, contract } }));
    assert.equal(again.status, 400, 'once per code hash');
    const ops = (await getJson(`${rpc()}/api/v1/gas/estimate`)).body.operations as Record<string, number>;
    for (const name of ['certify', 'whitelist', 'score', 'register_template', 'deprecate_template', 'deploy']) assert.equal(typeof ops[name], 'number', `${name} in the gas estimate`);
    await sameRootEverywhere(net);
  });

  test('templates: a .node registers one with a fee; a deploy naming it pays the author exactly; deprecate refuses new deploys (also in the block); delete removes it', async () => {
    const FEE = 2_500_000;
    const { node, signer } = asNode(1);
    const reg = await postJson(`${net.gatewayUrl}/api/v1/templates/register`, signOperation(signer, { kind: 'register_template', actor: node, target: 'chain:system.templates', nonce: ++clock, body: { author: node, name: 'plain', description: 'does nothing', category: 'demo', bytecode_hex: toHex(PLAIN), abi_json: '{"functions":[]}', fee_unro: FEE } }));
    assert.equal(reg.status, 200, JSON.stringify(reg.body));
    await confirmedEverywhere(reg.body.tx_hash as string);
    const id = `tpl-${sha3Hex0x(`ch-template|${node}|${reg.body.tx_hash as string}`).slice(2, 18)}`;
    const listed = (await getJson(`${net.gatewayUrl}/api/v1/templates?author=${node}`)).body.templates as Array<Record<string, unknown>>;
    assert.deepEqual(listed.map((t) => [t.id, t.fee_unro, t.status, t.builtin, t.uses]), [[id, FEE, 'active', false, 0]]);
    assert.equal(((await getJson(`${net.gatewayUrl}/api/v1/templates`)).body.templates as Array<Record<string, unknown>>)[0]!.builtin, true, 'the shipped template first');

    const before = await account(alice.address);
    const op = signOperation(alice, { kind: 'deploy', actor: alice.address, target: DEPLOY, nonce: ++clock, body: { owner: alice.address, template: id, name: 'from plain', gas_limit: 1_000 } });
    const d = await postJson(`${rpc()}/api/v1/contracts/deploy`, op);
    assert.equal(d.status, 200, JSON.stringify(d.body));
    const tx = await confirmedEverywhere(d.body.tx_hash as string);
    assert.deepEqual([tx.template_fee, tx.template_fee_human], [FEE, '2.5 COIN']);
    const after = await account(alice.address);
    assert.ok(BigInt(before.balance as number) - BigInt(after.balance as number) >= BigInt(FEE) + BigInt(tx.fee as number), 'alice paid the fee besides gas');
    const t = (await getJson(`${rpc(2)}/api/v1/templates/${id}`)).body;
    assert.deepEqual([t.uses, t.earned], [1, FEE], 'the author earned exactly the fee');

    const dep = await postJson(`${rpc(1)}/api/v1/templates/deprecate`, signOperation(signer, { kind: 'deprecate_template', actor: node, target: 'chain:system.templates', nonce: ++clock, body: { template_id: id, author: node } }));
    assert.equal(dep.status, 200, JSON.stringify(dep.body));
    await confirmedEverywhere(dep.body.tx_hash as string);
    const late = signTransfer(alice, { to: DEPLOY, value: 0, nonce: Number((await account(alice.address)).next_nonce), data: deployData({ template: id }), gas_limit: 1_000 });
    const refused = await postJson(`${net.gatewayUrl}/api/v1/transactions`, late);
    assert.equal(refused.status, 400, JSON.stringify(refused.body));
    assert.match(refused.body.error as string, /deprecated/);
    await failsInBlock(net, late, /deprecated/);

    const del = await postJson(`${rpc(1)}/api/v1/templates/deprecate`, signOperation(signer, { kind: 'deprecate_template', actor: node, target: 'chain:system.templates', nonce: ++clock, body: { template_id: id, author: node, delete: true } }));
    assert.equal(del.status, 200, JSON.stringify(del.body));
    await confirmedEverywhere(del.body.tx_hash as string);
    assert.equal((await getJson(`${net.gatewayUrl}/api/v1/templates/${id}`)).status, 404);
    await sameRootEverywhere(net);
  });
});
