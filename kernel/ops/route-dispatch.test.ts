import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from '@sinclair/typebox';
import { operationRouteGroups, selectOperation } from './route-dispatch.js';
import type { OperationRoute } from './operation.js';

/** Three operations on one route, as part 1's `POST /api/v1/nodes/register` is shared. */
const PATH = '/api/v1/nodes/register';
const kindOf = (kind: string) => Type.Object({ node_address: Type.String({ pattern: `^chain:[a-z0-9_-]+\\.${kind}$` }) });
type Op = { name: string; routes: OperationRoute[] };
const node: Op = { name: 'register_node', routes: [{ method: 'POST', path: PATH }] };
const vault: Op = { name: 'register_vault', routes: [{ method: 'POST', path: PATH, selectedBy: kindOf('vault') }] };
const app: Op = { name: 'register_app', routes: [{ method: 'POST', path: PATH, selectedBy: kindOf('app') }, { method: 'POST', path: '/api/v1/apps/name' }] };
const spec = (o: Op) => o;

test('a shared route picks the operation whose selector takes the body, else the one declaring none', () => {
  const groups = operationRouteGroups([vault, node, app], spec);
  const shared = groups.find((g) => g.path === PATH)!;
  assert.deepEqual(shared.members.map((m) => m.op.name), ['register_app', 'register_node', 'register_vault'], 'members in name order whatever the registration order');
  assert.equal(selectOperation(shared, { node_address: 'chain:alice.vault' }), vault);
  assert.equal(selectOperation(shared, { node_address: 'chain:alice.app' }), app);
  assert.equal(selectOperation(shared, { node_address: 'chain:alice.node' }), node);
  assert.equal(selectOperation(shared, 'not an object'), node, 'a malformed body goes to the default, whose schema refuses it');
  const own = groups.find((g) => g.path === '/api/v1/apps/name')!;
  assert.equal(selectOperation(own, {}), app, 'a route of one operation takes every body');
});

test('without a default, a body no selector takes is no operation', () => {
  const [g] = operationRouteGroups([vault, app], spec).filter((x) => x.path === PATH);
  assert.equal(selectOperation(g!, { node_address: 'chain:alice.node' }), undefined);
});

test('a shared route with two defaults, or members disagreeing on nodeOnly, is refused at build', () => {
  const twin: Op = { name: 'register_twin', routes: [{ method: 'POST', path: PATH }] };
  assert.throws(() => operationRouteGroups([node, twin], spec), /register_node and register_twin each take every body/);
  const nodeOnly: Op = { name: 'register_hidden', routes: [{ method: 'POST', path: PATH, nodeOnly: true, selectedBy: kindOf('hidden') }] };
  assert.throws(() => operationRouteGroups([node, nodeOnly], spec), /disagree on nodeOnly/);
});
