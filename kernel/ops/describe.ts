import { signsForText } from './fields.js';
import type { RegisteredOperation } from './registry.js';

/**
 * What a client needs to build and sign an operation it was not built for (issue 36: a new
 * plugin's operation needs no client release): its type (the `ch-tx-v4` kind), routes, the body
 * fields signed as actor and value, what it signs for, the path fields its body must repeat, and
 * its gas. Served per plugin by `GET /api/v1/plugins`; the same facts become the `x-*` fields of
 * the OpenAPI document (decisions.md §87) once it exists.
 */
export interface OperationDescription {
  /** decisions.md §17's type, and `<kind>` of `ch-tx-v4` (§94). */
  readonly name: string;
  readonly description: string;
  /** Base gas (the `gas/estimate` `operations` entry). */
  readonly gas: number;
  /** `node_only` routes are not served by the gateway. */
  readonly routes: ReadonlyArray<{ readonly method: string; readonly path: string; readonly node_only: boolean }>;
  readonly socket_method: string | null;
  /** The body field signed as `<actor>` (decisions.md §6). */
  readonly actor: string;
  /** The actor field may be left out: it is then the signing key's derived address (§90). */
  readonly actor_from_key: boolean;
  /** The Signs-for address, or `{<field>}` when a body field names it. */
  readonly signs_for: string;
  /** The body field signed as `<value>`, null when the operation signs 0. */
  readonly value: string | null;
  /** Path parameters a `ch-tx-v3`/`v4` body must carry too (the payload hash covers only the body). */
  readonly path_fields: readonly string[];
}

export function describeOperation(op: RegisteredOperation): OperationDescription {
  const s = op.spec;
  return {
    name: s.name,
    description: s.description,
    gas: s.gas,
    routes: s.routes.map((r) => ({ method: r.method, path: r.path, node_only: r.nodeOnly === true })),
    socket_method: s.socketMethod ?? null,
    actor: op.actorField,
    actor_from_key: s.actorFromKey === true,
    signs_for: signsForText(s),
    value: op.valueField,
    path_fields: s.pathFields ?? [],
  };
}
