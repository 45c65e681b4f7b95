import { SdkError } from './errors.js';
import type { Http } from './http.js';

/**
 * What the SDK knows of an operation, read from the node (issue 36: a new plugin's operation
 * needs no SDK release). The one adapter over the node's self-description: its API reference,
 * `GET /api/v1/openapi.json` (decisions.md §87), where each operation route carries
 * `x-operation` (the type), `x-gas`, `x-signs-for` (an address, or `{field}`), `x-actor`,
 * `x-actor-from-key`, `x-value` and `x-path-fields`; a route several operations share lists the
 * others under `x-shared-operations` with the same fields. The document lists exactly the routes
 * the process serves, so a gateway's leaves out the node-only ones.
 */
export interface OperationMeta {
  /** decisions.md §17's type: the `<kind>` a v4 signature names. */
  readonly type: string;
  readonly gas: number;
  readonly method: 'POST' | 'PUT' | 'PATCH';
  /** The route, with `:param`s filled from the body. */
  readonly path: string;
  readonly actorField: string;
  /** Whether the actor field may be left out (then the signing key's derived address). */
  readonly actorFromKey: boolean;
  /** The Signs-for address, or `{ field }` when the body names it. */
  readonly signsFor: { readonly address: string } | { readonly field: string };
  readonly valueField: string | null;
  /** Path parameters the body must carry too. */
  readonly pathFields: readonly string[];
}

const isObj = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);
const FIELD_RE = /^\{([a-z_][a-z0-9_]*)\}$/;
const SIGNED_METHODS = ['post', 'put', 'patch'] as const;

/** One operation's `x-*` facts on `method path` (path in the document's `{param}` form). */
function metaOf(facts: Record<string, unknown>, method: (typeof SIGNED_METHODS)[number], path: string): OperationMeta {
  const name = facts['x-operation'];
  if (typeof name !== 'string') throw new SdkError('operation', `${method.toUpperCase()} ${path}: x-operation is not a name`);
  const signsFor = facts['x-signs-for'];
  const actor = facts['x-actor'];
  const gas = facts['x-gas'];
  if (typeof signsFor !== 'string' || typeof actor !== 'string' || typeof gas !== 'number') throw new SdkError('operation', `${name}: the API reference gives no x-signs-for, x-actor or x-gas`);
  const field = FIELD_RE.exec(signsFor);
  const value = facts['x-value'];
  const pathFields = facts['x-path-fields'];
  return {
    type: name,
    gas,
    method: method.toUpperCase() as OperationMeta['method'],
    path: path.replace(/\{([a-z_][a-z0-9_]*)\}/g, ':$1'),
    actorField: actor,
    actorFromKey: facts['x-actor-from-key'] === true,
    signsFor: field ? { field: field[1]! } : { address: signsFor },
    valueField: typeof value === 'string' ? value : null,
    pathFields: Array.isArray(pathFields) ? pathFields.filter((f): f is string => typeof f === 'string') : [],
  };
}

/**
 * Every operation the node's API reference describes, by type. An operation served on several
 * routes (POST and PUT of one path) keeps the first the document lists.
 */
export async function fetchOperations(http: Http): Promise<ReadonlyMap<string, OperationMeta>> {
  const doc = await http.get('/api/v1/openapi.json');
  if (!isObj(doc) || !isObj(doc['paths'])) throw new SdkError('operation', 'GET /api/v1/openapi.json answered no OpenAPI paths');
  const out = new Map<string, OperationMeta>();
  const add = (meta: OperationMeta): void => {
    if (!out.has(meta.type)) out.set(meta.type, meta);
  };
  for (const [path, item] of Object.entries(doc['paths'])) {
    if (!isObj(item)) continue;
    for (const method of SIGNED_METHODS) {
      const op = item[method];
      if (!isObj(op) || op['x-operation'] === undefined) continue;
      add(metaOf(op, method, path));
      const shared = op['x-shared-operations'];
      for (const other of Array.isArray(shared) ? shared.filter(isObj) : []) add(metaOf(other, method, path));
    }
  }
  return out;
}

/** The Signs-for address of a body, as the node will read it. */
export function targetOf(meta: OperationMeta, body: Readonly<Record<string, unknown>>): string {
  if ('address' in meta.signsFor) return meta.signsFor.address;
  const to = body[meta.signsFor.field];
  if (typeof to !== 'string') throw new SdkError('input', `${meta.type}: the body's ${meta.signsFor.field} names what it signs for`);
  return to;
}

/** The route with its `:param`s filled from the body (each percent-encoded). */
export function pathOf(meta: OperationMeta, body: Readonly<Record<string, unknown>>): string {
  return meta.path.replace(/:([a-z_]+)/g, (_m, p: string) => {
    const v = body[p];
    if (v === undefined) throw new SdkError('input', `${meta.type}: the body has no ${p} for ${meta.path}`);
    return encodeURIComponent(String(v));
  });
}
