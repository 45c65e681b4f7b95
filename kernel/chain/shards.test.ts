import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeChain, refused, signTransfer, walletOnShard } from '../../test/helpers/chain-fixture.js';
import { MemoryStore } from '../store/level-store.js';
import { GenesisMismatchError } from '../config/genesis-rules.js';
import { SHARD_BINDING_KEY } from '../state/shard-binding.js';

// The fixture's validator chain:v0.node belongs to shard 0 of 2.
const HERE = { id: 0, count: 2 };
const mine = walletOnShard(0, 2);
const mine2 = walletOnShard(0, 2, 1);
const foreign = walletOnShard(1, 2);
const COIN = 1_000_000n;

test('a transfer from a sender of another shard is 400 with its shard, before signatures; one of this shard goes through (decisions.md §73)', async () => {
  const f = await makeChain({ shard: HERE, accounts: [mine, foreign].map((w) => ({ address: w.address, balance: 100n * COIN })) });
  const bad = { ...signTransfer(foreign, { to: mine.address, value: 5, nonce: 1 }), signature: 'ab' };
  await assert.rejects(f.chain.admit(bad, 0), (e: unknown) => {
    const err = e as { status: number; message: string; extra?: Record<string, unknown> };
    assert.equal(err.status, 400, 'not 401: the shard is judged before the signature');
    assert.equal(err.extra?.shard, 1);
    assert.match(err.message, /^from chain:[0-9a-f]{15}\.human belongs to shard 1; this node serves shard 0 of 2/);
    return true;
  });
  await f.chain.admit(signTransfer(mine, { to: mine2.address, value: 5, nonce: 1 }), 0);
  await f.block();
  assert.equal((await f.account(mine.address)).nonce, 1n);
});

test('a plain transfer to an address of another shard is 400 with its shard at admission, and fails in a block with nothing charged (no cross-shard lock in this build)', async () => {
  const f = await makeChain({ shard: HERE, accounts: [mine].map((w) => ({ address: w.address, balance: 100n * COIN })) });
  await assert.rejects(f.chain.admit(signTransfer(mine, { to: foreign.address, value: 5, nonce: 1 }), 0), (e: unknown) => {
    const err = e as { status: number; message: string; extra?: Record<string, unknown> };
    assert.equal(err.status, 400);
    assert.equal(err.extra?.shard, 1);
    assert.match(err.message, /^to chain:[0-9a-f]{15}\.human belongs to shard 1; this node serves shard 0/);
    return true;
  });
  const tx = f.chain.rebuildTx('signed', signTransfer(mine, { to: foreign.address, value: 7, nonce: 1 }), 1n, 0);
  f.chain.mempool.add(tx);
  await f.block();
  const stored = await f.chain.queries.getTx(tx.hash);
  assert.equal(stored?.receipt.status, 'failed');
  assert.match(stored?.receipt.error ?? '', /belongs to shard 1; this node serves shard 0/);
  assert.equal((await f.account(mine.address)).balance, 100n * COIN, 'no fee, no value');
  assert.equal((await f.account(foreign.address)).balance, 0n);
});

test('a proposer that skips admission cannot land a foreign sender\'s transfer: it fails with nothing charged', async () => {
  const f = await makeChain({ shard: HERE, accounts: [mine, foreign].map((w) => ({ address: w.address, balance: 100n * COIN })) });
  const tx = f.chain.rebuildTx('signed', signTransfer(foreign, { to: mine2.address, value: 7, nonce: 1 }), 1n, 0);
  f.chain.mempool.add(tx);
  await f.block();
  const stored = await f.chain.queries.getTx(tx.hash);
  assert.equal(stored?.receipt.status, 'failed');
  assert.match(stored?.receipt.error ?? '', /belongs to shard 1; this node serves shard 0/);
  assert.equal((await f.account(foreign.address)).balance, 100n * COIN, 'no fee, no value');
  assert.equal((await f.account(mine2.address)).balance, 0n);
});

test('the shard is bound to the genesis state: a data folder of another shard (or of one shard) does not open', async () => {
  const kv = new MemoryStore();
  const f = await makeChain({ shard: HERE, kv });
  assert.deepEqual(JSON.parse(new TextDecoder().decode((await f.chain.queries.state.get(SHARD_BINDING_KEY))!)), { shard: 0, n_shards: 2 });
  await assert.rejects(makeChain({ shard: { id: 1, count: 2 }, kv }), (e: unknown) => e instanceof GenesisMismatchError && /holds the chain of shard 0 of 2, but this node is configured for shard 1 of 2/.test(e.message));
  await assert.rejects(makeChain({ kv }), (e: unknown) => e instanceof GenesisMismatchError && /configured for a one-shard network/.test(e.message));
  const one = await makeChain();
  assert.equal(await one.chain.queries.state.get(SHARD_BINDING_KEY), undefined, 'a one-shard chain writes no binding: its roots are §13\'s');
  assert.notEqual(one.chain.head.state_root, f.chain.head.state_root);
});

test('a one-shard chain admits every sender (nothing changes with n_shards 1)', async () => {
  const f = await makeChain({ accounts: [foreign].map((w) => ({ address: w.address, balance: 100n * COIN })) });
  await f.chain.admit(signTransfer(foreign, { to: mine.address, value: 5, nonce: 1 }), 0);
  await refused(f.chain.admit({ ...signTransfer(foreign, { to: mine.address, value: 5, nonce: 2 }), signature: 'ab' }, 0), 401, /signature/);
});
