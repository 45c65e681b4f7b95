import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Type } from '@sinclair/typebox';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { defineOperation } from '../ops/operation.js';
import { defineRoute } from '../host/declared-route.js';
import { openApiDocument } from './openapi.js';
import { responseMismatch } from './response-check.js';
import { RouteTable } from '../host/route-table.js';
import { KERNEL_ROUTES } from './kernel-declarations.js';

type Json = Record<string, unknown>;

/** Every JSON Schema the document holds: parameters, bodies, answers and components. */
function schemasOf(doc: Json): Array<{ where: string; schema: Json }> {
  const out: Array<{ where: string; schema: Json }> = [];
  for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, Json>>)) {
    for (const [method, op] of Object.entries(methods)) {
      const where = `${method.toUpperCase()} ${path}`;
      for (const p of (op.parameters ?? []) as Json[]) out.push({ where: `${where} parameter ${String(p.name)}`, schema: p.schema as Json });
      const body = (op.requestBody as Json | undefined)?.content as Record<string, Json> | undefined;
      for (const c of Object.values(body ?? {})) out.push({ where: `${where} body`, schema: c.schema as Json });
      for (const [status, r] of Object.entries(op.responses as Record<string, Json>)) for (const c of Object.values((r.content ?? {}) as Record<string, Json>)) out.push({ where: `${where} ${status}`, schema: c.schema as Json });
    }
  }
  for (const [name, s] of Object.entries(((doc.components as Json).schemas ?? {}) as Record<string, Json>)) out.push({ where: `components ${name}`, schema: s });
  return out;
}

/** Ajv 2020 in strict mode, knowing the document's components and the `x-*` keywords the kernel writes. */
function strictAjv(doc: Json): Ajv2020 {
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: false, validateFormats: false });
  for (const k of ['x-cap', 'x-bigint']) ajv.addKeyword({ keyword: k, schemaType: ['number', 'boolean'] });
  ajv.addSchema({ $id: 'doc', $defs: (doc.components as Json).schemas });
  return ajv;
}

function compileAll(doc: Json): void {
  const ajv = strictAjv(doc);
  for (const { where, schema } of schemasOf(doc)) {
    const s = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', '"doc#/$defs/')) as Json;
    assert.doesNotThrow(() => ajv.compile(s), `${where}: ${JSON.stringify(schema).slice(0, 200)}`);
  }
}

for (const file of ['docs/openapi.json', 'docs/openapi-gateway.json']) {
  test(`${file} is a valid OpenAPI 3.1 document and every schema compiles with Ajv 2020 strict`, async () => {
    const doc = JSON.parse(readFileSync(file, 'utf8')) as Json;
    const result = await new Validator().validate(doc as never);
    assert.equal(result.valid, true, JSON.stringify(result.errors, null, 1)?.slice(0, 2000));
    assert.equal(doc.openapi, '3.1.0');
    compileAll(doc);
    const ids = Object.values(doc.paths as Record<string, Record<string, Json>>).flatMap((m) => Object.values(m).map((o) => o.operationId));
    assert.equal(new Set(ids).size, ids.length, 'operationIds are unique');
    assert.ok(!('/docs' in (doc.paths as Json)), 'the viewer page is not an API route');
  });
}

const memo = defineRoute({
  method: 'GET',
  path: '/api/v1/memo/:address',
  summary: 'a memo',
  params: Type.Object({ address: Type.String() }),
  query: Type.Object({ verbose: Type.Optional(Type.Boolean()) }),
  responses: { 200: Type.Object({ text: Type.String(), amount: Type.Integer() }), 404: 'no memo there' },
});
const note = defineOperation({
  name: 'memo_write',
  description: 'writes a memo',
  routes: [{ method: 'POST', path: '/api/v1/memo/:address' }],
  gas: 1234,
  signsFor: 'chain:system.memo',
  schema: Type.Object({ address: Type.String(), text: Type.String(), amount: Type.Integer() }),
  pathFields: ['address'],
  async check() {},
  async execute() {},
} as never);

function table(): RouteTable {
  const routes = new RouteTable();
  routes.withOwner('memo', () => {
    routes.serve(memo, () => ({ text: 'hi', amount: 1 }));
    routes.add('POST', '/api/v1/memo/:address', () => undefined, { operation: note as never });
    routes.get('/api/v1/memo-raw/:id', () => ({}), { proves: () => [] });
    routes.get('/memo-page', () => 'page', { listed: false });
  });
  return routes;
}

test('the document lists every listed route once: declared, operation and not-yet-declared routes as the spec says', async () => {
  const doc = openApiDocument({ service: 'node', title: 't', version: 'v1', description: 'd', routes: table().list() });
  const paths = doc.paths as Record<string, Record<string, Json>>;
  assert.deepEqual(Object.keys(paths).sort(), ['/api/v1/memo-raw/{id}', '/api/v1/memo/{address}']);
  const get = paths['/api/v1/memo/{address}']!.get!;
  assert.deepEqual(get.tags, ['memo']);
  assert.equal(get['x-declared'], true);
  assert.deepEqual(Object.keys(get.responses as Json), ['200', '400', '404', '429']);
  assert.deepEqual((get.parameters as Json[]).map((p) => [p.name, p.in, p.required]), [['address', 'path', true], ['verbose', 'query', false]]);
  assert.deepEqual(((get.responses as Record<string, Json>)['404']!.content as Record<string, Json>)['application/json']!.schema, { $ref: '#/components/schemas/Error' });
  const post = paths['/api/v1/memo/{address}']!.post!;
  assert.equal(post['x-operation'], 'memo_write');
  assert.equal(post['x-gas'], 1234);
  assert.equal(post['x-signs-for'], 'chain:system.memo');
  assert.match(post['x-signed-layout'] as string, /^ch-tx-v4\|<chain_id>\|memo_write\|<address>\|chain:system\.memo\|<amount>\|<nonce>\|<gas_price>\|<gas_limit>\|/);
  assert.ok(Object.keys(post.responses as Json).includes('401'), 'a signed body can be refused 401');
  const body = ((post.requestBody as Json).content as Record<string, Json>)['application/json']!.schema as Json;
  assert.deepEqual(body.required, ['address', 'text', 'amount', 'signature', 'public_key', 'nonce']);
  const raw = paths['/api/v1/memo-raw/{id}']!.get!;
  assert.equal(raw['x-declared'], false);
  assert.ok((raw.parameters as Json[]).some((p) => p.name === 'prove'), 'a proven read lists prove');
  assert.equal((await new Validator().validate(doc as never)).valid, true);
  compileAll(doc);
});

test('a declared answer is checked against its schema and its declared statuses', () => {
  assert.equal(responseMismatch(memo as never, 'node', 200, { text: 'hi', amount: 1n }, undefined), undefined, 'a bigint is an integer on the wire');
  assert.match(responseMismatch(memo as never, 'node', 200, { text: 'hi', amount: 'one' }, undefined)!, /\/amount/);
  assert.match(responseMismatch(memo as never, 'node', 409, undefined, undefined)!, /status 409/);
  assert.equal(responseMismatch(memo as never, 'node', 404, undefined, undefined), undefined);
  assert.equal(responseMismatch(memo as never, 'gateway', 502, undefined, undefined), undefined, 'the gateway may answer 502');
  assert.match(responseMismatch(KERNEL_ROUTES.status as never, 'node', 200, { network: 'x' }, undefined)!, /200 body/);
  // As the document lists it: a method that carries a body may be refused over the size limit, and a gateway relays a node's 413.
  const post = defineRoute({ method: 'POST', path: '/api/v1/memo', summary: 'posts a memo', body: Type.Object({ text: Type.String() }), responses: { 200: Type.Object({}) } });
  assert.equal(responseMismatch(post as never, 'gateway', 413, undefined, undefined), undefined);
  assert.match(responseMismatch(memo as never, 'node', 413, undefined, undefined)!, /status 413/, 'a GET carries no body');
});
