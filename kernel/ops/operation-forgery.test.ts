import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeChain, signOperation, signTransfer, wallet, type Fixture } from '../../test/helpers/chain-fixture.js';
import { canonicalJson } from '../codec/json.js';
import { stakingPlugin } from '../../plugins/staking/index.js';

/** Signed operations a relayer rewraps or extends (found by review; each reproduced before its fix). */
const alice = wallet(111);
const mallory = wallet(112);
const COIN = 1_000_000n;
const MIN = 10n * COIN;

async function chain(requireTxV3 = false): Promise<Fixture> {
  return makeChain({ plugins: [stakingPlugin], accounts: [alice, mallory].map((w) => ({ address: w.address, balance: 1_000n * COIN })), genesisParams: { min_stake: String(MIN) }, requireTxV3 });
}

test('a transfer\'s ch-tx-v2 signature cannot pass for an operation\'s: operation nonces are millisecond timestamps', async () => {
  const f = await chain();
  const transfer = signTransfer(alice, { to: 'chain:v0.node', value: Number(MIN), nonce: 1 });
  await f.chain.admit(transfer, 0);
  const replay = { delegator: alice.address, validator: 'chain:v0.node', amount: Number(MIN), nonce: 1, public_key: transfer.public_key, signature: transfer.signature };
  await assert.rejects(f.chain.admitOperation('delegate', replay, {}, 0), /millisecond timestamp/);
  await f.block();
  assert.equal((await f.account(alice.address)).balance, 1_000n * COIN - MIN - 21n, 'only the transfer applied');
});

test('the path may carry only the actor: a relayer cannot add fields to a signed operation through _path', async () => {
  const f = await chain(true);
  await f.chain.admitOperation('register_node', signOperation(alice, { kind: 'register_node', actor: alice.address, target: 'chain:system.node', nonce: 1_700_000_001_000, body: { name: 'alpha', owner: alice.address, consensus_public_key: wallet(113).publicKeyHex } }), {}, 0);
  await f.block();
  const signed = signOperation(alice, { kind: 'update_node_profile', actor: 'chain:alpha.node', target: 'chain:system.node', nonce: 1_700_000_002_000, body: { description: 'hello' } });
  const honest = f.operations.envelope('update_node_profile', signed, { address: 'chain:alpha.node' });
  const hostile = { ...honest, _path: { address: 'chain:alpha.node', consensus_public_key: mallory.publicKeyHex } };
  await assert.rejects(f.chain.admitFromPeer('signed', hostile, 0, canonicalJson(hostile)), /consensus_public_key: not a path parameter of update_node_profile/);
  f.chain.mempool.add(f.chain.rebuildTx('signed', honest, 1n, 0));
  await f.block();
  const node = JSON.parse(new TextDecoder().decode((await f.chain.queries.state.get('staking/node/chain:alpha.node'))!)) as { consensus_public_key: string; description: string };
  assert.equal(node.description, 'hello');
  assert.equal(node.consensus_public_key, wallet(113).publicKeyHex);
});
