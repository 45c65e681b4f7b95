import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeChain } from '../../test/helpers/chain-fixture.js';
import { memoPlugin } from '../../test/fixtures/sdk-test-plugins.js';
import { faucetPlugin } from '../../plugins/faucet/index.js';
import { isChainError } from '../errors.js';
import { registerOperationRoutes } from './operation-routes.js';
import { registerPluginRoutes } from './plugin-routes.js';
import { RouteTable, type RpcRequest } from '../host/route-table.js';
import type { KernelServices } from './services.js';

const get = (params: Record<string, string>, query = ''): RpcRequest => ({ method: 'GET', path: '', params, query: new URLSearchParams(query), headers: {}, body: undefined, ip: '127.0.0.1' });

/** A node's route table for these plugins: their routes taps, their operations, the plugin routes. */
async function table() {
  const f = await makeChain({ plugins: [faucetPlugin, memoPlugin] });
  const routes = new RouteTable();
  f.hooks.routes.call(routes);
  registerOperationRoutes(routes, {} as KernelServices, f.operations);
  registerPluginRoutes(routes, f.host, f.operations, () => f.chain.head.height + 1);
  const route = (path: string) => routes.list().find((r) => r.method === 'GET' && r.path === path)!.handler;
  return { plugin: (name: string) => route('/api/v1/plugins/:name')(get({ name })) as Record<string, unknown>, list: (q: string) => route('/api/v1/plugins')(get({}, q)) as Record<string, unknown> };
}

test('GET /api/v1/plugins/:name lists what the plugin declares: stores with key layout and value schema, events, operations, routes, parameters', async () => {
  const t = await table();
  const memo = t.plugin('memo');
  assert.equal(memo.name, 'memo');
  assert.equal(memo.status, 'active');
  assert.equal(memo.declared, true);
  const stores = memo.stores as Array<Record<string, unknown>>;
  assert.deepEqual(stores.map((s) => [s.name, s.key, s.encoding]), [['memos', 'memo/<address>', 'record'], ['helpers', 'helper/<account>/<key_id>', 'record'], ['requests', 'request/<height>', 'record']]);
  assert.deepEqual(stores[1]!.value, {
    type: 'object',
    required: ['key', 'cap', 'spent'],
    properties: { key: { type: 'string' }, cap: { type: 'integer', 'x-bigint': true }, spent: { type: 'integer', 'x-bigint': true } },
  });
  assert.equal(stores[1]!.value_type, '{key: string, cap: bigint, spent: bigint}');
  assert.deepEqual(stores[0]!.key_parts, [{ name: 'address', kind: 'address', description: 'a chain address' }]);
  assert.deepEqual(memo.events, [{ type: 'memo_set', description: 'an account stored a memo', socket: true, fields: ['address', 'text', 'tx_hash'], data: { type: 'object', required: ['address', 'text', 'tx_hash'], properties: { address: { type: 'string' }, text: { type: 'string' }, tx_hash: { type: 'string' } } } }]);
  const ops = memo.operations as Array<Record<string, unknown>>;
  const grant = ops.find((o) => o.name === 'grant_helper')!;
  assert.deepEqual([grant.signs_for, grant.gas, grant.main_key_only, grant.actor, grant.value], ['chain:system.memo', 40, 'grant a helper key', 'address', null]);
  assert.equal(ops.find((o) => o.name === 'set_memo')!.main_key_only, null);
  const routes = memo.routes as Array<Record<string, unknown>>;
  const read = routes.find((r) => r.path === '/api/v1/memo/:address')!;
  assert.deepEqual([read.declared, read.summary, read.operation], [true, "an account's memo, at the last committed height", null]);
  assert.deepEqual((read.responses as Record<string, unknown>)['404'], { description: 'the account stored no memo' });
  assert.deepEqual(routes.find((r) => r.path === '/api/v1/memo/set')!.operation, 'set_memo');
  assert.deepEqual(memo.params, [{ key: 'memo_max_len', default: 64n, min: 1n, max: 4096n, description: 'longest memo' }]);

  const faucet = t.plugin('faucet');
  assert.deepEqual(faucet.stores, [], 'the faucet keeps no state of its own');
  assert.deepEqual((faucet.events as Array<Record<string, unknown>>).map((e) => [e.type, e.fields, e.socket]), [['faucet', ['address', 'amount', 'tx_hash'], true]]);
  assert.deepEqual((faucet.routes as Array<Record<string, unknown>>).map((r) => [r.method, r.path, r.declared]), [['POST', '/api/v1/faucet', true], ['POST', '/api/v1/wallet/derive-address', true]]);
  assert.deepEqual(faucet.system_transactions, ['faucet']);
});

test('GET /api/v1/plugins keeps its shape and paging; an unknown plugin is 404', async () => {
  const t = await table();
  const all = t.list('');
  assert.deepEqual(Object.keys(all), ['plugins', 'total', 'limit', 'offset', 'has_more']);
  assert.deepEqual([all.total, all.limit, all.offset, all.has_more], [2, 100, 0, false]);
  assert.deepEqual((t.list('limit=1&offset=1').plugins as Array<{ name: string }>).map((p) => p.name), ['memo']);
  assert.equal(t.list('limit=1000').limit, 100, 'capped, not refused');
  try {
    t.plugin('nope');
    assert.fail('answered');
  } catch (e) {
    assert.ok(isChainError(e) && e.status === 404 && /no plugin named "nope"/.test(e.message));
  }
});
