import fc from 'fast-check';
import { RawJson, hostileValue, jsonText, paramText, valueOf, type FuzzJson, type JsonSchema } from './schema-arbitrary.js';

/**
 * The requests the fuzzer sends to one route, drawn from the route's entry in the API reference a
 * process serves (its path, query and body schemas: the ones its handlers validate with) and
 * mutated the way a hostile client would: a field of the wrong type, a number no integer type
 * holds, a string of 100 KB, unicode a decoder trips on, nesting 20 000 deep, a key given twice, a
 * required field missing, a body that is not JSON, another content type, bad percent-encoding,
 * a parameter given twice, another method.
 */

export interface ApiParameter {
  readonly name: string;
  readonly required: boolean;
  readonly schema: JsonSchema;
}

export interface ApiRoute {
  readonly method: string;
  /** OpenAPI form: `/api/v1/blocks/{height}`. */
  readonly path: string;
  readonly pathParams: readonly ApiParameter[];
  readonly query: readonly ApiParameter[];
  readonly body: JsonSchema | undefined;
  /** The statuses the document says the route answers. */
  readonly statuses: ReadonlySet<number>;
}

export type MutationKind = 'valid' | 'hostile-field' | 'missing-field' | 'extra-field' | 'duplicate-key' | 'raw-body' | 'content-type' | 'hostile-query' | 'hostile-path' | 'other-method';

export interface FuzzRequest {
  readonly kind: MutationKind;
  readonly method: string;
  readonly target: string;
  readonly body?: string;
  readonly contentType?: string;
}

type OpenApiDocument = { readonly paths: Readonly<Record<string, Readonly<Record<string, Record<string, unknown>>>>> };

/** Every operation of a served API reference (`GET /api/v1/openapi.json`). */
export function routesOf(doc: OpenApiDocument): ApiRoute[] {
  const out: ApiRoute[] = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const params = (op.parameters ?? []) as Array<{ name: string; in: string; required?: boolean; schema?: JsonSchema }>;
      const of = (where: string): ApiParameter[] => params.filter((p) => p.in === where).map((p) => ({ name: p.name, required: p.required === true, schema: p.schema ?? { type: 'string' } }));
      const content = (op.requestBody as { content?: Record<string, { schema?: JsonSchema }> } | undefined)?.content;
      out.push({
        method: method.toUpperCase(),
        path,
        pathParams: of('path'),
        query: of('query'),
        body: content?.['application/json']?.schema,
        statuses: new Set(Object.keys((op.responses ?? {}) as Record<string, unknown>).map(Number)),
      });
    }
  }
  return out;
}

/** `METHOD /path` as the reports name a route. */
export function routeName(r: Pick<ApiRoute, 'method' | 'path'>): string {
  return `${r.method} ${r.path}`;
}

/** Methods a route may be sent with instead of its own (HEAD is left out: its answer has no body to judge). */
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** Longest parameter text put in a URL, so a request head stays one read on loopback (raw-http.ts: uWS drops longer heads). */
const MAX_PARAM_CHARS = 3_000;

/** Percent-encodes the UTF-8 of `s` (a lone surrogate becomes U+FFFD, as a client's encoder would send it). */
export function percentEncoded(s: string): string {
  let out = '';
  for (const b of Buffer.from(s.slice(0, MAX_PARAM_CHARS), 'utf8')) {
    const c = String.fromCharCode(b);
    out += /[A-Za-z0-9\-._~]/.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Text of a URL component as a hostile client writes it: encoded, or raw bad escapes. */
const hostileComponent: fc.Arbitrary<string> = fc.oneof(
  hostileValue.map((v) => percentEncoded(paramText(v))),
  fc.constantFrom('%', '%zz', '%E0%A4%A', '%C0%AF', '%FF%FE', '%00', '..', '%2e%2e', '%2F', 'a%2Fb', '%25', '+', ''),
);

const RAW_BODIES: readonly string[] = ['', 'null', '[]', '"x"', '0', 'true', '{', '{"a":}', '{"a":1,}', "{'a':1}", '\u0000', '{"a":1}{"b":2}', '\ufeff{}', '{"__proto__":{"polluted":1}}', '{"constructor":{"prototype":{"polluted":1}}}'];
const CONTENT_TYPES: readonly string[] = ['text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=utf-16', 'multipart/form-data; boundary=x', 'application/json;;', '*/*'];

/** The requests to send a route: mostly schema-valid, the rest each of one hostile kind. */
export function requestOf(route: ApiRoute): fc.Arbitrary<FuzzRequest> {
  const pathValues = fc.tuple(...route.pathParams.map((p) => valueOf(p.schema).map((v) => percentEncoded(paramText(v)))));
  const queryValues = fc.tuple(...route.query.map((p) => fc.option(valueOf(p.schema), { nil: undefined, freq: 2 })));
  const body = route.body === undefined ? fc.constant<FuzzJson | undefined>(undefined) : valueOf(route.body).map((v): FuzzJson | undefined => v);
  const base = fc.record({ path: pathValues, query: queryValues, body });
  const kinds: Array<fc.WeightedArbitrary<FuzzRequest>> = [
    { weight: 3, arbitrary: base.map((b) => assemble(route, 'valid', b.path, queryText(route, b.query), b.body)) },
    { weight: 1, arbitrary: fc.tuple(base, hostileComponent).map(([b, extra]) => assemble(route, 'hostile-query', b.path, hostileQuery(route, b.query, extra), b.body)) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...METHODS.filter((m) => m !== route.method)), base).map(([method, b]) => ({ ...assemble(route, 'other-method', b.path, queryText(route, b.query), b.body), method })) },
  ];
  if (route.pathParams.length > 0) {
    kinds.push({ weight: 2, arbitrary: fc.tuple(base, fc.nat(route.pathParams.length - 1), hostileComponent).map(([b, i, bad]) => assemble(route, 'hostile-path', b.path.map((v, j) => (j === i ? bad : v)), queryText(route, b.query), b.body)) });
  }
  if (route.body !== undefined) {
    const objectBody = base.filter((b) => isObject(b.body));
    kinds.push(
      { weight: 3, arbitrary: fc.tuple(objectBody, fc.nat(), hostileValue).map(([b, i, v]) => assemble(route, 'hostile-field', b.path, queryText(route, b.query), replaceField(b.body as Obj, i, v))) },
      { weight: 1, arbitrary: fc.tuple(objectBody, fc.nat()).map(([b, i]) => assemble(route, 'missing-field', b.path, queryText(route, b.query), dropField(route.body!, b.body as Obj, i))) },
      { weight: 1, arbitrary: fc.tuple(objectBody, fc.string({ maxLength: 12 }), hostileValue).map(([b, k, v]) => assemble(route, 'extra-field', b.path, queryText(route, b.query), { ...(b.body as Obj), [`x_${k}`]: v })) },
      { weight: 1, arbitrary: fc.tuple(objectBody, fc.nat(), hostileValue).map(([b, i, v]) => ({ ...assemble(route, 'duplicate-key', b.path, queryText(route, b.query), undefined), body: withDuplicateKey(b.body as Obj, i, v), contentType: 'application/json' })) },
      { weight: 1, arbitrary: fc.tuple(base, fc.oneof(fc.constantFrom(...RAW_BODIES), hostileValue.map(jsonText), fc.string({ unit: 'binary', maxLength: 200 }))).map(([b, text]) => ({ ...assemble(route, 'raw-body', b.path, queryText(route, b.query), undefined), body: text, contentType: 'application/json' })) },
      { weight: 1, arbitrary: fc.tuple(base, fc.constantFrom(...CONTENT_TYPES)).map(([b, ct]) => ({ ...assemble(route, 'content-type', b.path, queryText(route, b.query), b.body), contentType: ct })) },
    );
  }
  return fc.oneof(...kinds);
}

type Obj = { [k: string]: FuzzJson };

function isObject(v: FuzzJson | undefined): v is Obj {
  return v !== null && v !== undefined && typeof v === 'object' && !Array.isArray(v) && !(v instanceof RawJson);
}

function assemble(route: ApiRoute, kind: MutationKind, path: readonly string[], query: string, body: FuzzJson | undefined): FuzzRequest {
  let i = 0;
  const filled = route.path.replace(/\{[^}]+\}/g, () => path[i++] ?? '');
  const target = query === '' ? filled : `${filled}?${query}`;
  return body === undefined ? { kind, method: route.method, target } : { kind, method: route.method, target, body: jsonText(body), contentType: 'application/json' };
}

function queryText(route: ApiRoute, values: readonly (FuzzJson | undefined)[]): string {
  return route.query
    .map((p, i) => (values[i] === undefined ? undefined : `${encodeURIComponent(p.name)}=${percentEncoded(paramText(values[i]!))}`))
    .filter((s): s is string => s !== undefined)
    .join('&');
}

/** One hostile change to the query: a parameter's value, a parameter given twice, an unknown one, or bare separators. */
function hostileQuery(route: ApiRoute, values: readonly (FuzzJson | undefined)[], bad: string): string {
  const good = queryText(route, values);
  const name = route.query[bad.length % Math.max(1, route.query.length)]?.name ?? 'limit';
  switch (bad.length % 4) {
    case 0:
      return `${name}=${bad}`;
    case 1:
      return `${good}&${name}=${bad}&${name}=1`;
    case 2:
      return `${good}&${bad}=${bad}`;
    default:
      return `&&=${bad}&${name}&${name}[]=1`;
  }
}

function replaceField(body: Obj, index: number, value: FuzzJson): Obj {
  const keys = Object.keys(body);
  if (keys.length === 0) return { address: value };
  return { ...body, [keys[index % keys.length]!]: value };
}

function dropField(schema: JsonSchema, body: Obj, index: number): Obj {
  const required = ((schema.required as string[] | undefined) ?? []).filter((k) => k in body);
  if (required.length === 0) return body;
  const { [required[index % required.length]!]: _dropped, ...rest } = body;
  return rest;
}

/** The body's text with one of its keys written again (JSON.parse keeps the last). */
function withDuplicateKey(body: Obj, index: number, value: FuzzJson): string {
  const keys = Object.keys(body);
  const key = keys.length === 0 ? 'address' : keys[index % keys.length]!;
  const text = jsonText(body);
  const inner = text.slice(1, -1);
  return `{${inner}${inner === '' ? '' : ','}${JSON.stringify(key)}:${jsonText(value)}}`;
}
