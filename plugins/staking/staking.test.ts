import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeChain, refused, signOperation, signTransfer, VALIDATOR_KEY, wallet, type Fixture, type Wallet } from '../../test/helpers/chain-fixture.js';
import { deriveAddress, toHex } from '../../kernel/sdk.js';
import { stakingPlugin } from './index.js';
import { stakeReward, delegationReward } from './rewards.js';

const alice = wallet(101);
const bob = wallet(102);
const COIN = 1_000_000n;
const MIN = 10n * COIN;
const STAKE = 'chain:system.stake';
const NODE = 'chain:system.node';
let clock = 1_700_000_000_000;
const nonce = (): number => ++clock;

/** Devnet-like timings: min_stake 10 COIN, a 5-block lock, rewards every 4 blocks. */
async function chain(): Promise<Fixture> {
  return makeChain({
    plugins: [stakingPlugin],
    accounts: [alice, bob].map((w) => ({ address: w.address, balance: 1_000n * COIN })),
    genesisParams: { min_stake: String(MIN), unbonding_blocks: '5', reward_interval_blocks: '4', blocks_per_year: '1000' },
  });
}

function op(w: Wallet, target: string, actor: string, body: Record<string, unknown>, value = 0): Record<string, unknown> {
  return signOperation(w, { actor, target, value, nonce: nonce(), body });
}


async function record(f: Fixture, key: string): Promise<Record<string, unknown> | undefined> {
  const raw = await f.chain.queries.state.get(`staking/${key}`);
  return raw === undefined ? undefined : (JSON.parse(new TextDecoder().decode(raw)) as Record<string, unknown>);
}

const big = (v: unknown): bigint => BigInt((v as { $big: string }).$big);

test('genesis validators are nodes owned by the address their key derives, staked at the genesis rate', async () => {
  const f = await chain();
  const node = await record(f, 'node/chain:v0.node');
  assert.equal(node?.owner, deriveAddress(VALIDATOR_KEY.publicKey));
  const stake = await record(f, 'stake/chain:v0.node');
  assert.equal(big(stake?.amount), 10_000n * COIN);
  assert.equal(stake?.genesis, true);
});

test('register a node: min_stake debited and recorded as its stake; the name taken is 409; bad names and owners 400; it joins the set with its key', async () => {
  const f = await chain();
  const consensus = wallet(103);
  const body = { name: 'alpha', owner: alice.address, consensus_public_key: consensus.publicKeyHex };
  await refused(f.chain.admitOperation('register_node', op(alice, NODE, alice.address, { ...body, name: '-bad' }), {}, 0), 400, /name "-bad"/);
  await refused(f.chain.admitOperation('register_node', op(alice, NODE, alice.address, { ...body, name: 'v0' }), {}, 0), 409, /already registered/);
  await f.chain.admitOperation('register_node', op(alice, NODE, alice.address, body), {}, 0);
  await f.block();
  assert.equal((await f.account(alice.address)).balance, 1_000n * COIN - MIN - 100n, 'min_stake and 100 gas');
  assert.equal(big((await record(f, 'stake/chain:alpha.node'))?.amount), MIN);
  await refused(f.chain.admitOperation('register_node', op(bob, NODE, bob.address, { ...body, owner: bob.address }), {}, 0), 409, /chain:alpha\.node is already registered/);
  // The endBlock of the registering block handed the new node to consensus, which counts it from
  // two heights on (the kernel's set-change delay).
  const vset = await f.chain.queries.validatorSetAt(f.chain.head.height + 2);
  assert.deepEqual(vset.map((v) => [v.address, v.power]), [['chain:alpha.node', MIN], ['chain:v0.node', 10_000n * COIN]]);
  assert.equal(vset[0]!.public_key, consensus.publicKeyHex);
});

test('stake and unstake: the minimum, the lock restarted by an addition, the whole amount returned, refusals at admission and in a block past it', async () => {
  const f = await chain();
  await refused(f.chain.admitOperation('stake', op(alice, STAKE, alice.address, { address: alice.address, amount: Number(MIN - 1n) }, Number(MIN - 1n)), {}, 0), 400, /below min_stake/);
  await f.chain.admitOperation('stake', op(alice, STAKE, alice.address, { address: alice.address, amount: Number(MIN) }, Number(MIN)), {}, 0);
  const h1 = (await f.block()).header.height;
  assert.equal((await record(f, `stake/${alice.address}`))?.unlock_height, h1 + 5);
  await f.chain.admitOperation('stake', op(alice, STAKE, alice.address, { address: alice.address, amount: 1 }, 1), {}, 0);
  const h2 = (await f.block()).header.height;
  assert.equal((await record(f, `stake/${alice.address}`))?.unlock_height, h2 + 5, 'an addition restarts the lock for the whole stake');
  await refused(f.chain.admitOperation('unstake', op(alice, STAKE, alice.address, { address: alice.address }), {}, 0), 400, new RegExp(`locked until height ${h2 + 5}`));
  // The same unstake put straight into a block fails there, nothing returned.
  const early = f.chain.rebuildTx('signed', f.operations.envelope('unstake', op(alice, STAKE, alice.address, { address: alice.address }), {}), 1n, 0);
  f.chain.mempool.add(early);
  await f.block();
  assert.equal((await f.chain.queries.getTx(early.hash))?.receipt.status, 'failed');
  while (f.chain.head.height + 1 < h2 + 5) await f.block();
  const before = (await f.account(alice.address)).balance;
  await f.chain.admitOperation('unstake', op(alice, STAKE, alice.address, { address: alice.address }), {}, 0);
  await f.block();
  assert.equal(await record(f, `stake/${alice.address}`), undefined);
  const rewards = (await f.account(alice.address)).balance - before - (MIN + 1n) + 50n;
  assert.ok(rewards >= 0n, 'the whole stake came back, with what accrued, less the 50-gas fee');
});

test('delegate: only to a .node with active stake (400 otherwise, 404 unknown), at least min_stake, undelegate after the lock', async () => {
  const f = await chain();
  const body = (validator: string, amount: number) => op(bob, validator, bob.address, { delegator: bob.address, validator, amount }, amount);
  await refused(f.chain.admitOperation('delegate', body(alice.address, Number(MIN)), {}, 0), 400, /not a \.node/);
  await refused(f.chain.admitOperation('delegate', body('chain:ghost.node', Number(MIN)), {}, 0), 404, /not registered/);
  await refused(f.chain.admitOperation('delegate', body('chain:v0.node', Number(MIN - 1n)), {}, 0), 400, /below min_stake/);
  await f.chain.admitOperation('delegate', body('chain:v0.node', Number(MIN)), {}, 0);
  await f.block();
  assert.equal(big((await record(f, `delegation/chain:v0.node/${bob.address}`))?.amount), MIN);
  await refused(f.chain.admitOperation('undelegate', op(bob, 'chain:v0.node', bob.address, { delegator: bob.address, validator: 'chain:v0.node' }), {}, 0), 400, /locked until/);
});

test('rewards at the interval, in exact integers: genesis rate for the genesis stake, base rate and commission for a delegation', async () => {
  const f = await chain();
  await f.chain.admitOperation('delegate', op(bob, 'chain:v0.node', bob.address, { delegator: bob.address, validator: 'chain:v0.node', amount: Number(100n * COIN) }, Number(100n * COIN)), {}, 0);
  const bonded = (await f.block()).header.height; // height 1
  const owner = deriveAddress(VALIDATOR_KEY.publicKey);
  const ownerBefore = (await f.account(owner)).balance;
  const bobBefore = (await f.account(bob.address)).balance;
  while (f.chain.head.height < 4) await f.block(); // height 4 pays
  // The genesis stake accrued from height 0, the delegation from the block that bonded it.
  const genesisStake = stakeReward(10_000n * COIN, 2_400n, 4n, 1_000n);
  const split = delegationReward(100n * COIN, 1_200n, 1_000n, BigInt(4 - bonded), 1_000n);
  assert.equal((await f.account(bob.address)).balance - bobBefore, split.delegator);
  assert.equal((await f.account(owner)).balance - ownerBefore, genesisStake + split.commission, 'the genesis validator\'s owner gets its stake reward and its commission (§30)');
  const rewards = (await f.chain.queries.state.scan(`staking/reward/${bob.address}/`)).length;
  assert.equal(rewards, 1, 'one delegation reward record for bob');
});

test('a plain transfer to a .node credits its owner; to an unregistered .node it is refused', async () => {
  const f = await chain();
  const owner = deriveAddress(VALIDATOR_KEY.publicKey);
  const before = (await f.account(owner)).balance;
  await f.chain.admit(signTransfer(alice, { to: 'chain:v0.node', value: 777, nonce: 1 }), 0);
  await f.block();
  assert.equal((await f.account(owner)).balance, before + 777n);
  assert.equal((await f.account('chain:v0.node')).balance, 0n);
  await refused(f.chain.admit(signTransfer(alice, { to: 'chain:ghost.node', value: 1, nonce: 2 }), 0), 400, /chain:ghost\.node is not a valid recipient/);
});

test('a node\'s owner signs for it (decisions.md §19); anyone else is 401', async () => {
  const f = await chain();
  await f.chain.admitOperation('register_node', op(alice, NODE, alice.address, { name: 'beta', owner: alice.address }), {}, 0);
  await f.block();
  await refused(f.chain.admitOperation('update_node_profile', op(bob, NODE, 'chain:beta.node', { commission_bps: 500 }), { address: 'chain:beta.node' }, 0), 401, /not bound to chain:beta\.node/);
  await refused(f.chain.admitOperation('update_node_profile', op(alice, NODE, 'chain:beta.node', { commission_bps: 2_001 }), { address: 'chain:beta.node' }, 0), 400, /above max_commission_bps 2000/);
  await f.chain.admitOperation('update_node_profile', op(alice, NODE, 'chain:beta.node', { commission_bps: 500, consensus_public_key: toHex(wallet(104).keys.publicKey) }), { address: 'chain:beta.node' }, 0);
  await f.block();
  assert.equal(big((await record(f, 'node/chain:beta.node'))?.commission_bps), 500n);
});

test('every refusal is answered at admission with its status and a message naming the rule, and nothing moves', async () => {
  const f = await chain();
  const poor = wallet(105);
  await f.chain.admit(signTransfer(alice, { to: poor.address, value: 1_000, nonce: 1 }), 0);
  // A registered node (gamma) without a consensus key, and one jailed by nothing: beta never staked.
  await f.chain.admitOperation('register_node', op(alice, NODE, alice.address, { name: 'gamma', owner: alice.address }), {}, 0);
  await f.block();
  const root = f.chain.head.state_root;
  const cases: Array<[string, Record<string, unknown>, Record<string, string>, number, RegExp]> = [
    ['register_node', op(alice, NODE, alice.address, { name: 'x'.repeat(33), owner: alice.address }), {}, 400, /must be 1 to 32 characters/],
    ['register_node', op(alice, NODE, alice.address, { name: 'delta', owner: alice.address, node_address: 'chain:other.node' }), {}, 400, /node_address chain:other\.node must be chain:delta\.node/],
    ['register_node', op(alice, NODE, alice.address, { name: 'delta', owner: alice.address, consensus_public_key: 'ab' }), {}, 400, /consensus_public_key must be 3904 lowercase hex/],
    ['register_node', op(poor, NODE, poor.address, { name: 'delta', owner: poor.address }), {}, 400, /insufficient balance: registering a node bonds min_stake \(10000000 ucoin\)/],
    ['register_node', op(alice, NODE, alice.address, { name: 'gamma', owner: alice.address }), {}, 409, /chain:gamma\.node is already registered/],
    ['update_node_profile', op(alice, NODE, 'chain:gamma.node', { commission_bps: 2_001 }), { address: 'chain:gamma.node' }, 400, /above max_commission_bps 2000/],
    ['update_node_profile', op(bob, NODE, 'chain:gamma.node', { commission_bps: 10 }), { address: 'chain:gamma.node' }, 401, /not bound to chain:gamma\.node/],
    ['stake', op(alice, STAKE, alice.address, { address: alice.address, amount: Number(MIN - 1n) }, Number(MIN - 1n)), {}, 400, /amount 9999999 is below min_stake 10000000/],
    ['unstake', op(bob, STAKE, bob.address, { address: bob.address }), {}, 400, /has no stake to unstake/],
    ['unstake', op(alice, STAKE, 'chain:gamma.node', { address: 'chain:gamma.node' }), {}, 400, /stake of chain:gamma\.node is locked until height 6/],
    ['delegate', op(bob, alice.address, bob.address, { delegator: bob.address, validator: alice.address, amount: Number(MIN) }, Number(MIN)), {}, 400, /is not a \.node/],
    ['delegate', op(bob, 'chain:ghost.node', bob.address, { delegator: bob.address, validator: 'chain:ghost.node', amount: Number(MIN) }, Number(MIN)), {}, 404, /validator chain:ghost\.node is not registered/],
    ['delegate', op(bob, 'chain:v0.node', bob.address, { delegator: bob.address, validator: 'chain:v0.node', amount: Number(MIN - 1n) }, Number(MIN - 1n)), {}, 400, /below min_stake/],
    ['undelegate', op(bob, 'chain:v0.node', bob.address, { delegator: bob.address, validator: 'chain:v0.node' }), {}, 400, /has no delegation to chain:v0\.node/],
    ['unjail', op(alice, NODE, 'chain:ghost.node', { address: 'chain:ghost.node' }), { address: 'chain:ghost.node' }, 401, /not bound to chain:ghost\.node/],
    ['unjail', op(alice, NODE, 'chain:gamma.node', { address: 'chain:gamma.node' }), { address: 'chain:gamma.node' }, 400, /chain:gamma\.node is not jailed/],
  ];
  for (const [name, body, params, status, pattern] of cases) await refused(f.chain.admitOperation(name, body, params, 0), status, pattern);
  assert.equal(f.chain.mempool.size, 0, 'nothing admitted');
  await f.block();
  assert.equal((await f.account(poor.address)).balance, 1_000n);
  assert.equal((await f.account(alice.address)).balance, 1_000n * COIN - 1_000n - 21n - MIN - 100n, 'only the transfer, the registration and their fees');
  assert.equal(f.chain.head.state_root, root, 'the block after the refusals (no reward height) changed no state');
});
