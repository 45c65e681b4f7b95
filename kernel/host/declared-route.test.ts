import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Type, type TObject } from '@sinclair/typebox';
import { defineRoute } from './declared-route.js';
import { pageAnswer, pageQuery, toPage } from '../node/page-query.js';
import { RouteTable, type RpcRequest } from './route-table.js';
import { forbidden, isChainError } from '../errors.js';

const req = (o: { params?: Record<string, string>; query?: string; body?: unknown } = {}): RpcRequest => ({
  method: 'GET',
  path: '/x',
  params: o.params ?? {},
  query: new URLSearchParams(o.query ?? ''),
  headers: {},
  body: o.body,
  ip: '127.0.0.1',
});

function refusal(fn: () => unknown): { status: number; message: string } {
  try {
    fn();
  } catch (e) {
    assert.ok(isChainError(e), String(e));
    return { status: e.status, message: e.message };
  }
  assert.fail('accepted');
}

const proposals = defineRoute({
  method: 'GET',
  path: '/api/v1/things/:owner/:id',
  summary: 'things',
  params: Type.Object({ owner: Type.String({ pattern: '^chain:' }), id: Type.Integer({ minimum: 1 }) }),
  query: pageQuery({ default: 20, cap: 100 }, { status: Type.Optional(Type.Union([Type.Literal('open'), Type.Literal('closed')])), verbose: Type.Optional(Type.Boolean()), tag: Type.Optional(Type.Array(Type.String())) }),
  responses: { 200: pageAnswer('things', Type.Object({ id: Type.Integer() })), 404: 'no such owner' },
});

test('a declared route hands its handler typed, converted values: integers from digits, booleans, arrays from repeated parameters, defaults filled, limit capped', () => {
  const r = proposals.parse(req({ params: { owner: 'chain:a.human', id: '7' }, query: 'status=open&verbose=true&tag=a&tag=b&limit=500&offset=' }));
  assert.deepEqual(r.params, { owner: 'chain:a.human', id: 7 });
  assert.deepEqual(r.query, { status: 'open', verbose: true, tag: ['a', 'b'], limit: 100 });
  assert.deepEqual(toPage(r.query), { limit: 100, offset: 0 });
  assert.deepEqual(toPage(proposals.parse(req({ params: { owner: 'chain:a.human', id: '1' }, query: 'page=3' })).query), { limit: 20, offset: 40 });
  assert.deepEqual(toPage(proposals.parse(req({ params: { owner: 'chain:a.human', id: '1' }, query: 'page=3&offset=5&limit=7' })).query), { limit: 7, offset: 5 });
});

test('an integer parameter takes every safe integer (decisions.md §55: amounts up to 2^53 − 1), and refuses one above', () => {
  const quote = defineRoute({ method: 'GET', path: '/api/v1/quote', summary: 'a quote', query: Type.Object({ amount_in: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }) }), responses: { 200: Type.Object({}) } });
  for (const n of ['1000000000000000', '4503599627370496', String(Number.MAX_SAFE_INTEGER)]) assert.equal(quote.parse(req({ query: `amount_in=${n}` })).query.amount_in, Number(n), n);
  for (const n of ['9007199254740992', '10000000000000000']) assert.match(refusal(() => quote.parse(req({ query: `amount_in=${n}` }))).message, /^query parameter amount_in: Expected integer$/, n);
});

test('a request its schemas refuse is a 400 naming the field and where it is', () => {
  const params = { owner: 'chain:a.human', id: '1' };
  const cases: Array<[RpcRequest, RegExp]> = [
    [req({ params: { owner: 'nobody', id: '1' } }), /^path parameter owner: Expected string to match '\^chain:'$/],
    [req({ params: { owner: 'chain:a.human', id: 'x1' } }), /^path parameter id: Expected integer$/],
    [req({ params: { owner: 'chain:a.human', id: '0' } }), /^path parameter id: Expected integer to be greater or equal to 1$/],
    [req({ params, query: 'limit=0' }), /^query parameter limit: Expected integer to be greater or equal to 1$/],
    [req({ params, query: 'limit=1e3' }), /^query parameter limit: Expected integer$/],
    [req({ params, query: 'limit=-3' }), /^query parameter limit: /],
    [req({ params, query: 'offset=1000000000' }), /^query parameter offset: /],
    [req({ params, query: 'status=maybe' }), /^query parameter status: /],
    [req({ params, query: 'verbose=yes' }), /^query parameter verbose: Expected boolean$/],
    [req({ params, query: 'limit=1&limit=2' }), /^query parameter limit: given 2 times, once allowed$/],
  ];
  for (const [r, pattern] of cases) {
    const { status, message } = refusal(() => proposals.parse(r));
    assert.equal(status, 400, message);
    assert.match(message, pattern);
  }
});

test('a body is checked as sent (no conversion), and the refusal hints at the fields to send', () => {
  const post = defineRoute({
    method: 'POST',
    path: '/api/v1/notes',
    summary: 'notes',
    body: Type.Object({ address: Type.String(), amount: Type.Optional(Type.Integer({ minimum: 1 })) }, { additionalProperties: false }),
    responses: { 200: Type.Object({ ok: Type.Boolean() }) },
  });
  assert.deepEqual(post.parse(req({ body: { address: 'a', amount: 2 } })).body, { address: 'a', amount: 2 });
  for (const [body, pattern] of [
    [{ address: 'a', amount: '2' }, /^body field amount: Expected integer$/],
    [{}, /^body field address: Expected required property$/],
    [{ address: 'a', colour: 'red' }, /^body field colour: Unexpected property$/],
    [[1], /^body: Expected object$/],
  ] as const) {
    assert.match(refusal(() => post.parse(req({ body }))).message, pattern);
  }
  try {
    post.parse(req({ body: {} }));
  } catch (e) {
    assert.ok(isChainError(e));
    assert.equal(e.hint, 'send {"address", "amount"?}');
  }
});

test('a body declared as an open record passes any object and refuses anything else', () => {
  const open = defineRoute({ method: 'POST', path: '/x', summary: 's', body: Type.Record(Type.String(), Type.Unknown()), responses: { 200: Type.Null() } });
  assert.deepEqual(open.parse(req({ body: { any: 1, thing: [2] } })).body, { any: 1, thing: [2] });
  assert.match(refusal(() => open.parse(req({ body: 'text' }))).message, /^body: Expected object$/);
});

test('ignored body fields: accepted when well typed, dropped before the check, a wrong type still a 400 naming it', () => {
  const unsigned = defineRoute({
    method: 'POST',
    path: '/x',
    summary: 's',
    body: Type.Object({ address: Type.String() }, { additionalProperties: false }),
    ignoredBodyFields: Type.Object({ signature: Type.Optional(Type.String()), nonce: Type.Optional(Type.Integer({ minimum: 0 })) }),
    responses: { 200: Type.Null() },
  });
  assert.deepEqual(unsigned.parse(req({ body: { address: 'a', signature: 'ab', nonce: 3 } })).body, { address: 'a' });
  assert.deepEqual(unsigned.parse(req({ body: { address: 'a' } })).body, { address: 'a' });
  assert.match(refusal(() => unsigned.parse(req({ body: { address: 'a', nonce: -1 } }))).message, /^body field nonce: /);
  assert.match(refusal(() => unsigned.parse(req({ body: { address: 'a', signature: 7 } }))).message, /^body field signature: /);
  assert.match(refusal(() => unsigned.parse(req({ body: { address: 'a', memo: 'x' } }))).message, /^body field memo: /);
  assert.match(refusal(() => unsigned.parse(req({ body: { signature: 'ab' } }))).message, /^body field address: /);
  // Only the body as declared is documented (the API reference reads `body`).
  assert.deepEqual(Object.keys((unsigned.body as TObject).properties), ['address']);
  const body = Type.Object({ address: Type.String() });
  assert.throws(() => defineRoute({ method: 'POST', path: '/x', summary: 's', body, ignoredBodyFields: Type.Object({ nonce: Type.Integer() }), responses: { 200: Type.Null() } }), /must all be optional \(nonce\)/);
  assert.throws(() => defineRoute({ method: 'POST', path: '/x', summary: 's', body, ignoredBodyFields: Type.Object({ address: Type.Optional(Type.String()) }), responses: { 200: Type.Null() } }), /address is both a body field and an ignored one/);
  assert.throws(() => defineRoute({ method: 'POST', path: '/x', summary: 's', ignoredBodyFields: Type.Object({ nonce: Type.Optional(Type.Integer()) }), responses: { 200: Type.Null() } }), /needs an object body/);
});

test('a declaration that does not match its path, or a GET with a body, is refused where it is written', () => {
  assert.throws(() => defineRoute({ method: 'GET', path: '/a/:id', summary: 's', responses: { 200: Type.Null() } }), /declare params for :id/);
  assert.throws(() => defineRoute({ method: 'GET', path: '/a/:id', summary: 's', params: Type.Object({ key: Type.String() }), responses: { 200: Type.Null() } }), /params has no property "id"/);
  assert.throws(() => defineRoute({ method: 'GET', path: '/a', summary: 's', params: Type.Object({ key: Type.String() }), responses: { 200: Type.Null() } }), /params declares "key", which the path does not have/);
  assert.throws(() => defineRoute({ method: 'GET', path: '/a', summary: 's', body: Type.Object({}), responses: { 200: Type.Null() } }), /a GET takes no body/);
  assert.throws(() => defineRoute({ method: 'POST', path: '/a', summary: 's', responses: { 200: Type.Null() }, proves: () => [] }), /only a GET can be a proven read/);
});

test('served from a route table: validation before the handler, `refuse` before validation, `proves` over the parsed request, and the declaration kept on the entry', async () => {
  const one = defineRoute({
    method: 'GET',
    path: '/api/v1/note/:address',
    summary: 'one note',
    params: Type.Object({ address: Type.String() }),
    responses: { 200: Type.Object({ text: Type.String() }), 404: 'no note' },
    proves: (r) => [`notes/note/${r.params.address}`],
  });
  const routes = new RouteTable();
  let closed = false;
  routes.withOwner('notes', () => routes.serve(one, (r) => ({ text: `for ${r.params.address}` }), { refuse: () => (closed ? forbidden('closed') : undefined) }));
  const entry = routes.list()[0]!;
  assert.equal(entry.owner, 'notes');
  assert.equal(entry.declared?.summary, 'one note');
  assert.deepEqual(entry.proven?.keys(req({ params: { address: 'chain:a.human' } }), {}), ['notes/note/chain:a.human']);
  assert.deepEqual(await entry.handler(req({ params: { address: 'chain:a.human' } })), { text: 'for chain:a.human' });
  // A proven read takes `prove`; its schema is added to the route's query.
  assert.deepEqual(Object.keys((one as { query?: TObject }).query!.properties), ['prove']);
  assert.equal(refusal(() => entry.handler(req({ params: { address: 'a' }, query: 'prove=maybe' }))).status, 400);
  closed = true;
  assert.deepEqual(refusal(() => entry.handler(req({ params: { address: 'a' }, query: 'prove=maybe' }))), { status: 403, message: 'closed' });
});

test('pageQuery refuses bounds that make no sense', () => {
  assert.throws(() => pageQuery({ default: 0, cap: 10 }), /1 ≤ default ≤ cap/);
  assert.throws(() => pageQuery({ default: 20, cap: 10 }), /1 ≤ default ≤ cap/);
  assert.throws(() => toPage({}), /no limit/);
});

test("a proven read's request is parsed once however often it is asked, a copy of it afresh, and a frozen one every time", () => {
  const proven = defineRoute({ ...proposals, proves: (r) => [`things/${r.params.owner}/${r.params.id}`] });
  const raw = req({ params: { owner: 'chain:a.human', id: '7' } });
  const first = proven.parse(raw);
  assert.equal(proven.parse(raw), first);
  // The parse is no field of the request: a spread copy with other params is judged on its own.
  assert.deepEqual(Object.keys(raw).sort(), ['body', 'headers', 'ip', 'method', 'params', 'path', 'query']);
  assert.equal(proven.parse({ ...raw, params: { owner: 'chain:a.human', id: '8' } }).params.id, 8);
  const frozen = Object.freeze(req({ params: { owner: 'chain:b.human', id: '2' } }));
  assert.deepEqual(proven.parse(frozen).params, proven.parse(frozen).params);
  // Any other route's request is only parsed by its handler: nothing is kept on it.
  const plain = req({ params: { owner: 'chain:a.human', id: '7' } });
  assert.deepEqual(proposals.parse(plain), proposals.parse(plain));
  assert.deepEqual(Object.getOwnPropertySymbols(plain), []);
});

test('a query schema without defaults is checked as given; with one, the default is filled', () => {
  const plain = defineRoute({ method: 'GET', path: '/p', summary: 'p', query: Type.Object({ n: Type.Optional(Type.Integer()) }), responses: { 200: Type.Null() } });
  assert.deepEqual(plain.parse(req({ query: 'n=3' })).query, { n: 3 });
  assert.deepEqual(plain.parse(req()).query, {});
  const withDefault = defineRoute({ method: 'GET', path: '/d', summary: 'd', query: Type.Object({ n: Type.Integer({ default: 5 }) }), responses: { 200: Type.Null() } });
  assert.deepEqual(withDefault.parse(req()).query, { n: 5 });
});
