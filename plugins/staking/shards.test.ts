import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeChain, signOperation, VALIDATOR_KEY, wallet, walletOnShard } from '../../test/helpers/chain-fixture.js';
import { shardOf } from '../../kernel/sdk.js';
import { stakingPlugin } from './index.js';

const COIN = 1_000_000n;
const MIN = 10n * COIN;
const NODE = 'chain:system.node';
let clock = 1_700_000_000_000;
// chain:v0.node, chain:alpha.node belong to shard 0 of 2; chain:v1.node and chain:gamma.node to shard 1.
const HERE = { id: 0, count: 2 };
const owner = walletOnShard(0, 2);

async function shardZero() {
  assert.deepEqual(['chain:v0.node', 'chain:alpha.node', 'chain:v1.node', 'chain:gamma.node'].map((a) => shardOf(a, 2)), [0, 0, 1, 1]);
  return makeChain({
    shard: HERE,
    plugins: [stakingPlugin],
    accounts: [{ address: owner.address, balance: 1_000n * COIN }],
    genesisParams: { min_stake: String(MIN), unbonding_blocks: '5', reward_interval_blocks: '4', blocks_per_year: '1000' },
    validators: [
      { address: 'chain:v0.node', key: VALIDATOR_KEY, stake: '10000000000' },
      { address: 'chain:v1.node', key: wallet(91).keys, stake: '10000000000' },
    ],
  });
}

const op = (target: string, body: Record<string, unknown>, value = 0) => signOperation(owner, { actor: owner.address, target, value, nonce: ++clock, body });

test('a shard\'s active set is the .nodes it owns: staking counts nothing else (decisions.md §72)', async () => {
  const f = await shardZero();
  await f.block();
  const next = await f.chain.queries.validatorSetAt(f.chain.head.height + 2);
  assert.deepEqual(next.filter((v) => v.power > 0n).map((v) => v.address), ['chain:v0.node'], 'chain:v1.node, owned by shard 1, has no power here');
});

test('a .node another shard owns is not registered here, nor delegated to: 400 naming that shard; one this shard owns is (decisions.md §71, §73)', async () => {
  const f = await shardZero();
  const register = (name: string) => f.chain.admitOperation('register_node', op(NODE, { name, owner: owner.address }), {}, 0);
  await assert.rejects(register('gamma'), (e: unknown) => {
    const err = e as { status: number; message: string; extra?: Record<string, unknown> };
    assert.equal(err.status, 400);
    assert.equal(err.extra?.shard, 1);
    assert.match(err.message, /chain:gamma\.node belongs to shard 1; this node serves shard 0/);
    return true;
  });
  const delegation = signOperation(owner, { actor: owner.address, target: 'chain:v1.node', value: Number(MIN), nonce: ++clock, body: { delegator: owner.address, validator: 'chain:v1.node', amount: Number(MIN) } });
  await assert.rejects(f.chain.admitOperation('delegate', delegation, {}, 0), (e: unknown) => (e as { status: number; extra?: Record<string, unknown> }).status === 400 && (e as { extra?: Record<string, unknown> }).extra?.shard === 1);
  await register('alpha');
  await f.block();
  assert.ok(await f.chain.queries.state.get('staking/node/chain:alpha.node'), 'a .node of this shard is registered');
});

test('a proposer that skips admission cannot register another shard\'s .node: the check runs again in the block', async () => {
  const f = await shardZero();
  const tx = f.chain.rebuildTx('signed', { ...op(NODE, { name: 'gamma', owner: owner.address }), _op: 'register_node' }, 1n, 0);
  f.chain.mempool.add(tx);
  await f.block();
  const stored = await f.chain.queries.getTx(tx.hash);
  assert.equal(stored?.receipt.status, 'failed');
  assert.match(stored?.receipt.error ?? '', /chain:gamma\.node belongs to shard 1/);
  assert.equal(await f.chain.queries.state.get('staking/node/chain:gamma.node'), undefined);
});
