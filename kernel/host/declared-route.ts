import { withRefusal } from '../codec/schema-check.js';
import { Type, type Static, type TObject, type TProperties, type TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { Value } from '@sinclair/typebox/value';
import { badRequest } from '../errors.js';
import { ownRefusal, refusalWords } from '../codec/schema-check.js';
import type { HttpMethod, RpcRequest } from './route-table.js';

/**
 * Read routes declared with their schemas, as operations are (Lisk's endpoint metadata, the
 * shape an OpenAPI operation needs): path parameters, query and body schemas (TypeBox), the
 * answer per status, and whether the route is a proven read. The kernel validates a request
 * against the declaration before the handler runs (400 naming the field), hands the handler the
 * typed, converted values, and keeps the declaration on the route table, where the metadata
 * route, the OpenAPI document (issue 36), the assistant tool server's input schemas (issue 34)
 * and the route fuzzer (issue 39) read it.
 */

/**
 * What a route answers per status: the schema of a success body (the JSON a client parses:
 * amounts as integers), and for each error status it can answer, why (its body is the kernel's
 * error shape, `{error, hint?}`). 400 for a request its schemas refuse is implied.
 */
export type RouteResponses = { readonly 200: TSchema } & { readonly [status: number]: TSchema | string };

export interface RouteSpec<P extends TObject | undefined = TObject | undefined, Q extends TObject | undefined = TObject | undefined, B extends TSchema | undefined = TSchema | undefined> {
  readonly method: HttpMethod;
  /** `/api/v1/memo/:address`; every `:param` has a property in `params`. */
  readonly path: string;
  /** One line: what the route answers. */
  readonly summary: string;
  readonly description?: string;
  /** Path parameters (strings in the URL; integer properties are converted from digits). */
  readonly params?: P;
  /**
   * Query parameters (converted from text as their schema says: integers from digits, booleans
   * from `true`/`false`; a parameter given twice is refused unless its schema is an array). An
   * integer property with `'x-cap': n` is capped at n rather than refused (decisions.md §20's
   * `limit`, `pageQuery`).
   */
  readonly query?: Q;
  /** The JSON body of a POST. */
  readonly body?: B;
  /**
   * `handler`: the handler checks the body itself, in an order the spec fixes (a transfer's
   * missing signature is 401, not 400: kernel/tx/submission.ts); `body` then documents it only.
   */
  readonly bodyCheck?: 'handler';
  /**
   * Body fields a client may send by a convention the route does not follow, and which it
   * ignores: the `signature` and `nonce` a socket write method carries (part 2, Client messages)
   * on an unsigned write (the faucet). Each is optional; a value of the wrong type is still a 400
   * naming it; the rest are dropped before the body is checked, so the handler never sees them and
   * the API reference does not list them. Applied where the kernel checks the body (not with
   * `bodyCheck: 'handler'`).
   */
  readonly ignoredBodyFields?: TObject;
  readonly responses: RouteResponses;
  /** Content type of the 200 answer when not JSON (a streamed export). */
  readonly produces?: string;
  /**
   * A proven read (decisions.md §84): the full state keys its answer is read from
   * (`store.stateKey(...)`), from the request and, where the record read depends on state (a
   * name resolved to the address it stands for), the answer the handler gave.
   */
  readonly proves?: (req: RequestFor<P, Q, B>, answer: Readonly<Record<string, unknown>>) => readonly string[];
  /**
   * Part 1 marks the route "Node only": the gateway neither serves nor proxies it (a socket
   * method may still read it from a node, below).
   */
  readonly nodeOnly?: boolean;
  /**
   * The gateway's socket method that answers this read (part 1 "Socket RPC methods"): its params
   * fill the path parameters and the query parameters by name; the answer is this route's. A
   * plugin lists the route in its definition's `routes` for the gateway to find it.
   */
  readonly socketMethod?: string;
  /** OpenAPI `x-*` fields of the operation (issue 36), beside those the kernel derives. */
  readonly extensions?: Readonly<Record<`x-${string}`, unknown>>;
}

type Typed<S, Otherwise> = S extends TSchema ? Static<S> : Otherwise;

/** A request as a declared route's handler sees it: validated, converted, typed. */
export interface DeclaredRequest<P = Record<string, string>, Q = Record<string, never>, B = unknown> {
  readonly params: P;
  readonly query: Q;
  readonly body: B;
  /** The request as it came (headers, ip, the body's text). */
  readonly raw: RpcRequest;
}

/** The request a route of these schemas hands its handler. */
export type RequestFor<P, Q, B> = DeclaredRequest<Typed<P, Record<string, string>>, Typed<Q, Record<string, never>>, Typed<B, unknown>>;

/** A declared route: the spec, and its request parser (compiled once). */
export interface DeclaredRoute<P extends TObject | undefined = TObject | undefined, Q extends TObject | undefined = TObject | undefined, B extends TSchema | undefined = TSchema | undefined> extends RouteSpec<P, Q, B> {
  /** The validated request, or a 400 naming the first field its schemas refuse. */
  parse(raw: RpcRequest): RequestFor<P, Q, B>;
}

const PATH_PARAM = /:([a-zA-Z_][a-zA-Z0-9_]*)/g;
/**
 * Where a proven read's request keeps its parse (the proven-read wrapper and the handler share
 * one): a non-enumerable own property, so a spread copy of the request is parsed afresh. Not a
 * WeakMap: an entry per request made every GC trace ephemerons and cost ~6 µs a request, the
 * larger part of a cached gateway read. Any other route's request is parsed once anyway (by the
 * handler), so it is not kept: defining the property costs ~1 µs (docs/performance.md, "Gateway").
 */
const PARSED = Symbol('parsed request');

function parsedOf(raw: RpcRequest): unknown {
  return (raw as unknown as Record<symbol, unknown>)[PARSED];
}

function keepParsed(raw: RpcRequest, request: unknown): void {
  if (Object.isExtensible(raw)) Object.defineProperty(raw, PARSED, { value: request, enumerable: false, configurable: true });
}

/** Declares a route; serve it with `routes.serve(route, handler)` in the plugin's `routes` tap. */
export function defineRoute<P extends TObject | undefined = undefined, Q extends TObject | undefined = undefined, B extends TSchema | undefined = undefined>(spec: RouteSpec<P, Q, B>): DeclaredRoute<P, Q, B> {
  const where = `route ${spec.method} ${spec.path}`;
  const names = [...spec.path.matchAll(PATH_PARAM)].map((m) => m[1]!);
  const declared = spec.params ? Object.keys(spec.params.properties) : [];
  if (names.length > 0 && !spec.params) throw new Error(`${where}: declare params for ${names.map((n) => `:${n}`).join(', ')}`);
  for (const n of names) if (!declared.includes(n)) throw new Error(`${where}: params has no property "${n}"`);
  for (const d of declared) if (!names.includes(d)) throw new Error(`${where}: params declares "${d}", which the path does not have`);
  if (spec.body !== undefined && spec.method === 'GET') throw new Error(`${where}: a GET takes no body`);
  if (spec.responses[200] === undefined) throw new Error(`${where}: declare the 200 answer's schema`);
  if (spec.proves !== undefined && spec.method !== 'GET') throw new Error(`${where}: only a GET can be a proven read`);
  if (spec.ignoredBodyFields !== undefined) ignoredFieldsFit(where, spec.ignoredBodyFields, spec.body);
  // A proven read takes `prove` (decisions.md §84), which the kernel reads before the handler.
  const given: TObject | undefined = spec.query;
  const query: TObject | undefined = spec.proves === undefined ? given : Type.Object({ ...((given?.properties ?? {}) as TProperties), prove: PROVE }, given ? queryOptions(given) : {});
  const checks = {
    params: spec.params ? TypeCompiler.Compile(spec.params) : undefined,
    query: query ? TypeCompiler.Compile(query) : undefined,
    body: spec.body && spec.bodyCheck !== 'handler' ? TypeCompiler.Compile(spec.body) : undefined,
    ignored: spec.ignoredBodyFields && spec.bodyCheck !== 'handler' ? TypeCompiler.Compile(spec.ignoredBodyFields) : undefined,
  };
  const caps = query ? capsOf(query) : [];
  // Value.Default walks the whole query schema per request; without a default anywhere it changes nothing.
  const queryDefaults = query !== undefined && hasDefault(query);
  const memoised = spec.proves !== undefined;
  const route: RouteSpec<P, Q, B> = { ...spec, ...(query !== undefined ? { query: query as Q } : {}) };
  return Object.freeze({
    ...route,
    parse(raw: RpcRequest) {
      const done = memoised ? parsedOf(raw) : undefined;
      if (done !== undefined) return done as RequestFor<P, Q, B>;
      // Before anything else, as the node's proven-read wrapper reads it: every process that
      // serves the route (a node, the gateway forwarding it) refuses a bad prove in the same words.
      if (spec.proves !== undefined) proveParam(raw.query);
      const params = checks.params ? checked('path parameter', checks.params, convert(checks.params.Schema() as TObject, Object.entries(raw.params).map(([k, v]) => [k, [v]]))) : raw.params;
      const given = checks.query ? convert(checks.query.Schema() as TObject, groupQuery(raw.query)) : undefined;
      const q = checks.query ? checked('query parameter', checks.query, queryDefaults ? Value.Default(checks.query.Schema(), given) : given) : {};
      for (const [name, cap] of caps) {
        const v = (q as Record<string, unknown>)[name];
        if (typeof v === 'number' && v > cap) (q as Record<string, unknown>)[name] = cap;
      }
      const hint = spec.body !== undefined ? bodyHint(spec.body) : undefined;
      const body = checks.body ? checked('body field', checks.body, checks.ignored ? withoutIgnored(checks.ignored, raw.body, hint) : raw.body, hint) : raw.body;
      const request = { params, query: q, body, raw } as RequestFor<P, Q, B>;
      if (memoised) keepParsed(raw, request);
      return request;
    },
  });
}

/** `prove`: absent or `false` = no proof, `true` = a proven read, anything else 400 (decisions.md §84). */
export function proveParam(query: URLSearchParams): boolean {
  const values = query.getAll('prove');
  if (values.length === 0) return false;
  if (values.length === 1 && (values[0] === 'true' || values[0] === 'false')) return values[0] === 'true';
  throw badRequest(`prove must be true or false, got "${values.join(',')}"`);
}

// The words proveParam answers a route that is not declared with (decisions.md §84: 400).
const PROVE = Type.Optional(withRefusal(Type.Union([Type.Literal('true'), Type.Literal('false')], { description: 'true: answer with a proof of the state it was read from (decisions.md §84)' }), (v) => `prove must be true or false, got "${Array.isArray(v) ? v.join(',') : String(v)}"`));

function queryOptions(q: TObject): Record<string, unknown> {
  const { type: _t, properties: _p, required: _r, ...rest } = q as unknown as Record<string, unknown>;
  return rest;
}

function capsOf(query: TObject): Array<[string, number]> {
  return Object.entries(query.properties ?? {}).flatMap(([name, s]) => (typeof (s as Record<string, unknown>)['x-cap'] === 'number' ? [[name, (s as Record<string, unknown>)['x-cap'] as number] as [string, number]] : []));
}

/** Whether a `default` keyword appears anywhere in a schema (TypeBox schemas are plain JSON objects). */
function hasDefault(schema: unknown): boolean {
  if (schema === null || typeof schema !== 'object') return false;
  if (!Array.isArray(schema) && Object.prototype.hasOwnProperty.call(schema, 'default')) return true;
  return Object.values(schema).some(hasDefault);
}

/** Query values by name, empty values left out (`?limit=` is no limit), in the order given. */
function groupQuery(query: URLSearchParams): Array<[string, string[]]> {
  if (query.size === 0) return [];
  const out = new Map<string, string[]>();
  for (const [k, v] of query) {
    if (v === '') continue;
    out.set(k, [...(out.get(k) ?? []), v]);
  }
  return [...out.entries()];
}

const INTEGER_TEXT = /^-?[0-9]{1,16}$/;

/** An integer the text says exactly as a JSON number (up to 2^53 − 1, amounts' range, decisions.md §55); a larger one stays text and is refused. */
function safeInteger(text: string): number | undefined {
  if (!INTEGER_TEXT.test(text)) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** Text values converted as the object's property schemas say; anything unconvertible stays text, for the check to name. */
function convert(schema: TObject, entries: ReadonlyArray<[string, readonly string[]]>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, values] of entries) {
    const s = schema.properties?.[name] as TSchema | undefined;
    if (s?.type === 'array') {
      out[name] = values.map((v) => scalar(s.items as TSchema, v));
      continue;
    }
    // A schema with its own words says them for a repeated value too (`prove`: decisions.md §84).
    if (values.length > 1 && s !== undefined) throw badRequest(`query parameter ${name}: ${ownRefusal(s, values) ?? `given ${values.length} times, once allowed`}`);
    out[name] = s === undefined ? values[0] : scalar(s, values[0]!);
  }
  return out;
}

function scalar(s: TSchema, text: string): unknown {
  if (s.type === 'integer' || s.type === 'number') {
    const n = safeInteger(text);
    if (n !== undefined) return n;
  }
  if (s.type === 'number' && /^-?[0-9]+\.[0-9]+$/.test(text)) return Number(text);
  if (s.type === 'boolean' && (text === 'true' || text === 'false')) return text === 'true';
  return text;
}

function checked<T>(where: string, check: TypeCheck<TSchema>, value: unknown, hint?: string): T {
  if (check.Check(value)) return value as T;
  const first = check.Errors(value).First();
  const field = first?.path.replace(/^\//, '').replace(/\//g, '.') ?? '';
  // In the schema's own words where it has them (withRefusal: the address and hash schemas every route shares).
  const message = (first !== undefined ? refusalWords(first) : undefined) ?? first?.message ?? 'invalid';
  throw badRequest(`${field === '' ? where.replace(/ (parameter|field)$/, '') : `${where} ${field}`}: ${message}`, hint);
}

/** RouteSpec.ignoredBodyFields: optional, and none of them a field of the body itself. */
function ignoredFieldsFit(where: string, ignored: TObject, body: TSchema | undefined): void {
  const own = (body as TObject | undefined)?.properties;
  if (own === undefined) throw new Error(`${where}: ignoredBodyFields needs an object body`);
  if ((ignored.required ?? []).length > 0) throw new Error(`${where}: ignoredBodyFields must all be optional (${ignored.required!.join(', ')})`);
  for (const name of Object.keys(ignored.properties)) if (Object.prototype.hasOwnProperty.call(own, name)) throw new Error(`${where}: ${name} is both a body field and an ignored one`);
}

/** The body without the ignored fields it carries, once their values are checked (400 naming a wrong one). */
function withoutIgnored(check: TypeCheck<TSchema>, body: unknown, hint: string | undefined): unknown {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return body;
  const names = Object.keys((check.Schema() as TObject).properties);
  const sent = body as Record<string, unknown>;
  const given = names.filter((n) => Object.prototype.hasOwnProperty.call(sent, n));
  if (given.length === 0) return body;
  checked('body field', check, Object.fromEntries(given.map((n) => [n, sent[n]])), hint);
  return Object.fromEntries(Object.entries(sent).filter(([k]) => !given.includes(k)));
}

/** `send {"address", "public_key", "amount"?}`: the body's fields, for a refusal's hint. */
function bodyHint(body: TSchema): string | undefined {
  if (body.type !== 'object' || (body as TObject).properties === undefined) return undefined;
  const required = new Set<string>((body as TObject).required ?? []);
  return `send {${Object.keys((body as TObject).properties).map((k) => `"${k}"${required.has(k) ? '' : '?'}`).join(', ')}}`;
}
