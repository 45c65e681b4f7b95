import { SdkError } from './errors.js';
import type { Http } from './http.js';

/**
 * What the SDK knows of an operation, read from the node (issue 36: a new plugin's operation
 * needs no SDK release). The one adapter over the node's self-description.
 *
 * TODAY it reads `GET /api/v1/plugins` (node and gateway), whose entries carry `operations` as the
 * kernel describes them (kernel/ops/describe.ts). TO BE SWITCHED to `GET /api/v1/openapi.json`
 * (decisions.md §87) once it is served: each path item with `x-operation` gives `type`, its method
 * and path give `method`/`path`, `x-signs-for` gives `signsFor` (same `{field}` form), `x-gas`
 * gives `gas`, and the `<actor>`/`<value>` placeholders of `x-signed-layout` give `actorField` and
 * `valueField`. Only this file changes then.
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

function metaOf(raw: unknown, plugin: string): OperationMeta {
  if (!isObj(raw) || typeof raw['name'] !== 'string' || !Array.isArray(raw['routes'])) throw new SdkError('operation', `plugin ${plugin}: an operation entry without name or routes`);
  const name = raw['name'];
  const routes = raw['routes'].filter(isObj);
  // A gateway serves every route but the node-only ones; a node serves all: the first served by both wins.
  const route = routes.find((r) => r['node_only'] !== true) ?? routes[0];
  const signsFor = String(raw['signs_for']);
  const field = FIELD_RE.exec(signsFor);
  if (!route || (route['method'] !== 'POST' && route['method'] !== 'PUT' && route['method'] !== 'PATCH') || typeof route['path'] !== 'string') throw new SdkError('operation', `${name}: no POST, PUT or PATCH route`);
  if (typeof raw['actor'] !== 'string' || typeof raw['gas'] !== 'number') throw new SdkError('operation', `${name}: no actor field or gas`);
  return {
    type: name,
    gas: raw['gas'],
    method: route['method'],
    path: route['path'],
    actorField: raw['actor'],
    actorFromKey: raw['actor_from_key'] === true,
    signsFor: field ? { field: field[1]! } : { address: signsFor },
    valueField: typeof raw['value'] === 'string' ? raw['value'] : null,
    pathFields: Array.isArray(raw['path_fields']) ? raw['path_fields'].filter((f): f is string => typeof f === 'string') : [],
  };
}

/** Every operation the node describes, by type. */
export async function fetchOperations(http: Http): Promise<ReadonlyMap<string, OperationMeta>> {
  const out = new Map<string, OperationMeta>();
  for (let offset = 0; ; ) {
    const page = await http.get(`/api/v1/plugins?limit=100&offset=${offset}`);
    if (!isObj(page) || !Array.isArray(page['plugins'])) throw new SdkError('operation', 'GET /api/v1/plugins answered no plugins list');
    for (const p of page['plugins'].filter(isObj)) {
      for (const op of Array.isArray(p['operations']) ? p['operations'] : []) {
        const meta = metaOf(op, String(p['name']));
        out.set(meta.type, meta);
      }
    }
    offset += page['plugins'].length;
    if (page['has_more'] !== true || page['plugins'].length === 0) return out;
  }
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
