import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { certifiedBlock, genesisDoc, makeChain, refused, signOperation, signTransfer, wallet, type Fixture } from '../../test/helpers/chain-fixture.js';
import { memoPlugin, memos } from '../../test/fixtures/readme-example.js';
import { validateConfig } from '../config/load.js';
import { genesisHash } from '../chain/block-hash.js';
import { nobleProvider } from '../crypto/noble-provider.js';
import { canonicalJson } from '../codec/json.js';
import { sha3Hex0x } from '../crypto/hash.js';
import { LightClientError, trustFromGenesis, verifyCommit, verifyProvenRead, ONE_THIRD } from '../light-client/index.js';
import { registerKernelRoutes } from './kernel-routes.js';
import { NodeMetrics } from './metrics.js';
import { RouteTable, type RpcRequest } from '../host/route-table.js';
import type { KernelServices } from './services.js';
import { QueryService } from './queries.js';
import { chainHistory } from './history.js';
import { ProvenReads, accountStateKey, proveStateKeys } from './proven-reads.js';
import { proveParam } from '../host/declared-route.js';
import { nodeKey } from './node-key.js';

const alice = wallet(31);
const bob = wallet(32);

/** The kernel's routes as the node mounts them (proven reads wrapped), called as the server would. */
function served(f: Fixture, extra?: (routes: RouteTable, query: QueryService) => void): (path: string, params: Record<string, string>, query?: string) => Promise<Record<string, unknown>> {
  const query = new QueryService({ state: f.chain.queries.state, height: () => f.chain.head.height }, f.hooks, { env: 'testnet', params: f.params });
  const services: KernelServices = {
    chain: f.chain,
    index: (plugin: string) => f.chain.queries.pluginIndex(plugin),
    query,
    config: validateConfig({ network: 'unit', env: 'testnet', plugins: [] }),
    consensus: { round: () => 0, peers: () => [], behind: () => 0 },
    node: { genesis: genesisDoc([]), genesisHash: genesisHash(genesisDoc([])), nodeId: 'ab'.repeat(20), nodeAddress: 'chain:v0.node', moniker: null, p2pEndpoint: () => `${'ab'.repeat(20)}@127.0.0.1:26656` },
    metrics: new NodeMetrics({ verifications: 0, cacheHits: 0 }),
    registry: new Registry(),
    provider: nobleProvider,
    nodeKey: nodeKey('chain:v0.node', alice.keys, nobleProvider),
    now: () => 0,
    history: chainHistory(f.chain.queries, () => f.chain, 0),
    shards: f.chain.shards,
    proveKeys: (keys) => proveStateKeys(f.chain, keys),
  };
  const routes = new RouteTable();
  registerKernelRoutes(routes, services, f.params, f.operations, f.host);
  extra?.(routes, query);
  const proven = new ProvenReads(f.chain, query);
  return async (path, params, q = '') => {
    const route = routes.list().find((r) => r.method === 'GET' && r.path === path);
    assert.ok(route, `GET ${path} is served`);
    const req: RpcRequest = { method: 'GET', path, params, query: new URLSearchParams(q), headers: {}, body: undefined, ip: '127.0.0.1' };
    return (await proven.handlerOf(route)(req)) as Record<string, unknown>;
  };
}

const pinnedTrust = () => {
  const genesis = genesisDoc([{ address: alice.address, balance: 1_000_000n }]);
  return trustFromGenesis(JSON.parse(JSON.stringify(genesis)), sha3Hex0x(canonicalJson(genesis)));
};

test('prove is true or false; anything else is 400', () => {
  assert.equal(proveParam(new URLSearchParams('')), false);
  assert.equal(proveParam(new URLSearchParams('prove=false')), false);
  assert.equal(proveParam(new URLSearchParams('prove=true')), true);
  for (const bad of ['prove=1', 'prove=', 'prove=True', 'prove=true&prove=true']) assert.throws(() => proveParam(new URLSearchParams(bad)), /prove must be true or false/);
});

test('a proven account read answers at head − 1 and verifies against the pinned genesis; the commit route serves what it is checked with', async () => {
  const f = await makeChain({ accounts: [{ address: alice.address, balance: 1_000_000n }] });
  const get = served(f);
  await refused(get('/api/v1/accounts/:address', { address: alice.address }, 'prove=true'), 503, /no block is committed yet/);
  await f.chain.admit(signTransfer(alice, { to: bob.address, value: 1000, nonce: 1 }), 0);
  await certifiedBlock(f);
  await certifiedBlock(f);
  const answer = await get('/api/v1/accounts/:address', { address: alice.address }, 'prove=true');
  // Head is 2: the answer is block 1's state (the transfer applied), proven under block 2's header.
  const read = verifyProvenRead(JSON.parse(JSON.stringify(answer, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v))), pinnedTrust(), { kind: 'account', trustLevel: ONE_THIRD });
  assert.equal(read.height, 1);
  assert.equal(answer.nonce, 1n);
  assert.equal((answer.proof as { header: { height: number } }).header.height, 2);
  // A transfer in block 3 does not leak into the answer: it is state 2's, under header 3.
  await f.chain.admit(signTransfer(alice, { to: bob.address, value: 1000, nonce: 2 }), 0);
  await certifiedBlock(f);
  const later = await get('/api/v1/accounts/:address', { address: alice.address }, 'prove=true');
  assert.equal(later.nonce, 1n);
  assert.equal((later.proof as { height: number }).height, 2);
  assert.equal((await get('/api/v1/accounts/:address', { address: alice.address })).nonce, 2n, 'without prove: the head');
  assert.equal((await get('/api/v1/accounts/:address', { address: alice.address }, 'prove=false')).proof, undefined);
  await refused(get('/api/v1/accounts/:address', { address: alice.address }, 'prove=yes'), 400, /prove must be true or false/);

  const commit = await get('/api/v1/blocks/:height/commit', { height: '3' });
  const checked = verifyCommit(JSON.parse(JSON.stringify(commit, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v))), pinnedTrust(), { trustLevel: ONE_THIRD });
  assert.equal(checked.header.height, 3);
  await refused(get('/api/v1/blocks/:height/commit', { height: '4' }), 404, /above the tip/);
  await refused(get('/api/v1/blocks/:height/commit', { height: '0' }), 400, /heights start at 1/);
  // A lie about the balance is caught by the client.
  assert.throws(() => verifyProvenRead(JSON.parse(JSON.stringify({ ...later, balance: 1 }, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v))), pinnedTrust(), { kind: 'account' }), LightClientError);
});

test('a route declaring a key its handler does not read, or a field that is not the record\'s, is refused by the node', async () => {
  const f = await makeChain({ accounts: [{ address: alice.address, balance: 1_000_000n }] });
  const get = served(f, (routes, query) => {
    routes.get('/unread/:address', async () => ({ ok: true }), { proves: (req) => [accountStateKey(req.params.address!)] });
    routes.get('/wrong/:address', (req) => query.run('kernel', async (ctx) => ({ balance: (await ctx.accounts.get(req.params.address!)).balance + 1n })), { proves: (req) => [accountStateKey(req.params.address!)] });
  });
  await certifiedBlock(f);
  await assert.rejects(get('/unread/:address', { address: alice.address }, 'prove=true'), /declares acct\/.* as proven but its handler did not read them/);
  await assert.rejects(get('/wrong/:address', { address: alice.address }, 'prove=true'), /answer_field/);
});

test('a declared route that proves a declared store\'s record: ?prove=true answers it with the record\'s proof, which a client checks', async () => {
  const services: { query?: QueryService } = {};
  const f = await makeChain({ plugins: [memoPlugin], accounts: [{ address: alice.address, balance: 1_000_000n }], services });
  const get = served(f, (routes, query) => {
    services.query = query;
    f.hooks.routes.call(routes);
  });
  await f.chain.admitOperation('set_memo', signOperation(alice, { actor: alice.address, target: 'chain:system.memo', nonce: 1_990_000_000_000, body: { address: alice.address, text: 'proven' } }), {}, 0);
  await certifiedBlock(f);
  await certifiedBlock(f);
  const answer = await get('/api/v1/memo/:address', { address: alice.address }, 'prove=true');
  assert.deepEqual({ ...answer, proof: undefined }, { address: alice.address, text: 'proven', height: 1, proof: undefined });
  const entries = (answer.proof as { entries: Array<{ key: string }> }).entries;
  assert.deepEqual(entries.map((e) => e.key), [memos.stateKey(alice.address)]);
  const read = verifyProvenRead(JSON.parse(JSON.stringify(answer, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v))), pinnedTrust(), { kind: 'record', trustLevel: ONE_THIRD });
  assert.equal(read.height, 1);
  await refused(get('/api/v1/memo/:address', { address: bob.address }), 404, /no memo/);
});

test('after a restart, proven reads wait for the first block this node commits', async () => {
  const f = await makeChain({ accounts: [{ address: alice.address, balance: 1_000_000n }] });
  await certifiedBlock(f);
  const again = await makeChain({ accounts: [{ address: alice.address, balance: 1_000_000n }], kv: f.kv });
  const get = served(again);
  await refused(get('/api/v1/accounts/:address', { address: alice.address }, 'prove=true'), 503, /once it has committed a block since it started/);
  await certifiedBlock(again);
  const answer = await get('/api/v1/accounts/:address', { address: alice.address }, 'prove=true');
  assert.equal((answer.proof as { height: number }).height, 1);
});
