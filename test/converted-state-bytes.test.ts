import { test } from 'node:test';
import assert from 'node:assert/strict';
import { labelledWallet, makeChain, signOperation, signOwnLayout, signTransfer, VALIDATOR_KEY, type Fixture, type Wallet } from './helpers/chain-fixture.js';
import { contractsPlugin, useContractRuntimes } from '../plugins/contracts/index.js';
import { analyzerPlugin } from '../plugins/analyzer/index.js';
import { inThreadRuntime } from '../plugins/contracts/runtime.js';
import { Vm } from '../plugins/contracts/vm/engine.js';
import { templateBytecode } from '../plugins/contracts/templates.js';
import { canonicalJson, deriveAddress, sha3Hex0x, toHex } from '../kernel/sdk.js';
import { memoPlugin } from './fixtures/sdk-test-plugins.js';
import { stakingPlugin } from '../plugins/staking/index.js';
import { governancePlugin } from '../plugins/governance/index.js';
import { sentinelPlugin } from '../plugins/sentinel/index.js';
import { aiRecordsPlugin } from '../plugins/ai-records/index.js';
import { leastValueScoring, loadModel } from '../plugins/sentinel/model.js';
import { heldMessages } from '../plugins/sentinel/operations/held.js';

/*
 * Phase B of issue 30 converts governance, sentinel and ai-records (and later staking and
 * contracts, recorded on commit d38c4c8 before theirs) to declared stores and events
 * without changing one byte of their state. Each scenario below drives a plugin through every
 * record kind and event it has; the digest of its namespace (every key and value) and of its
 * events, block after block, was recorded on the code before the conversion (commit 1179de6).
 * A converted plugin must reproduce it exactly. Only the plugin's own namespace and events are
 * hashed, so a change elsewhere (the kernel's records, another plugin's) does not move them.
 */

interface Observed {
  readonly keys: number;
  readonly events: number;
  readonly digest: string;
}

const decoder = new TextDecoder();

async function observe(f: Fixture, namespace: string, eventTypes: readonly string[], withIndex = false): Promise<Observed> {
  const state = (await f.chain.queries.state.scan(`${namespace}/`)).map(([k, v]) => [k, decoder.decode(v)]);
  // The node-local index is outside the state root, but its entries are what the plugin's list routes read.
  if (withIndex) for (const [k, v] of await f.chain.queries.pluginIndex(namespace).scan('')) state.push([`index:${k}`, k.endsWith('/bin') ? sha3Hex0x(v) : decoder.decode(v)]);
  const events: string[] = [];
  for (let h = 1; h <= f.chain.head.height; h++) {
    for (const e of await f.chain.queries.getBlockEvents(h)) {
      if (eventTypes.includes(e.type)) events.push(canonicalJson({ height: h, type: e.type, data: e.data, phase: e.phase, tx: e.tx_hash }));
    }
  }
  return { keys: state.length, events: events.length, digest: sha3Hex0x(new TextEncoder().encode(canonicalJson({ state, events }))) };
}

const COIN = 1_000_000n;
const validatorOwner = { keys: VALIDATOR_KEY, publicKeyHex: toHex(VALIDATOR_KEY.publicKey), address: deriveAddress(VALIDATOR_KEY.publicKey) };

async function governanceScenario(): Promise<Observed> {
  const [alice, bob, carol] = [labelledWallet('gb-alice'), labelledWallet('gb-bob'), labelledWallet('gb-carol')];
  const f = await makeChain({
    plugins: [stakingPlugin, memoPlugin, governancePlugin],
    pluginConfig: [{ name: 'staking' }, { name: 'memo', enabled: false } as { name: string }, { name: 'governance' }],
    accounts: [alice, bob, carol, validatorOwner].map((w) => ({ address: w.address, balance: (w === bob ? 5_000n : 1_000n) * COIN })),
    genesisParams: { min_stake: String(10n * COIN), unbonding_blocks: '5', reward_interval_blocks: '1000', blocks_per_year: '1000' },
  });
  let time = 1_800_000_000_000;
  let clock = 1_950_000_000_000;
  const block = () => f.block((time += 1000));
  const gov = (w: Wallet, body: Record<string, unknown>, params: Record<string, string> = {}, name = 'propose') =>
    f.chain.admitOperation(name, signOperation(w, { actor: w.address, target: 'chain:system.governance', nonce: ++clock, body }), params, 0);
  for (const [w, amount] of [[alice, 10n * COIN], [bob, 4_000n * COIN], [carol, 12n * COIN]] as const) {
    await f.chain.admitOperation('stake', signOperation(w, { actor: w.address, target: 'chain:system.stake', value: Number(amount), nonce: ++clock, body: { address: w.address, amount: Number(amount) } }), {}, 0);
  }
  await block();
  const h = f.chain.head.height + 1;
  await gov(alice, { proposer: alice.address, title: 'signal', description: 'a text proposal', kind: 'text', voting_duration: 100, payload: { note: 'x' } });
  await gov(bob, { proposer: bob.address, title: 'quorum', kind: 'PARAM_CHANGE', payload: { param_key: 'quorum_bps', param_value: '2500' }, voting_duration: 100 });
  await gov(bob, { proposer: bob.address, title: 'memo on', kind: 'PARAM_CHANGE', payload: { param_key: 'plugin:memo', param_value: `activate@${h + 150}` }, voting_duration: 101 });
  await gov(alice, { proposer: alice.address, title: 'too far', kind: 'PARAM_CHANGE', payload: { param_key: 'quorum_bps', param_value: '99999' }, voting_duration: 101 });
  await block();
  await gov(bob, { voter: bob.address, accept: true }, { id: '1' }, 'vote');
  await gov(alice, { voter: alice.address, accept: false }, { id: '2' }, 'vote');
  await gov(bob, { voter: bob.address, accept: true }, { id: '3' }, 'vote');
  await gov(bob, { voter: bob.address, accept: true }, { id: '4' }, 'vote');
  await block();
  await gov(alice, { voter: alice.address, accept: true }, { id: '3' }, 'vote');
  await gov(carol, { proposer: carol.address, title: 'late', kind: 'text' });
  await block();
  while (f.chain.head.height < h + 102) await block();
  return observe(f, 'governance', ['proposal_created', 'vote_cast', 'proposal_closed']);
}

/** The sentinel with its holds, trust list and scoring, and ai-records logging its decisions and registering models. */
async function sentinelScenario(): Promise<{ sentinel: Observed; records: Observed }> {
  const model = loadModel();
  const [a, b, c] = [labelledWallet('sb-a'), labelledWallet('sb-b'), labelledWallet('sb-c')];
  const BALANCE = 1_000_000n;
  const f = await makeChain({
    plugins: [sentinelPlugin, aiRecordsPlugin],
    pluginConfig: [
      { name: 'sentinel', options: { weights_hash: model.weightsHash } },
      { name: 'ai-records', options: { genesis_models: [{ name: 'sentinel', version: '1.0.0', weights_hash: model.weightsHash, architecture: 'logistic', params_count: 8, accuracy_bp: 9100 }] } },
    ],
    accounts: [...[a, b, c].map((w) => ({ address: w.address, balance: BALANCE })), { address: validatorOwner.address, balance: 1_000n * COIN }],
    genesisParams: { sentinel_policy_enabled: '1', sentinel_hold_blocks: '2', sentinel_confirm_expiry_blocks: '3', trust_activation_blocks: '2' },
  });
  let time = 1_800_000_000_000;
  let clock = 1_960_000_000_000;
  const block = () => f.block((time += 1000));
  const scoring = (bp: bigint, balance: bigint, first: boolean, burst = 0n) => Number(leastValueScoring(model, bp, { gas_price: 1n, nonce: first ? 1n : 2n, last_nonce: first ? 0n : 1n, balance, tx_count_last_10: burst, recipient_tx_count: 0n, is_self_transfer: false }));
  const send = async (w: Wallet, to: string, value: number) => f.chain.admit(signTransfer(w, { to, value, nonce: Number((await f.account(w.address)).nonce) + 1 }), 0);
  const trust = (w: Wallet, name: 'trust_add' | 'trust_remove', recipient: string) => f.chain.admitOperation(name, signOperation(w, { actor: w.address, target: 'chain:system.trust', nonce: ++clock, body: { owner: w.address, recipient } }), {}, 0);
  const held = (w: Wallet, hash: string, action: 'confirm' | 'cancel') => {
    const nonce = ++clock;
    return f.chain.admitOperation(`held_${action}`, signOwnLayout(w, heldMessages[action]({ owner: w.address, hash }, BigInt(nonce)), { owner: w.address }, nonce), { hash }, 0);
  };
  const register = (version: string, hash: string) =>
    f.chain.admitOperation('register_model', signOperation(validatorOwner, { actor: 'chain:v0.node', target: 'chain:models.registry', nonce: ++clock, body: { from: 'chain:v0.node', name: 'scorer', version, weights_hash: hash, architecture: 'logistic', params_count: 8, accuracy: 0.9512 } }), {}, 0);

  // A held transfer released automatically, one refunded, one confirmed, one cancelled; a trusted recipient not held.
  const friend = labelledWallet('sb-friend').address;
  await trust(c, 'trust_add', friend);
  await trust(c, 'trust_add', labelledWallet('sb-other').address);
  await send(a, labelledWallet('sb-x1').address, scoring(6_300n, BALANCE, true));
  await send(b, labelledWallet('sb-x2').address, scoring(7_500n, BALANCE, true));
  await register('1.0.0', `0x${'ab'.repeat(32)}`);
  await block();
  await register('2.0.0', `0x${'cd'.repeat(32)}`);
  await trust(c, 'trust_remove', labelledWallet('sb-other').address);
  await block();
  await block();
  const cBalance = (await f.account(c.address)).balance;
  const r1 = await send(c, labelledWallet('sb-x3').address, scoring(7_500n, cBalance, true));
  await block();
  await block();
  await send(c, friend, scoring(7_500n, (await f.account(c.address)).balance, false, 1n));
  await held(c, r1.tx_hash, 'confirm');
  await block();
  const r2 = await send(a, labelledWallet('sb-x4').address, scoring(7_500n, (await f.account(a.address)).balance, false, 0n));
  await block();
  await held(a, r2.tx_hash, 'cancel');
  for (let i = 0; i < 4; i++) await block();
  // One hold still open at the end: its markers stay in state.
  await send(b, labelledWallet('sb-x5').address, scoring(7_500n, (await f.account(b.address)).balance, false, 0n));
  await block();
  return {
    sentinel: await observe(f, 'sentinel', ['tx_anomaly', 'tx_held', 'tx_released', 'tx_cancelled', 'tx_refunded', 'trust_added', 'trust_removed']),
    records: await observe(f, 'ai-records', ['oracle_decision', 'model_voting_update', 'model_registered']),
  };
}

/**
 * Staking through every record kind and event it has: a registered node with a consensus key
 * (node, stake, rank, sums), a human's self-stake, delegations from both sides, a profile change,
 * reward payouts at the interval (reward records and summaries), double-sign evidence (slash,
 * offence, jail) and unjail, unstake and undelegate after their locks, a payment to a `.node`.
 */
async function stakingScenario(): Promise<Observed> {
  const [alice, bob, key] = [labelledWallet('st-alice'), labelledWallet('st-bob'), labelledWallet('st-key')];
  const other = labelledWallet('st-v1');
  const f = await makeChain({
    plugins: [stakingPlugin],
    validators: [
      { address: 'chain:v0.node', key: VALIDATOR_KEY, stake: String(10_000n * COIN) },
      { address: 'chain:v1.node', key: other.keys, stake: String(10_000n * COIN) },
    ],
    accounts: [alice, bob, other].map((w) => ({ address: w.address, balance: 1_000n * COIN })),
    genesisParams: { min_stake: String(10n * COIN), unbonding_blocks: '3', reward_interval_blocks: '4', blocks_per_year: '1000', jail_blocks: '3' },
  });
  let time = 1_800_000_000_000;
  let clock = 1_970_000_000_000;
  const block = () => f.block((time += 1000));
  const op = (name: string, w: Wallet, actor: string, target: string, body: Record<string, unknown>, value = 0, params: Record<string, string> = {}) =>
    f.chain.admitOperation(name, signOperation(w, { actor, target, value, nonce: ++clock, body }), params, 0);
  const alpha = 'chain:alpha.node';
  await op('register_node', alice, alice.address, 'chain:system.node', { name: 'alpha', owner: alice.address, consensus_public_key: key.publicKeyHex });
  await op('stake', bob, bob.address, 'chain:system.stake', { address: bob.address, amount: Number(12n * COIN) }, Number(12n * COIN));
  await block();
  await op('stake', alice, alpha, 'chain:system.stake', { address: alpha, amount: Number(5n * COIN) }, Number(5n * COIN));
  await op('delegate', bob, bob.address, alpha, { delegator: bob.address, validator: alpha, amount: Number(10n * COIN) }, Number(10n * COIN));
  await op('delegate', alice, alice.address, 'chain:v0.node', { delegator: alice.address, validator: 'chain:v0.node', amount: Number(11n * COIN) }, Number(11n * COIN));
  await block();
  await op('update_node_profile', alice, alpha, 'chain:system.node', { address: alpha, commission_bps: 500, description: 'alpha node', website: 'https://alpha.example', rpc_endpoint: 'http://127.0.0.1:1' }, 0, { address: alpha });
  await f.chain.admit(signTransfer(bob, { to: alpha, value: 7, nonce: Number((await f.account(bob.address)).nonce) + 1 }), 0);
  await block();
  const evidence = { hash: '0x' + 'cd'.repeat(32), kind: 'duplicate-vote' as const, validator: 'chain:v1.node', height: 1, round: 0, raw: { test: true } };
  f.evidenceVerifier = async () => evidence;
  await f.chain.finalize(await f.chain.propose(0, 'chain:v0.node', (time += 1000), [evidence]));
  while (f.chain.head.height < 9) await block();
  await op('unjail', other, 'chain:v1.node', 'chain:system.node', { address: 'chain:v1.node' }, 0, { address: 'chain:v1.node' });
  await op('unstake', bob, bob.address, 'chain:system.stake', { address: bob.address });
  await op('undelegate', alice, alice.address, 'chain:v0.node', { delegator: alice.address, validator: 'chain:v0.node' });
  await block();
  while (f.chain.head.height < 13) await block();
  return observe(f, 'staking', ['node_registered', 'staked', 'unstaked', 'delegated', 'undelegated', 'validator_slashed', 'reward_paid']);
}

/**
 * Contracts through every record kind and event: a template deployed by a plain transaction
 * with init_args (contract, code, its storage), the same code deployed again through the deploy
 * operation (the code shared), calls that move tokens (contract events, the index's event and
 * token-transfer entries) and attach value, and calls the contract answers with an error.
 */
async function contractsScenario(): Promise<Observed> {
  const [alice, bob] = [labelledWallet('ct-alice'), labelledWallet('ct-bob')];
  const vm = new Vm();
  const f = await makeChain({ plugins: [contractsPlugin, analyzerPlugin], accounts: [alice, bob].map((w) => ({ address: w.address, balance: 100n * COIN })) });
  // After makeChain: the plugin's register puts the process's thread pools, whose time limit a
  // loaded machine can reach; this scenario's answers do not depend on where the VM runs.
  useContractRuntimes({ blocks: inThreadRuntime(vm), offchain: inThreadRuntime(vm) });
  let time = 1_800_000_000_000;
  const block = () => f.block((time += 1000));
  const send = async (w: Wallet, to: string, data: unknown, extra: { value?: number; gas_limit?: number } = {}) =>
    f.chain.admit(signTransfer(w, { to, value: extra.value ?? 0, nonce: Number((await f.account(w.address)).nonce) + 1, data: JSON.stringify(data), ...(extra.gas_limit !== undefined ? { gas_limit: extra.gas_limit } : {}) }), 0);
  const code = toHex(templateBytecode('token.wasm'));
  const first = await send(alice, 'chain:system.deploy', { bytecode_hex: code, name: 'Token', description: 'a token', template: 'fungible-token', init_args: { name: 'Token', symbol: 'TOK', decimals: 2, total_supply: 1000 } }, { gas_limit: 400 });
  await block();
  const token = (await f.chain.queries.getTxEvents(f.chain.head.height, first.tx_hash)).find((e) => e.type === 'contract_deployed')!.data.address as string;
  await f.chain.admitOperation('deploy', signOperation(bob, { actor: bob.address, target: 'chain:system.deploy', kind: 'deploy', nonce: 1_980_000_000_000, gas_limit: 400, body: { owner: bob.address, bytecode_hex: code, name: 'Second', init_args: { name: 'S', symbol: 'S', decimals: 0, total_supply: 5 } } }), {}, 0);
  await send(alice, token, { function: 'transfer', args: { to: bob.address, amount: '12.5' } }, { gas_limit: 200 });
  await block();
  await send(bob, token, { function: 'approve', spender: alice.address, amount: 3 }, { gas_limit: 200, value: 9 });
  await send(alice, token, { function: 'mint', args: { to: alice.address, amount: 1 } }, { gas_limit: 200 });
  await block();
  await send(bob, token, { function: 'mint', args: { to: bob.address, amount: 1 } }, { gas_limit: 200 });
  await send(alice, token, { function: 'transfer_from', args: { from: bob.address, to: alice.address, amount: 1 } }, { gas_limit: 200 });
  await block();
  return observe(f, 'contracts', ['contract_deployed', 'contract_called', 'contract_event'], true);
}

const RECORDED = {
  governance: { keys: 17, events: 14, digest: '0x561486d5dc7c6d3ea4818023f5f6b019ab1d5771b260ef6599e3bbcb3e894f7e' },
  sentinel: { keys: 13, events: 18, digest: '0xf61993722f829ae9c77aad1c0a647652451aa02810dcc81b90a78cdfb92a5133' },
  records: { keys: 19, events: 17, digest: '0x09f601e9a0d690c4f33b0fe09818ee251b45f6919e054bf588c71d520bcf1933' },
  staking: { keys: 48, events: 33, digest: '0x8218cf1d5d0e57040b45a4206c07b5f18446603e5f2c62e386326d0303f56da6' },
  // Since the analyzer (issue 32): the same keys and events; each contract record adds §47's security_score, risk_score, model, score_source.
  // Since templates (decisions.md §51): one more key, `contracts/template-use/fungible-token` (the first deploy names the shipped template), the rest unchanged.
  // Since metering m3 (issue 40: each function charges a local copy of the fuel): the index's metered binaries and their keys changed; state and events did not (without the index the digest is 0xd37e489a… before and after).
  // Since metering m4 (issue 29 item 1: the fuel schedule re-priced, compares, select and i64 division on their own): the index's metered binaries changed again; state and events did not (without the index still 0xd37e489a…).
  contracts: { keys: 33, events: 13, digest: '0xf219002f130bc7b76d719b0042c46e6c800b0e13dd5d21b850ae65b73be74747' },
};

test('governance writes the keys, bytes and events it wrote before its stores and events were declared', async () => {
  const seen = await governanceScenario();
  assert.deepEqual(seen, RECORDED.governance);
});

test('the sentinel and ai-records write the keys, bytes and events they wrote before their stores and events were declared', async () => {
  const seen = await sentinelScenario();
  assert.deepEqual(seen.sentinel, RECORDED.sentinel);
  assert.deepEqual(seen.records, RECORDED.records);
});

test('staking writes the keys, bytes and events it wrote before its stores and events were declared', async () => {
  assert.deepEqual(await stakingScenario(), RECORDED.staking);
});

test('contracts write the keys, bytes, index entries and events they wrote before their stores and events were declared', async () => {
  assert.deepEqual(await contractsScenario(), RECORDED.contracts);
});
