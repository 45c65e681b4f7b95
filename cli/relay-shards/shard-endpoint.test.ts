import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NodeRefusal } from '../client/node-client.js';
import { ShardEndpoint } from './shard-endpoint.js';
import { relayShardsConfig, DEFAULT_RELAY_POLL_MS } from './command.js';
import { ConfigError } from '../../kernel/config/env.js';

async function serve(status: number, body: unknown): Promise<{ url: string; server: Server; paths: string[] }> {
  const paths: string[] = [];
  const server = createServer((req, res) => {
    paths.push(`${req.method} ${req.url}`);
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, paths };
}

test('a node that cannot be reached passes the request to the next node of the shard', async () => {
  const dead = await serve(200, {});
  await new Promise<void>((r) => dead.server.close(() => r()));
  const live = await serve(200, { ok: true });
  try {
    const shard = new ShardEndpoint(1, [dead.url, live.url], 2000);
    assert.deepEqual(await shard.post('/api/v1/cross-shard/commit', { lock: {} }), { ok: true });
    assert.deepEqual(live.paths, ['POST /api/v1/cross-shard/commit']);
  } finally {
    live.server.close();
  }
});

test('a node that answers decides, a refusal included: the next node is not asked', async () => {
  const refusing = await serve(409, { error: 'receipt already written: committed' });
  const other = await serve(200, {});
  try {
    const shard = new ShardEndpoint(0, [refusing.url, other.url], 2000);
    await assert.rejects(shard.get('/api/v1/cross-shard/receipts/1/0xaa'), (e: unknown) => e instanceof NodeRefusal && e.status === 409);
    assert.deepEqual(other.paths, []);
  } finally {
    refusing.server.close();
    other.server.close();
  }
});

test('no node answering names the shard', async () => {
  const dead = await serve(200, {});
  await new Promise<void>((r) => dead.server.close(() => r()));
  await assert.rejects(new ShardEndpoint(3, [dead.url], 2000).get('/api/v1/shards'), /no node of shard 3 answered/);
});

test('the relayer reads the gateway shard map variables and RELAY_POLL_MS', () => {
  assert.deepEqual(relayShardsConfig({ CHAIN_SHARD_NODES: '0=http://a:1|http://a:2,1=http://b:1' }), { shards: [['http://a:1', 'http://a:2'], ['http://b:1']], pollMs: DEFAULT_RELAY_POLL_MS });
  assert.deepEqual(relayShardsConfig({ SHARD_NODE_URLS: 'http://a:1,http://b:1', RELAY_POLL_MS: '250' }), { shards: [['http://a:1'], ['http://b:1']], pollMs: 250 });
  assert.throws(() => relayShardsConfig({}), (e: unknown) => e instanceof ConfigError && /CHAIN_SHARD_NODES or SHARD_NODE_URLS/.test(e.message));
  assert.throws(() => relayShardsConfig({ SHARD_NODE_URLS: 'http://a:1', RELAY_POLL_MS: 'fast' }), /RELAY_POLL_MS fast/);
  assert.throws(() => relayShardsConfig({ CHAIN_SHARD_NODES: '1=http://b:1' }), /shard 0 has no node/);
});
