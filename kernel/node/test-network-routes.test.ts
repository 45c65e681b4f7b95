import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isChainError } from '../errors.js';
import { RouteTable, type RpcRequest } from '../host/route-table.js';
import { TEST_NETWORK_ONLY, registerMainnetRefusals } from './test-network-routes.js';

function refusal(routes: RouteTable, path: string): { status: number; message: string } {
  const entry = routes.list().find((e) => e.method === 'POST' && e.path === path);
  assert.ok(entry, `POST ${path} is served`);
  try {
    entry.handler({} as RpcRequest);
  } catch (e) {
    assert.ok(isChainError(e), String(e));
    return { status: e.status, message: e.message };
  }
  assert.fail(`POST ${path} answered instead of refusing`);
}

test('on mainnet without the faucet plugin, its routes answer 403 with the faucet\'s own messages', () => {
  const routes = new RouteTable();
  registerMainnetRefusals(routes, 'mainnet');
  assert.deepEqual(refusal(routes, '/api/v1/faucet'), { status: 403, message: TEST_NETWORK_ONLY.faucet.message });
  assert.deepEqual(refusal(routes, '/api/v1/wallet/derive-address'), { status: 403, message: TEST_NETWORK_ONLY.derive.message });
  assert.match(TEST_NETWORK_ONLY.faucet.message, /test networks only/);
});

test('a plugin that serves the route keeps it, and test networks get no refusal routes', () => {
  const routes = new RouteTable();
  routes.withOwner('faucet', () => routes.post('/api/v1/faucet', () => 'plugin'));
  registerMainnetRefusals(routes, 'mainnet');
  assert.equal(routes.list().filter((e) => e.path === '/api/v1/faucet').length, 1);
  assert.equal(routes.list().find((e) => e.path === '/api/v1/faucet')?.owner, 'faucet');
  const testnet = new RouteTable();
  registerMainnetRefusals(testnet, 'testnet');
  assert.equal(testnet.list().length, 0);
});
