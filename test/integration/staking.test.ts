import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { labelledWallet, signOperation, type Wallet } from '../helpers/chain-fixture.js';
import { getJson, postJson, until, waitConfirmed } from '../helpers/node-process.js';
import { startTestDevnet, type TestDevnet } from '../helpers/devnet.js';

/**
 * Staking on a real 4-validator devnet (configs/devnet.json: min_stake 10 COIN, unbonding 20
 * blocks, rewards every 10, blocks_per_year 1 000), through the gateway and the validators' RPC as
 * a client would. One devnet serves every scenario.
 */
const COIN = 1_000_000;
let clock = Date.now();
const nonce = (): number => ++clock;

describe('staking on a real devnet', () => {
  let net: TestDevnet;
  const alice = labelledWallet('staking-alice');
  const bob = labelledWallet('staking-bob');
  const consensusKey = labelledWallet('staking-alpha-consensus');
  const rpc = (i = 0): string => net.rpcUrls[i]!;
  const post = async (path: string, body: Record<string, unknown>): Promise<Record<string, unknown>> => {
    const r = await postJson(`${net.gatewayUrl}${path}`, body);
    assert.equal(r.status, 200, `${path}: ${JSON.stringify(r.body)}`);
    const tx = await waitConfirmed(rpc(), r.body.tx_hash as string);
    assert.equal(tx.status, 'confirmed', `${path}: ${JSON.stringify(tx)}`);
    return tx;
  };
  const sign = (w: Wallet, actor: string, target: string, body: Record<string, unknown>, value = 0) => signOperation(w, { actor, target, value, nonce: nonce(), body });

  before(async () => {
    net = await startTestDevnet();
    for (const w of [alice, bob]) {
      const f = await postJson(`${net.gatewayUrl}/api/v1/faucet`, { address: w.address, public_key: w.publicKeyHex });
      assert.equal(f.status, 200, JSON.stringify(f.body));
      await waitConfirmed(rpc(), f.body.tx_hash as string);
    }
  });
  after(async () => net?.stop());

  test('the staking parameters and their devnet values are listed; genesis validators are nodes with their stake', async () => {
    const params = (await getJson(`${rpc()}/api/v1/governance/params`)).body;
    const text = JSON.stringify(params);
    for (const key of ['min_stake', 'unbonding_blocks', 'base_apy_bps', 'genesis_apy_bps', 'reward_interval_blocks', 'blocks_per_year', 'max_commission_bps', 'slash_fraction_double_sign_bps', 'slash_reward_fraction_bps', 'slash_double_vote_bps', 'jail_blocks']) {
      assert.ok(text.includes(key), `${key} is listed`);
    }
    const nodes = (await getJson(`${net.gatewayUrl}/api/v1/nodes`.replace(net.gatewayUrl, rpc()))).body;
    assert.equal(nodes.total, 4);
    const v0 = (await getJson(`${rpc()}/api/v1/nodes/chain:validator-0.node`)).body;
    assert.equal(v0.owner, net.validatorKey(0).file.address);
    assert.equal(v0.stake, 10_000 * COIN);
  });

  test('register a fifth node with its consensus key: min_stake bonded, it joins the active set on every validator, the chain keeps finalising', async () => {
    const before = (await getJson(`${rpc()}/api/v1/accounts/${alice.address}`)).body.balance as number;
    const dup = await postJson(`${rpc()}/api/v1/nodes/register`, sign(alice, alice.address, 'chain:system.node', { name: 'validator-1', owner: alice.address }));
    assert.equal(dup.status, 409, JSON.stringify(dup.body));
    await post('/api/v1/nodes/register', sign(alice, alice.address, 'chain:system.node', { name: 'alpha', owner: alice.address, consensus_public_key: consensusKey.publicKeyHex }));
    assert.equal((await getJson(`${rpc()}/api/v1/accounts/${alice.address}`)).body.balance, before - 10 * COIN - 100);
    const node = (await getJson(`${rpc(1)}/api/v1/nodes/chain:alpha.node`)).body;
    assert.equal(node.owner, alice.address);
    assert.equal(node.stake, 10 * COIN);
    for (const url of net.rpcUrls) {
      await until(`alpha in the set on ${url}`, async () => ((await getJson(`${url}/health`)).body.validator_count === 5 ? true : undefined));
      const set = (await getJson(`${url}/api/v1/validators`)).body.validators as Array<Record<string, unknown>>;
      assert.equal(set.find((v) => v.address === 'chain:alpha.node')?.stake, 10 * COIN);
    }
    const h = (await getJson(`${rpc()}/health`)).body.height as number;
    await until('the chain finalises past the set change', async () => (((await getJson(`${rpc(3)}/health`)).body.height as number) >= h + 3 ? true : undefined));
  });

  test('delegate to the new node, rewards split by commission at the reward height in exact integers, undelegate refused before the lock and paid in full after', async () => {
    const amount = 20 * COIN;
    const refusedToHuman = await postJson(`${rpc()}/api/v1/staking/delegate`, sign(bob, bob.address, alice.address, { delegator: bob.address, validator: alice.address, amount }, amount));
    assert.equal(refusedToHuman.status, 400);
    const tx = await post('/api/v1/staking/delegate', sign(bob, bob.address, 'chain:alpha.node', { delegator: bob.address, validator: 'chain:alpha.node', amount }, amount));
    const bonded = tx.block as number;
    const mine = (await getJson(`${rpc()}/api/v1/staking/my-delegations/${bob.address}`)).body;
    assert.equal((mine.delegations as Array<Record<string, unknown>>)[0]?.amount, amount);
    // The first reward height after bonding: a multiple of reward_interval_blocks (10).
    const payout = Math.ceil((bonded + 1) / 10) * 10;
    const rewards = await until(`rewards at ${payout}`, async () => {
      const r = (await getJson(`${rpc()}/api/v1/staking/rewards/${bob.address}`)).body.rewards as Array<Record<string, unknown>>;
      return r.length > 0 ? r : undefined;
    }, 60_000);
    const elapsed = BigInt(Math.min(payout - bonded, 10));
    const delegatorShare = (BigInt(amount) * 1_200n * 9_000n * elapsed) / (100_000_000n * 1_000n);
    const commission = (BigInt(amount) * 1_200n * 1_000n * elapsed) / (100_000_000n * 1_000n);
    assert.deepEqual({ height: rewards[0]!.height, source: rewards[0]!.source, amount: rewards[0]!.amount, paid_to: rewards[0]!.paid_to }, { height: payout, source: 'delegation', amount: Number(delegatorShare), paid_to: bob.address });
    const alphaRewards = (await getJson(`${rpc()}/api/v1/staking/rewards/chain:alpha.node?source=commission`)).body.rewards as Array<Record<string, unknown>>;
    const atPayout = alphaRewards.find((r) => r.height === payout);
    assert.equal(atPayout?.amount, Number(commission));
    assert.equal(atPayout?.paid_to, alice.address, 'a node\'s commission goes to its owner');

    const early = await postJson(`${rpc()}/api/v1/staking/undelegate`, sign(bob, bob.address, 'chain:alpha.node', { delegator: bob.address, validator: 'chain:alpha.node' }));
    assert.equal(early.status, 400);
    assert.match(early.body.error as string, /locked until height/);
    const unlock = (mine.delegations as Array<Record<string, unknown>>)[0]!.unlock_height as number;
    await until(`height ${unlock}`, async () => (((await getJson(`${rpc()}/health`)).body.height as number) >= unlock ? true : undefined), 90_000);
    const before = (await getJson(`${rpc()}/api/v1/accounts/${bob.address}`)).body.balance as number;
    const out = await post('/api/v1/staking/undelegate', sign(bob, bob.address, 'chain:alpha.node', { delegator: bob.address, validator: 'chain:alpha.node' }));
    const after = (await getJson(`${rpc()}/api/v1/accounts/${bob.address}`)).body.balance as number;
    assert.ok(after - before >= amount - (out.fee as number), 'the whole delegation came back, with what accrued since the last payout');
    assert.equal(((await getJson(`${rpc()}/api/v1/staking/my-delegations/${bob.address}`)).body.delegations as unknown[]).length, 0);
  });

  test('staking info answers zeros for an address with nothing bonded, and every staking list answers 200', async () => {
    const nobody = labelledWallet('staking-nobody');
    const info = (await getJson(`${net.gatewayUrl}/api/v1/staking/info/${nobody.address}`.replace(net.gatewayUrl, rpc()))).body;
    assert.deepEqual({ stake: info.stake, unlock_height: info.unlock_height, delegations_out: info.delegations_out, rewards_total: info.rewards_total, jailed: info.jailed }, { stake: 0, unlock_height: 0, delegations_out: 0, rewards_total: 0, jailed: false });
    for (const path of ['/api/v1/staking/validators', `/api/v1/staking/delegations/chain:validator-0.node`, `/api/v1/staking/my-delegations/${nobody.address}`, `/api/v1/staking/rewards/${nobody.address}`, '/api/v1/slashing/history', '/api/v1/nodes']) {
      const r = await getJson(`${rpc(2)}${path}`);
      assert.equal(r.status, 200, path);
      for (const f of ['total', 'limit', 'offset', 'has_more']) assert.ok(f in r.body, `${path} has ${f}`);
    }
  });
});
