import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isChainError, type RpcRequest } from '../../kernel/sdk.js';
import { proposalListRoute, proposalRoute } from './routes.js';

const request = (path: string, params: Record<string, string>, query = ''): RpcRequest => ({ method: 'GET', path, params, query: new URLSearchParams(query), headers: {}, body: undefined, ip: '127.0.0.1' });

function refusal(parse: () => unknown): string {
  try {
    parse();
  } catch (e) {
    assert.ok(isChainError(e) && e.status === 400, String(e));
    return e.message;
  }
  assert.fail('accepted');
}

test('a proposal id that is not a positive integer without leading zeros is a 400 naming it', () => {
  for (const id of ['0', '007', 'x', '-1', '1.5', '1'.repeat(16)]) {
    assert.equal(refusal(() => proposalRoute.parse(request(`/api/v1/governance/${id}`, { id }))), `path parameter id: proposal id must be a positive integer, got ${JSON.stringify(id)}`);
  }
  assert.equal(proposalRoute.parse(request('/api/v1/governance/12', { id: '12' })).params.id, '12');
});

test('the proposals list: status one of three, limit capped at 100, default 20', () => {
  assert.match(refusal(() => proposalListRoute.parse(request('/api/v1/governance/proposals', {}, 'status=open'))), /^query parameter status: status must be one of active, passed, rejected$/);
  assert.deepEqual(proposalListRoute.parse(request('/api/v1/governance/proposals', {}, 'limit=500&status=passed')).query, { limit: 100, status: 'passed' });
  assert.equal(proposalListRoute.parse(request('/api/v1/governance/proposals', {}, '')).query.limit, 20);
});
