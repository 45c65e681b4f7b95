import { describeOperation } from '../ops/describe.js';
import type { TSchema } from '@sinclair/typebox';
import type { PluginDefinition } from '../host/plugin.js';
import { typeText, wireSchema } from '../host/schema-view.js';
import type { RegisteredOperation } from '../ops/registry.js';
import type { DeclaredIndex, DeclaredStore } from '../state/declared-store.js';
import type { RouteEntry } from '../host/route-table.js';

/**
 * A plugin's metadata, generated from its declarations (Lisk's module metadata): its stores with
 * their key layouts and value schemas, its events with their data schemas, its operations (body
 * schema, Signs-for, gas, main-key-only), its routes (schemas per status) and its parameters.
 * `GET /api/v1/plugins/:name` serves it; the README tables and the plugin guide's generator read
 * the same functions, so the three never drift.
 */
export interface PluginMetadataInput {
  readonly def: PluginDefinition<never, never>;
  readonly operations: readonly RegisteredOperation[];
  /** The routes this node serves for the plugin (its `routes` taps and its operations'). */
  readonly routes: readonly RouteEntry[];
}

export function pluginMetadata({ def, operations, routes }: PluginMetadataInput): Record<string, unknown> {
  const byRoute = new Map<string, string>(operations.flatMap((o) => o.spec.routes.map((r) => [`${r.method} ${r.path}`, o.spec.name] as const)));
  return {
    declared: def.stores !== undefined,
    dependencies: def.dependencies ?? [],
    stores: def.stores === undefined ? null : def.stores.map(storeView),
    indexes: def.stores === undefined ? null : (def.indexes ?? []).map(storeView),
    events: (def.events ?? []).map((e) => ({ type: e.type, description: e.description, socket: e.socket === true, fields: e.fields, data: e.data ? wireSchema(e.data) : null })),
    operations: operations.map(operationView),
    routes: routes.map((r) => routeView(r, byRoute.get(`${r.method} ${r.path}`))),
    params: (def.params ?? []).map((p) => ({ key: p.key, default: p.default, min: p.min ?? null, max: p.max ?? null, description: p.description })),
    methods: def.methods ? { read: Object.keys(def.methods.read).sort(), write: Object.keys(def.methods.write).sort() } : { read: [], write: [] },
    system_transactions: def.systemTransactions ?? [],
    system_addresses: (def.systemAddresses ?? []).map((s) => ({ address: s.address, gas: s.gas })),
    address_kinds: (def.addressKinds ?? []).map((k) => ({ kind: k.kind, gas: k.gas, description: k.description })),
  };
}

/** A store as the metadata shows it: where its records live and what they hold. */
export function storeView(s: DeclaredStore | DeclaredIndex): Record<string, unknown> {
  return {
    name: s.name,
    description: s.description,
    key: s.layout.text,
    key_parts: s.layout.keyParts.map((p) => ({ name: p.name, kind: p.kind, description: p.description })),
    value: wireSchema(s.value),
    value_type: typeText(s.value),
    encoding: s.record.encoding,
  };
}

function operationView(o: RegisteredOperation): Record<string, unknown> {
  // What a client signs with (ops/describe.ts, the same facts `GET /api/v1/plugins` lists), plus
  // the body schema and who may sign.
  // A route several operations share names the bodies it selects for this one (route-dispatch.ts).
  const d = describeOperation(o);
  const routes = d.routes.map((r, i) => ({ ...r, selected_by: o.spec.routes[i]?.selectedBy === undefined ? null : wireSchema(o.spec.routes[i]!.selectedBy!) }));
  return { ...d, routes, schema: wireSchema(o.spec.schema), main_key_only: o.spec.mainKeyOnly ?? null };
}

function routeView(r: RouteEntry, operation: string | undefined): Record<string, unknown> {
  const d = r.declared;
  const schema = (s: TSchema | undefined): Record<string, unknown> | null => (s === undefined ? null : wireSchema(s));
  return {
    method: r.method,
    path: r.path,
    operation: operation ?? null,
    declared: d !== undefined,
    summary: d?.summary ?? null,
    params: schema(d?.params),
    query: schema(d?.query),
    body: schema(d?.body),
    responses: d ? Object.fromEntries(Object.entries(d.responses).map(([status, v]) => [status, typeof v === 'string' ? { description: v } : { schema: wireSchema(v as TSchema) }])) : null,
    proves: r.proven !== undefined,
  };
}
