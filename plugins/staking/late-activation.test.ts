import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeChain, signOperation, wallet } from '../../test/helpers/chain-fixture.js';
import { stakingPlugin } from './index.js';

const mallory = wallet(112);
const COIN = 1_000_000n;

test('staking switched on after genesis never removes validators it has no record of', async () => {
  const f = await makeChain({
    plugins: [stakingPlugin],
    pluginConfig: [{ name: 'staking', activation_height: 2 }],
    accounts: [{ address: mallory.address, balance: 1_000n * COIN }],
    genesisParams: { min_stake: String(10n * COIN) },
  });
  await f.block();
  await f.block();
  await f.chain.admitOperation('register_node', signOperation(mallory, { actor: mallory.address, target: 'chain:system.node', nonce: 1_700_000_001_000, body: { name: 'evil', owner: mallory.address, consensus_public_key: mallory.publicKeyHex } }), {}, 0);
  await f.block();
  const set = (await f.chain.queries.validatorSetAt(f.chain.head.height + 2)).map((v) => [v.address, v.power]);
  assert.deepEqual(set, [['chain:evil.node', 10n * COIN], ['chain:v0.node', 10_000_000_000n]], 'the genesis validator keeps its power; the new node joins beside it');
});
