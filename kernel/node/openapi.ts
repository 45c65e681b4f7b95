import type { TObject, TSchema } from '@sinclair/typebox';
import { wireSchema } from '../host/schema-view.js';
import { actorFieldOf, signsForText, valueFieldOf } from '../ops/fields.js';
import type { OperationSpec } from '../ops/operation.js';
import type { RouteEntry } from '../host/route-table.js';

/**
 * The API reference (decisions.md §87): an OpenAPI 3.1 document of exactly the routes a process
 * serves, built from the route table, so the document and the server cannot drift. A declared
 * route (`defineRoute`) gives its parameters, body and answers; an operation route its body
 * schema, the signed fields and the `x-*` facts a client signs with; a route not declared yet is
 * listed with its path parameters and `x-declared: false`, and tightens as its plugin converts.
 */

export type ApiService = 'node' | 'gateway';

export interface ApiDocumentInput {
  readonly service: ApiService;
  readonly title: string;
  readonly version: string;
  readonly description: string;
  /** The routes the process serves now (mount-routes.ts `servedRoutes`). */
  readonly routes: readonly RouteEntry[];
  /** Top-level `x-*` fields (the gateway's `x-websocket`). */
  readonly extensions?: Readonly<Record<`x-${string}`, unknown>>;
}

type Json = Record<string, unknown>;

/** Why each error status is answered, where a route does not say. */
const STATUS_TEXT: Readonly<Record<number, string>> = {
  400: 'a parameter or the body is refused (the message names the field and the rule)',
  401: 'the signature, the key binding or a session-key limit is refused (decisions.md §31)',
  403: 'the signer lacks the role the operation needs, or the plugin is not active (decisions.md §31, §37)',
  404: 'the record named in the path or body does not exist',
  409: 'the name or address is already taken',
  413: 'the request body is over the size limit (the message names it)',
  429: 'rate limit exceeded (retry after the Retry-After seconds)',
  502: 'the node answered something that is not JSON',
  503: 'no node answers, or the node cannot serve this now (retry)',
};

/** The error body of every refusal: `{error, hint?}` (kernel/errors.ts). */
export const ERROR_SCHEMA: Json = {
  type: 'object',
  required: ['error'],
  properties: { error: { type: 'string', description: 'what was refused and why' }, hint: { type: 'string', description: 'what to send instead' } },
  additionalProperties: true,
};

/** decisions.md §17: the answer to an admitted operation. */
export const OPERATION_ACCEPTED_SCHEMA: Json = {
  type: 'object',
  required: ['success', 'status', 'tx_hash', 'estimated_block'],
  properties: {
    success: { const: true },
    status: { const: 'pending' },
    tx_hash: { type: 'string', pattern: '^0x[0-9a-f]{64}$' },
    estimated_block: { type: 'integer', minimum: 1 },
  },
  additionalProperties: true,
};

const PATH_PARAM = /:([a-zA-Z_][a-zA-Z0-9_]*)/g;

/** `/api/v1/accounts/:address` → `/api/v1/accounts/{address}`. */
export function openApiPath(path: string): string {
  return path.replace(PATH_PARAM, '{$1}');
}

/** `GET /api/v1/blocks/:height/commit` → `getBlocksByHeightCommit`; unversioned paths (`/status`) get `Root`. */
export function operationIdOf(method: string, path: string): string {
  const versioned = path.startsWith('/api/v1/');
  const rest = versioned ? path.slice('/api/v1/'.length) : path.slice(1);
  const words = rest
    .split('/')
    .filter((s) => s !== '')
    .map((seg) => (seg.startsWith(':') ? `By_${seg.slice(1)}` : seg))
    .flatMap((seg) => seg.split(/[^a-zA-Z0-9]+/))
    .filter((w) => w !== '')
    .map((w) => w[0]!.toUpperCase() + w.slice(1));
  return `${method.toLowerCase()}${versioned ? '' : 'Root'}${words.join('') || 'Index'}`;
}

/** The title, version and description of a node's document. */
export function nodeApiInfo(network: string): Pick<ApiDocumentInput, 'service' | 'title' | 'version' | 'description'> {
  return {
    service: 'node',
    title: `pq-chain node RPC (${network})`,
    version: 'v1',
    description:
      'Every REST route this node serves now, generated from the schemas it validates with (decisions.md §87). Operation routes carry x-operation, x-gas, x-signs-for and x-signed-layout: what a client needs to sign them (ch-tx-v4, decisions.md §94). Routes with x-declared false are not declared by their plugin yet: their answers are not described.',
  };
}

/** The title, version and description of a gateway's document. */
export function gatewayApiInfo(network: string): Pick<ApiDocumentInput, 'service' | 'title' | 'version' | 'description'> {
  return {
    service: 'gateway',
    title: `pq-chain gateway (${network})`,
    version: 'v1',
    description:
      'Every REST route this gateway serves now (decisions.md §87): its own, and the node routes it forwards (cached reads, submissions to the sender\'s shard). Any route may answer 502 (the node answered something that is not JSON) or 503 (no node answers). x-websocket describes /ws. Routes with x-declared false are not declared yet: their answers are not described.',
  };
}

/** The document of `input.routes` (each route once; those marked `listed: false` left out). */
export function openApiDocument(input: ApiDocumentInput): Json {
  const paths: Record<string, Record<string, Json>> = {};
  const ids = new Set<string>();
  const listed = input.routes.filter((r) => r.listed !== false);
  const sorted = [...listed].sort((a, b) => (a.path === b.path ? (a.method < b.method ? -1 : 1) : a.path < b.path ? -1 : 1));
  for (const r of sorted) {
    const path = openApiPath(r.path);
    const op = operationObject(r, input.service);
    let id = op.operationId as string;
    for (let n = 2; ids.has(id); n++) id = `${op.operationId as string}${n}`;
    ids.add(id);
    (paths[path] ??= {})[r.method.toLowerCase()] = { ...op, operationId: id };
  }
  const tags = [...new Set(listed.map(tagOf))].sort().map((name) => ({ name, description: tagDescription(name, input.service) }));
  return {
    openapi: '3.1.0',
    info: { title: input.title, version: input.version, description: input.description, license: { name: 'see the repository' } },
    tags,
    paths,
    components: { schemas: { Error: ERROR_SCHEMA, OperationAccepted: OPERATION_ACCEPTED_SCHEMA } },
    ...(input.extensions ?? {}),
  };
}

function tagDescription(tag: string, service: ApiService): string {
  if (tag === 'gateway') return 'routes only the gateway serves';
  if (service === 'node') return tag === 'kernel' ? 'routes the kernel serves itself' : `routes of the ${tag} plugin`;
  return tag === 'kernel'
    ? "the kernel's routes: forwarded to a node, or answered by the gateway for itself where every process serves one (health, metrics, shards, this document)"
    : `routes of the ${tag} plugin, forwarded to a node`;
}

/** decisions.md §87: the plugin that owns the route, `kernel` or `gateway` (RouteOptions.tag where the owner is not it). */
function tagOf(r: RouteEntry): string {
  return r.tag ?? r.owner;
}

function operationObject(r: RouteEntry, service: ApiService): Json {
  if (r.declared !== undefined) return declaredOperation(r, service);
  if (r.operation !== undefined) return signedOperation(r, r.operation, service);
  return undeclaredOperation(r, service);
}

function errorResponse(description: string): Json {
  return { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
}

/** Error statuses every route of the service may answer besides its own. */
function serviceErrors(service: ApiService): number[] {
  return service === 'gateway' ? [429, 502, 503] : [429];
}

/** `takesBody`: a route with a method that carries one, which every server refuses with 413 over its size limit (kernel/rpc/body.ts). */
function withErrors(ok: Json, own: ReadonlyMap<number, string>, service: ApiService, takesBody: boolean): Json {
  const statuses = new Map(own);
  for (const s of [...serviceErrors(service), ...(takesBody ? [413] : [])]) if (!statuses.has(s)) statuses.set(s, STATUS_TEXT[s]!);
  const out: Json = { 200: ok };
  for (const s of [...statuses.keys()].sort((a, b) => a - b)) out[String(s)] = errorResponse(statuses.get(s)!);
  return out;
}

function pathParameters(path: string, schemas?: TObject): Json[] {
  return [...path.matchAll(PATH_PARAM)].map((m) => {
    const name = m[1]!;
    const s = schemas?.properties[name] as TSchema | undefined;
    return parameter(name, 'path', true, s);
  });
}

function parameter(name: string, where: 'path' | 'query', required: boolean, s: TSchema | undefined): Json {
  const schema = s === undefined ? { type: 'string' } : wireSchema(s);
  const description = typeof schema.description === 'string' ? schema.description : undefined;
  return { name, in: where, required, ...(description !== undefined ? { description } : {}), schema };
}

function declaredOperation(r: RouteEntry, service: ApiService): Json {
  const d = r.declared!;
  const parameters = [...pathParameters(r.path, d.params)];
  if (d.query !== undefined) {
    const required = new Set(d.query.required ?? []);
    for (const [name, s] of Object.entries(d.query.properties)) parameters.push(parameter(name, 'query', required.has(name), s as TSchema));
  }
  const own = new Map<number, string>();
  for (const [k, v] of Object.entries(d.responses)) if (k !== '200') own.set(Number(k), typeof v === 'string' ? v : STATUS_TEXT[Number(k)] ?? 'refused');
  if ((d.params !== undefined || d.query !== undefined || d.body !== undefined) && !own.has(400)) own.set(400, STATUS_TEXT[400]!);
  const signed = bodyHasSignature(d.body);
  if (signed && !own.has(401)) own.set(401, STATUS_TEXT[401]!);
  if (d.proves !== undefined && !own.has(503)) own.set(503, 'no committed header vouches for the state yet, or blocks came faster than the proof could be read (retry)');
  const contentType = d.produces ?? 'application/json';
  const ok = { description: d.summary, content: { [contentType]: { schema: wireSchema(d.responses[200]) } } };
  return {
    operationId: operationIdOf(r.method, r.path),
    summary: d.summary,
    ...(d.description !== undefined ? { description: d.description } : {}),
    tags: [tagOf(r)],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(d.body !== undefined ? { requestBody: { required: true, content: { 'application/json': { schema: wireSchema(d.body) } } } } : {}),
    responses: withErrors(ok, own, service, r.method !== 'GET'),
    'x-declared': true,
    ...(d.proves !== undefined ? { 'x-proven-read': true } : {}),
    ...(d.extensions ?? {}),
  };
}

function bodyHasSignature(body: TSchema | undefined): boolean {
  const props = (body as TObject | undefined)?.properties;
  return props !== undefined && Object.prototype.hasOwnProperty.call(props, 'signature');
}

const HEX = (description: string): Json => ({ type: 'string', pattern: '^[0-9a-fA-F]+$', description });

/**
 * An operation as a client signs and sends it: the body (the operation's fields and the signed
 * ones) and the `x-*` facts of decisions.md §87 and §94.
 */
function operationFacts(spec: OperationSpec<TObject>): { body: Json; facts: Json } {
  const actor = actorFieldOf(spec) ?? 'address';
  const value = valueFieldOf(spec);
  const signsFor = signsForText(spec);
  const fields = wireSchema(spec.schema);
  const second = spec.signing?.secondSignature?.field;
  const required = ((fields.required as string[] | undefined) ?? []).filter((f) => !(f === actor && spec.actorFromKey === true));
  const body: Json = {
    ...fields,
    properties: {
      ...(fields.properties as Json),
      signature: HEX('ML-DSA-65 signature over x-signed-layout (ch-tx-v4; ch-tx-v2/v3 accepted on test networks, decisions.md §6, §7, §94)'),
      public_key: HEX('the signing ML-DSA-65 public key'),
      nonce: { type: 'integer', minimum: 0, description: "the actor's millisecond nonce (decisions.md §6, §8)" },
      gas_price: { type: 'integer', minimum: 0, description: 'ucoin per gas; base_fee when absent' },
      gas_limit: { type: 'integer', minimum: 0, description: 'the most gas this operation may use; unused gas of a declared limit is burned' },
      ...(second !== undefined ? { [second]: HEX('the second signature the operation takes') } : {}),
    },
    required: [...required, 'signature', 'public_key', 'nonce'],
  };
  const placeholder = (f: string) => `<${f}>`;
  const target = signsFor.startsWith('{') ? placeholder(signsFor.slice(1, -1)) : signsFor;
  const facts: Json = {
    'x-operation': spec.name,
    'x-gas': spec.gas,
    'x-signs-for': signsFor,
    'x-signed-layout': `ch-tx-v4|<chain_id>|${spec.name}|${placeholder(actor)}|${target}|${value === null ? '0' : placeholder(value)}|<nonce>|<gas_price>|<gas_limit>|<0x SHA3-256 of the body without signature and public_key, keys sorted, compact JSON>`,
    'x-actor': actor,
    'x-actor-from-key': spec.actorFromKey === true,
    'x-value': value,
    'x-path-fields': spec.pathFields ?? [],
    ...(spec.signing?.message !== undefined ? { 'x-own-layout': true } : {}),
  };
  return { body, facts };
}

/**
 * An operation route: the body as a client sends it, the §17 answer, and what a client needs to
 * sign it (decisions.md §87, §94). A route several operations share describes the one that takes
 * the bodies no selector takes, and lists the others under `x-shared-operations`, each with its
 * own facts, its body (`x-body`) and the body schema that selects it (`x-selected-by`).
 */
function signedOperation(r: RouteEntry, spec: OperationSpec<TObject>, service: ApiService): Json {
  const { body, facts } = operationFacts(spec);
  const own = new Map<number, string>([400, 401, 403, 404, 409].map((s) => [s, STATUS_TEXT[s]!] as [number, string]));
  own.set(503, 'the mempool is full (retry)');
  const ok = { description: 'admitted: pending in the mempool (decisions.md §17)', content: { 'application/json': { schema: { $ref: '#/components/schemas/OperationAccepted' } } } };
  const shared = (r.sharedWith ?? []).map((m) => {
    const other = operationFacts(m.spec);
    return { ...other.facts, 'x-selected-by': m.selectedBy === undefined ? null : wireSchema(m.selectedBy), 'x-body': other.body };
  });
  return {
    operationId: operationIdOf(r.method, r.path),
    summary: spec.description,
    tags: [tagOf(r)],
    ...(r.path.includes(':') ? { parameters: pathParameters(r.path) } : {}),
    requestBody: { required: true, content: { 'application/json': { schema: body } } },
    responses: withErrors(ok, own, service, r.method !== 'GET'),
    'x-declared': true,
    ...facts,
    ...(shared.length > 0 ? { 'x-shared-operations': shared } : {}),
  };
}

/** A route its owner has not declared yet: listed with what the table knows. */
function undeclaredOperation(r: RouteEntry, service: ApiService): Json {
  const parameters = pathParameters(r.path);
  if (r.proven !== undefined) parameters.push({ name: 'prove', in: 'query', required: false, description: 'true: answer with a proof of the state it was read from (decisions.md §84)', schema: { enum: ['true', 'false'] } });
  const own = new Map<number, string>();
  if (parameters.length > 0) own.set(400, STATUS_TEXT[400]!);
  if (r.path.includes(':')) own.set(404, STATUS_TEXT[404]!);
  if (r.proven !== undefined) own.set(503, 'no committed header vouches for the state yet (retry)');
  const ok = { description: 'not declared yet: the answer is not described', content: { 'application/json': { schema: {} } } };
  return {
    operationId: operationIdOf(r.method, r.path),
    summary: `${r.method} ${r.path} (not declared yet)`,
    tags: [tagOf(r)],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(r.method !== 'GET' ? { requestBody: { required: false, content: { 'application/json': { schema: {} } } } } : {}),
    responses: withErrors(ok, own, service, r.method !== 'GET'),
    'x-declared': false,
    ...(r.proven !== undefined ? { 'x-proven-read': true } : {}),
  };
}

/** How many of the listed routes are declared (operation routes count as declared), per owner. */
export function declarationCounts(routes: readonly RouteEntry[]): { declared: number; undeclared: number; undeclaredRoutes: string[] } {
  const listed = routes.filter((r) => r.listed !== false);
  const undeclared = listed.filter((r) => r.declared === undefined && r.operation === undefined);
  return { declared: listed.length - undeclared.length, undeclared: undeclared.length, undeclaredRoutes: undeclared.map((r) => `${r.method} ${r.path} (${r.owner})`) };
}
