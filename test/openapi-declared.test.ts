import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { OPENAPI_FILES } from '../cli/write-openapi.js';

/**
 * Issue 36, API reference: every route of the kernel, the plugins and the gateway is declared, and
 * a route the gateway forwards is described as the node describes it. Read from the committed
 * documents, which test/integration/openapi.test.ts holds equal to what a devnet node and
 * gateway serve.
 */

type Operation = Record<string, unknown>;
type Doc = { paths: Record<string, Record<string, Operation>> };

/** The routes each document may still list undeclared. */
const UNDECLARED_ALLOWED: Readonly<Record<keyof typeof OPENAPI_FILES, readonly string[]>> = {
  node: [],
  gateway: [],
};

/**
 * Routes the gateway serves its own way under the same path as a node route: described by the
 * gateway's declaration, not the node's.
 */
const GATEWAY_OWN = new Set(['get /health', 'get /metrics', 'get /api/v1/shards']);

const read = (which: keyof typeof OPENAPI_FILES): Doc => JSON.parse(readFileSync(OPENAPI_FILES[which], 'utf8')) as Doc;

function operations(doc: Doc): Map<string, Operation> {
  return new Map(Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => [`${method} ${path}`, op] as [string, Operation])));
}

for (const which of ['node', 'gateway'] as const) {
  test(`every route of ${OPENAPI_FILES[which]} is declared, but the allowed ones`, () => {
    const ops = operations(read(which));
    const undeclared = [...ops].filter(([, op]) => op['x-declared'] !== true).map(([key]) => key);
    const allowed = new Set(UNDECLARED_ALLOWED[which]);
    assert.deepEqual(undeclared.filter((k) => !allowed.has(k)), [], 'declare these routes (defineRoute, routes.serve; a plugin lists what the gateway forwards in its definition\'s routes)');
    const stale = [...allowed].filter((k) => ops.get(k)?.['x-declared'] !== false);
    assert.deepEqual(stale, [], 'declared or gone: remove these from UNDECLARED_ALLOWED');
  });
}

test('a route the gateway forwards is described as the node describes it: parameters, body and answer', () => {
  const node = operations(read('node'));
  const gateway = operations(read('gateway'));
  const shared = [...gateway.keys()].filter((k) => node.has(k) && !GATEWAY_OWN.has(k));
  assert.ok(shared.length > 50, `the gateway forwards the node's routes (${shared.length} shared)`);
  const field = (op: Operation, name: string): string => JSON.stringify(op[name] ?? null);
  const ok200 = (op: Operation): string => JSON.stringify((op.responses as Record<string, unknown> | undefined)?.['200'] ?? null);
  for (const key of shared) {
    const [n, g] = [node.get(key)!, gateway.get(key)!];
    if (n['x-declared'] !== true && g['x-declared'] !== true) continue;
    assert.equal(g['x-declared'], n['x-declared'], `${key}: declared on both or on neither`);
    assert.equal(field(withoutShardQuery(g, n), 'parameters'), field(n, 'parameters'), `${key}: the same parameters (the gateway's ?shard= aside)`);
    assert.equal(field(g, 'requestBody'), field(n, 'requestBody'), `${key}: the same body`);
    assert.equal(ok200(g), ok200(n), `${key}: the same answer`);
    assert.equal(g['x-proven-read'], n['x-proven-read'], `${key}: a proven read on both or on neither`);
  }
});

/** The gateway's `?shard=` (decisions.md §73) on a route whose node declaration has none: the one parameter the gateway adds. */
function withoutShardQuery(g: Operation, n: Operation): Operation {
  const isShard = (p: unknown): boolean => (p as { name?: unknown; in?: unknown }).name === 'shard' && (p as { in?: unknown }).in === 'query';
  const nodeHas = ((n.parameters ?? []) as unknown[]).some(isShard);
  if (nodeHas || g.parameters === undefined) return g;
  const { parameters, ...rest } = g;
  const kept = (parameters as unknown[]).filter((p) => !isShard(p));
  return kept.length === 0 ? rest : { ...rest, parameters: kept };
}

test('reads that name no address take ?shard= on the gateway (decisions.md §73); reads naming an address, and lookups asked of every shard, do not', () => {
  const gateway = operations(read('gateway'));
  const takesShard = (key: string): boolean => ((gateway.get(key)?.parameters ?? []) as Array<{ name: string; in: string }>).some((p) => p.name === 'shard' && p.in === 'query');
  for (const key of ['get /health', 'get /api/v1/blocks', 'get /api/v1/blocks/{height}', 'get /api/v1/validators', 'get /api/v1/governance/params', 'get /api/v1/governance/proposals', 'get /api/v1/cross-shard/queue', 'get /api/v1/cross-shard/clients']) {
    assert.ok(gateway.has(key), `${key} is served by the gateway`);
    assert.ok(takesShard(key), `${key} takes ?shard=`);
  }
  for (const key of ['get /api/v1/accounts/{address}', 'get /api/v1/transactions/{hash}', 'get /api/v1/cross-shard/transfers/{id}']) {
    assert.ok(gateway.has(key), `${key} is served by the gateway`);
    assert.ok(!takesShard(key), `${key} goes to the owner or asks every shard: no ?shard=`);
  }
});

test('each route both services serve carries the same tag in both documents; `gateway` only routes the node does not serve (decisions.md §87)', () => {
  const node = operations(read('node'));
  const gateway = operations(read('gateway'));
  const tag = (op: Operation): string => JSON.stringify(op.tags ?? null);
  const shared = [...gateway.keys()].filter((k) => node.has(k));
  assert.ok(shared.length > 50, `the gateway forwards the node's routes (${shared.length} shared)`);
  const differing = shared.filter((k) => tag(gateway.get(k)!) !== tag(node.get(k)!)).map((k) => `${k}: node ${tag(node.get(k)!)}, gateway ${tag(gateway.get(k)!)}`);
  assert.deepEqual(differing, []);
  const gatewayOnly = [...gateway].filter(([k]) => !node.has(k));
  assert.ok(gatewayOnly.length > 0);
  for (const [key, op] of gatewayOnly) assert.equal(tag(op), '["gateway"]', `${key} is the gateway's own`);
  for (const [key, op] of node) assert.notEqual(tag(op), '["gateway"]', `${key}: a node route is never tagged gateway`);
});

test('every route whose documented body carries signature lists 401 and says what is signed for and how (decisions.md §87)', () => {
  for (const which of ['node', 'gateway'] as const) {
    for (const [key, op] of operations(read(which))) {
      const body = (op.requestBody as { content?: Record<string, { schema?: { properties?: Record<string, unknown> } }> } | undefined)?.content?.['application/json']?.schema;
      if (body?.properties?.signature === undefined) continue;
      assert.ok((op.responses as Record<string, unknown>)['401'] !== undefined, `${which} ${key}: lists 401`);
      assert.equal(typeof op['x-signs-for'], 'string', `${which} ${key}: x-signs-for`);
      assert.equal(typeof op['x-signed-layout'], 'string', `${which} ${key}: x-signed-layout`);
    }
  }
});
