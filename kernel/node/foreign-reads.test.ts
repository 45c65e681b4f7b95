import { test } from 'node:test';
import assert from 'node:assert/strict';
import { guardForeignReads } from './foreign-reads.js';
import { ONE_SHARD, shardView } from '../crypto/shard.js';
import type { RouteEntry, RpcRequest } from '../host/route-table.js';
import { ChainError } from '../errors.js';

const handler = (): unknown => ({ ok: true });
const entry = (method: 'GET' | 'POST', path: string, owner = 'kernel'): RouteEntry => ({ method, path, handler, owner });
const req = (params: Record<string, string>): RpcRequest => ({ method: 'GET', path: '', params, query: new URLSearchParams(), headers: {}, body: undefined, ip: '127.0.0.1' });
// chain:307f4559431e680.human belongs to shard 1 of 2 (decisions.md §71's vector); chain:validator-1.node to shard 0.
const HUMAN1 = 'chain:307f4559431e680.human';

test('a GET naming an address of another shard is 404 with shard; its own shard\'s, a system address and a malformed value pass (decisions.md §73)', () => {
  const s0 = shardView(0, 2);
  const guarded = guardForeignReads(s0, entry('GET', '/api/v1/accounts/:address'), handler, () => false);
  assert.throws(() => guarded(req({ address: HUMAN1 })), (e: unknown) => e instanceof ChainError && e.status === 404 && e.toJSON().shard === 1);
  assert.deepEqual(guarded(req({ address: 'chain:validator-1.node' })), { ok: true });
  assert.deepEqual(guarded(req({ address: 'chain:system.deploy' })), { ok: true });
  assert.deepEqual(guarded(req({ address: 'not-an-address' })), { ok: true }, 'the route answers its own 400');
  for (const p of ['addr', 'owner']) assert.throws(() => guardForeignReads(s0, entry('GET', `/x/:${p}`), handler, () => false)(req({ [p]: HUMAN1 })), /belongs to shard 1/);
});

test('the guard leaves alone: a one-shard network, writes, routes naming no address, and a plugin whose records live on one shard', () => {
  const s0 = shardView(0, 2);
  assert.equal(guardForeignReads(ONE_SHARD, entry('GET', '/api/v1/accounts/:address'), handler, () => false), handler);
  assert.equal(guardForeignReads(s0, entry('POST', '/api/v1/nodes/:address/unjail'), handler, () => false), handler);
  assert.equal(guardForeignReads(s0, entry('GET', '/api/v1/blocks/:height'), handler, () => false), handler);
  assert.equal(guardForeignReads(s0, entry('GET', '/api/v1/assets/balances/:addr', 'assets'), handler, (owner) => owner === 'assets'), handler);
});
