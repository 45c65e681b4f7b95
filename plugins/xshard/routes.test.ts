import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RouteTable, isChainError, type NodeServices, type RpcRequest } from '../../kernel/sdk.js';
import { provenGet } from '../../test/helpers/proven-read.js';
import { certifiedBlock, makeChain, statusOf, signTransfer, walletOnShard, VALIDATOR_KEY, type Fixture } from '../../test/helpers/chain-fixture.js';
import { bundleOf, nodeServicesOf, shardSigners, twoShardGenesis } from '../../test/helpers/xshard-fixture.js';
import { xshardPlugin } from './index.js';
import { serveXshardRoutes } from './routes.js';
import { verifyBundle } from './bundle.js';
import { ACK_TX, COMMIT_TX, RELAY_SENDER } from './rules.js';
import { lockKey, receiptKey, type Lock, type Receipt } from './store.js';

/*
 * The routes over a fixture chain (shard 0 of 2), called as the server calls them: the queue and
 * its status filter, a lock with value_human, the bundle a node serves (which the plugin's own
 * checker accepts against a client of this shard), and commit's 409 for a pending receipt.
 */

const alice = walletOnShard(0, 2);
const bob = walletOnShard(0, 2, 1);
const carol = walletOnShard(1, 2);
const S1 = shardSigners(1, [10, 10, 10, 10]);

async function served(): Promise<{ f: Fixture; genesis: ReturnType<typeof twoShardGenesis>; services: { query?: NodeServices['query'] }; call: (method: 'GET' | 'POST', path: string, params?: Record<string, string>, query?: string, body?: unknown) => Promise<Record<string, unknown>> }> {
  const services: Record<string, unknown> = {};
  const genesis = twoShardGenesis(S1, [{ address: alice.address, balance: 10_000_000n }]);
  const f = await makeChain({ plugins: [xshardPlugin], shard: { id: 0, count: 2 }, services, genesis });
  const routes = new RouteTable();
  serveXshardRoutes(routes, nodeServicesOf(f, services), 'xshard');
  return {
    f,
    genesis,
    services,
    async call(method, path, params = {}, query = '', body = undefined) {
      const route = routes.list().find((r) => r.method === method && r.path === path);
      assert.ok(route, `${method} ${path} is served`);
      const req: RpcRequest = { method, path, params, query: new URLSearchParams(query), headers: {}, body, ip: '127.0.0.1' };
      return (await route.handler(req)) as Record<string, unknown>;
    },
  };
}

test('the queue, a lock and its bundle as a node serves them; the bundle passes the plugin\'s own check against a client of this shard', async () => {
  const { f, call, genesis, services } = await served();
  const answer = await f.chain.admit(signTransfer(alice, { to: carol.address, value: 4_000, nonce: 1 }), 0);
  await certifiedBlock(f);
  await certifiedBlock(f);
  const id = answer.tx_hash;
  // §84: the lock read itself takes prove, as every single-record read of a state plugin does.
  const proven = await provenGet(f, services, genesis, '/api/v1/cross-shard/transfers/:id', { id });
  assert.deepEqual([proven.answer.status, proven.keys], ['locked', [[lockKey(id), true]]]);
  const queue = await call('GET', '/api/v1/cross-shard/queue', {}, 'status=locked');
  assert.deepEqual((queue.transfers as Array<{ id: string }>).map((l) => l.id), [id]);
  assert.equal(queue.total, 1);
  assert.equal((await call('GET', '/api/v1/cross-shard/queue', {}, 'status=committed')).total, 0);
  assert.equal(await statusOf(call('GET', '/api/v1/cross-shard/queue', {}, 'status=pending')), 400);
  const lock = await call('GET', '/api/v1/cross-shard/transfers/:id', { id });
  assert.equal(lock.value_human, '0.004 COIN');
  assert.equal(lock.commit_height, null);
  assert.equal(await statusOf(call('GET', '/api/v1/cross-shard/transfers/:id', { id: '0x' + '00'.repeat(32) })), 404);
  const bundle = await call('GET', '/api/v1/cross-shard/transfers/:id/proof', { id });
  const proof = bundle.proof as Record<string, unknown>;
  assert.equal(proof.height, f.chain.head.height - 1);
  const stored = bundle.lock as Lock;
  assert.equal(stored.id, id);
  const client = { shard: 0, chain_id: 'test-chain', validators: [{ address: 'chain:v0.node', public_key: Buffer.from(VALIDATOR_KEY.publicKey).toString('hex'), power: 10_000_000_000 }], validators_hash: '', trusted_height: 0 };
  assert.equal(verifyBundle(stored, proof, lockKey(id), client), f.chain.head.height - 1);
  assert.equal(await statusOf(call('GET', '/api/v1/cross-shard/transfers/:id/proof', { id: '0x' + '00'.repeat(32) })), 404);
  assert.equal((await call('GET', '/api/v1/cross-shard/clients', {}, '')).total, 1);
});

test('commit answers §17 and a second commit for the same lock while the first is pending is 409', async () => {
  const { f, call, genesis, services } = await served();
  await certifiedBlock(f);
  const lock: Lock = { id: '0x' + 'ab'.repeat(32), from: carol.address, to: bob.address, value: 700, source_shard: 1, dest_shard: 0, lock_height: 3, deadline_height: 13, status: 'locked' };
  const first = await call('POST', '/api/v1/cross-shard/commit', {}, '', await bundleOf('lock', lockKey(lock.id), lock, { height: 5, set: S1 }));
  assert.deepEqual(Object.keys(first).sort(), ['estimated_block', 'status', 'success', 'tx_hash']);
  const second = call('POST', '/api/v1/cross-shard/commit', {}, '', await bundleOf('lock', lockKey(lock.id), lock, { height: 6, set: S1 }));
  await assert.rejects(second, (e: unknown) => isChainError(e) && e.status === 409 && /is pending: committed/.test(e.message));
  await certifiedBlock(f);
  assert.equal((await call('GET', '/api/v1/cross-shard/receipts/:source_shard/:id', { source_shard: '1', id: lock.id })).outcome, 'committed');
  await certifiedBlock(f);
  const proven = await provenGet(f, services, genesis, '/api/v1/cross-shard/receipts/:source_shard/:id', { source_shard: '1', id: lock.id });
  assert.deepEqual([proven.answer.outcome, proven.keys], ['committed', [[receiptKey(1, lock.id), true]]]);
});

test('a relay write another node admitted and gossiped here is pending here too: the same bundle posted to this node is 409 naming the outcome, not a duplicate\'s 400 (§76, §77)', async () => {
  const { f, call } = await served();
  await certifiedBlock(f);
  // Past its deadline at the proof's height: the receipt it will write is an abort.
  const lock: Lock = { id: '0x' + 'cd'.repeat(32), from: carol.address, to: bob.address, value: 700, source_shard: 1, dest_shard: 0, lock_height: 3, deadline_height: 13, status: 'locked' };
  const late = await bundleOf('lock', lockKey(lock.id), lock, { height: 20, set: S1 });
  // As a peer's relay reaches the pool: admitted by the kernel, never through this node's route.
  await f.chain.admitSystem(COMMIT_TX, RELAY_SENDER, RELAY_SENDER, 0n, { lock: late.lock, proof: late.proof }, 0);
  await assert.rejects(call('POST', '/api/v1/cross-shard/commit', {}, '', late), (e: unknown) => isChainError(e) && e.status === 409 && /is pending: aborted/.test(e.message));

  // An ack of a lock of this shard, gossiped likewise: 409 naming how it settles the lock.
  const sent = await f.chain.admit(signTransfer(alice, { to: carol.address, value: 4_000, nonce: 1 }), 0);
  await certifiedBlock(f);
  const mine = (await call('GET', '/api/v1/cross-shard/transfers/:id', { id: sent.tx_hash })) as unknown as Lock;
  const receipt: Receipt = { source_shard: 0, id: mine.id, from: mine.from, to: mine.to, value: mine.value, outcome: 'aborted', height: 44, proof_height: mine.deadline_height, tx_hash: '0x' + 'ee'.repeat(32) };
  const ack = await bundleOf('receipt', receiptKey(0, mine.id), receipt, { height: 50, set: S1 });
  await f.chain.admitSystem(ACK_TX, RELAY_SENDER, RELAY_SENDER, 0n, { receipt: ack.receipt, proof: ack.proof }, 0);
  await assert.rejects(call('POST', '/api/v1/cross-shard/ack', {}, '', ack), (e: unknown) => isChainError(e) && e.status === 409 && /being settled: refunded/.test(e.message));
  await certifiedBlock(f);
  assert.equal((await call('GET', '/api/v1/cross-shard/transfers/:id', { id: mine.id })).status, 'refunded');
});
