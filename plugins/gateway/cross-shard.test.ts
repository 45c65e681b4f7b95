import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sha3Hex0x, shardOf } from '../../kernel/sdk.js';
import { assembledStateRoot, firstFound, globalRoot, mergedQueue, shardQuery, submissionShard } from './cross-shard.js';
import type { NodeAnswer } from './node-client.js';
import type { NodeReads } from './node-reads.js';
import { ShardRouter } from './shard-router.js';
import { shardedRead, writeShard } from './proxy-routes.js';
import type { GatewayServices } from './services.js';
import type { RpcRequest } from '../../kernel/sdk.js';

const router = ShardRouter.fromConfig('http://unused', '0=http://s0,1=http://s1', undefined);

/** Reads answered per shard from `answers[shard][path]` (404 when absent, thrown when the shard is `down`). */
function reads(answers: Array<Record<string, NodeAnswer>>, down: number[] = [], asked: string[] = []): NodeReads {
  const onShard = async (shard: number, path: string): Promise<NodeAnswer> => {
    asked.push(`${shard} ${path}`);
    if (down.includes(shard)) throw Object.assign(new Error('no node reachable'), { status: 503 });
    return answers[shard]?.[path] ?? { status: 404, body: { error: 'not found' } };
  };
  const get = async (path: string): Promise<NodeAnswer> => onShard(-1, path);
  return { getOnShard: onShard, readOnShard: onShard, get, read: get } as unknown as NodeReads;
}

const status = (n: number) => (e: unknown) => (e as { status?: number }).status === n;

test('a commit goes to lock.dest_shard and an ack to receipt.source_shard; a body without them, or naming no shard of the network, is 400', () => {
  assert.equal(submissionShard('/api/v1/cross-shard/commit', { lock: { dest_shard: 1, source_shard: 0 }, proof: {} }, 2), 1);
  assert.equal(submissionShard('/api/v1/cross-shard/ack', { receipt: { source_shard: 0 }, proof: {} }, 2), 0);
  assert.equal(submissionShard('/api/v1/transactions', {}, 2), undefined, 'other routes are routed otherwise');
  assert.throws(() => submissionShard('/api/v1/cross-shard/commit', { proof: {} }, 2), (e: unknown) => status(400)(e) && /lock\.dest_shard is required/.test((e as Error).message));
  assert.throws(() => submissionShard('/api/v1/cross-shard/ack', { receipt: { source_shard: 'one' } }, 2), (e: unknown) => status(400)(e) && /receipt\.source_shard must be a shard number/.test((e as Error).message));
  assert.throws(() => submissionShard('/api/v1/cross-shard/commit', { lock: { dest_shard: 2 } }, 2), (e: unknown) => status(400)(e) && /not a shard of this network \(n_shards 2\)/.test((e as Error).message));
  assert.throws(() => submissionShard('/api/v1/cross-shard/commit', 'text', 2), status(400));
});

test('?shard= defaults to 0 and must be an integer below n_shards', () => {
  assert.equal(shardQuery(new URLSearchParams(''), 2), 0);
  assert.equal(shardQuery(new URLSearchParams('shard=1'), 2), 1);
  for (const bad of ['2', '-1', 'x', '1.0', '', '0x1']) assert.throws(() => shardQuery(new URLSearchParams(`shard=${bad}`), 2), (e: unknown) => status(400)(e) && /query parameter shard/.test((e as Error).message), bad);
});

test('a transaction or lock lookup asks every shard and answers the first 200, else 404', async () => {
  const tx = { status: 200, body: { hash: '0xab', shard: 1 } };
  assert.equal(await firstFound(reads([{}, { '/api/v1/transactions/0xab': tx }]), router, '/api/v1/transactions/0xab'), tx);
  assert.equal(await firstFound(reads([{}, { '/api/v1/transactions/0xab': tx }], [0]), router, '/api/v1/transactions/0xab'), tx, 'an unreachable shard is passed over');
  await assert.rejects(firstFound(reads([{}, {}]), router, '/api/v1/cross-shard/transfers/0xcd'), (e: unknown) => status(404)(e) && /no shard holds/.test((e as Error).message));
  await assert.rejects(firstFound(reads([{}, {}], [0, 1]), router, '/api/v1/transactions/0xab'), status(503));
});

test('the queue without ?shard= is every shard list in shard order, total their sum; with it, that shard only', async () => {
  const q = '/api/v1/cross-shard/queue?status=locked';
  const answers = [
    { [q]: { status: 200, body: { transfers: [{ id: 'a' }], total: 1, limit: 20, offset: 0, has_more: false } } },
    { [q]: { status: 200, body: { transfers: [{ id: 'b' }, { id: 'c' }], total: 2, limit: 20, offset: 0, has_more: false } } },
  ];
  const merged = await mergedQueue(reads(answers), router, new URLSearchParams('status=locked'));
  assert.deepEqual(merged.body, { transfers: [{ id: 'a' }, { id: 'b' }, { id: 'c' }], total: 3, limit: 20, offset: 0, has_more: false });
  // limit and offset page the concatenation (§20), not each shard.
  const paged: Array<Record<string, NodeAnswer>> = [
    { [`${q}&limit=2&offset=1`]: { status: 200, body: { transfers: [], total: 1, limit: 2, offset: 1, has_more: false } } },
    {
      [`${q}&limit=2&offset=1`]: { status: 200, body: { transfers: [{ id: 'c' }], total: 2, limit: 2, offset: 1, has_more: false } },
      [`${q}&limit=2&offset=0`]: { status: 200, body: { transfers: [{ id: 'b' }, { id: 'c' }], total: 2, limit: 2, offset: 0, has_more: false } },
    },
  ];
  assert.deepEqual((await mergedQueue(reads(paged), router, new URLSearchParams('status=locked&limit=2&offset=1'))).body, { transfers: [{ id: 'b' }, { id: 'c' }], total: 3, limit: 2, offset: 1, has_more: false });
  const first = [{ [`${q}&limit=1`]: { status: 200, body: { transfers: [{ id: 'a' }], total: 1, limit: 1, offset: 0, has_more: false } } }, { [`${q}&limit=1`]: { status: 200, body: { transfers: [{ id: 'b' }], total: 2, limit: 1, offset: 0, has_more: true } } }];
  assert.deepEqual((await mergedQueue(reads(first), router, new URLSearchParams('status=locked&limit=1'))).body, { transfers: [{ id: 'a' }], total: 3, limit: 1, offset: 0, has_more: true }, 'never more than limit');
  const asked: string[] = [];
  await mergedQueue(reads(answers, [], asked), router, new URLSearchParams('status=locked&shard=1'));
  assert.deepEqual(asked, ['1 /api/v1/cross-shard/queue?status=locked&shard=1']);
  const refused = { status: 400, body: { error: 'status must be locked, committed or refunded' } };
  assert.equal(await mergedQueue(reads([{ '/api/v1/cross-shard/queue?status=x': refused }, {}]), router, new URLSearchParams('status=x')), refused);
  await assert.rejects(mergedQueue(reads(answers), router, new URLSearchParams('shard=5')), status(400));
});

test('the global root: shard_roots[0] with one shard, else SHA3 of ch-global-root-v1|n|h_0|root_0|… ; null while an entry is', () => {
  assert.equal(globalRoot(['0xaa'], [7]), '0xaa');
  assert.equal(globalRoot(['0xaa', '0xbb'], [7, 9]), sha3Hex0x('ch-global-root-v1|2|7|0xaa|9|0xbb'));
  assert.equal(globalRoot(['0xaa', null], [7, null]), null);
});

test('/state/root is assembled from every shard own /shards entry; an unreachable shard leaves nulls', async () => {
  const entry = (shard: number, height: number, root: string) => ({ '/api/v1/shards': { status: 200, body: { n_shards: 2, shard_id: shard, shards: [{ shard, height, state_root: root, block_hash: '0x00' }] } } });
  const both = await assembledStateRoot(reads([entry(0, 12, '0xr0'), entry(1, 10, '0xr1')]), router);
  assert.deepEqual(both, { n_shards: 2, shard_roots: ['0xr0', '0xr1'], shard_heights: [12, 10], height: 10, root_height: 10, global_root: sha3Hex0x('ch-global-root-v1|2|12|0xr0|10|0xr1') });
  const one = await assembledStateRoot(reads([entry(0, 12, '0xr0'), {}], [1]), router);
  assert.deepEqual(one, { n_shards: 2, shard_roots: ['0xr0', null], shard_heights: [12, null], height: 12, root_height: 12, global_root: null });
});

test('reads and writes go where §73 says: the owner of a named address, ?shard=, every shard; a dry run to the contract shard', async () => {
  const asked: string[] = [];
  const s = { router, reads: reads([{}, {}], [], asked) } as unknown as GatewayServices;
  const req = (query: string, params: Record<string, string> = {}, body?: unknown) => ({ method: 'GET', path: '', params, query: new URLSearchParams(query), headers: {}, body, ip: '127.0.0.1' }) as RpcRequest;
  await shardedRead(s, '/api/v1/blocks/:height/commit', req('shard=1', { height: '5' }), undefined);
  await shardedRead(s, '/api/v1/governance/params', req(''), undefined);
  await shardedRead(s, '/api/v1/accounts/:address', req('', { address: 'chain:307f4559431e680.human' }), undefined);
  await shardedRead(s, '/api/v1/example', req(''), 1);
  assert.deepEqual(asked, ['1 /api/v1/blocks/5/commit?shard=1', '0 /api/v1/governance/params', '-1 /api/v1/accounts/chain:307f4559431e680.human', '1 /api/v1/example']);
  await assert.rejects(shardedRead(s, '/api/v1/blocks', req('shard=2'), undefined), status(400));
  await assert.rejects(shardedRead(s, '/api/v1/transactions/:hash', req('', { hash: '0xab' }), undefined), status(404));
  const app = Array.from({ length: 16 }, (_, i) => `chain:${i.toString(16).repeat(10)}.app`).find((a) => shardOf(a, 2) === 1)!;
  assert.equal(writeShard(s, '/api/v1/contracts/:address/call', { params: { address: app }, body: { function: 'f' } }, undefined), 1, 'a dry run goes to the contract shard');
  assert.equal(writeShard(s, '/api/v1/cross-shard/commit', { params: {}, body: { lock: { dest_shard: 1 } } }, 0), 1, 'a commit by its lock, whatever the home shard');
  assert.equal(writeShard(s, '/api/v1/example/do', { params: {}, body: {} }, undefined), 0);
});
