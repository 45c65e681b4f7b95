import { Type } from '@sinclair/typebox';
import { notFound } from '../errors.js';
import type { PluginHost } from '../host/host.js';
import type { OperationRegistry } from '../ops/registry.js';
import { defineRoute } from '../host/declared-route.js';
import { pageAnswer, pageQuery, toPage } from './page-query.js';
import { listPage } from './pagination.js';
import { pluginMetadata } from './plugin-metadata.js';
import type { RouteTable } from '../host/route-table.js';
import { pluginsView } from './views.js';

const Nullable = <T extends ReturnType<typeof Type.Integer>>(t: T) => Type.Union([t, Type.Null()]);

/** A row of `GET /api/v1/plugins` (decisions.md §26, §34). */
export const PluginRow = Type.Object({
  name: Type.String(),
  kind: Type.Union([Type.Literal('state'), Type.Literal('service')]),
  description: Type.String(),
  status: Type.Union([Type.Literal('active'), Type.Literal('scheduled'), Type.Literal('retired'), Type.Literal('available')]),
  activation_height: Nullable(Type.Integer({ minimum: 0 })),
  retire_height: Nullable(Type.Integer({ minimum: 0 })),
  operations: Type.Array(Type.Object({ name: Type.String(), description: Type.String(), gas: Type.Integer(), signs_for: Type.String() }, { additionalProperties: true, description: 'what a client needs to sign it (kernel/ops/describe.ts)' })),
});

const Schema = Type.Record(Type.String(), Type.Unknown(), { description: 'a JSON Schema (2020-12); bigints are integers marked x-bigint' });

export const PluginMetadata = Type.Composite([
  PluginRow,
  Type.Object({
    declared: Type.Boolean({ description: 'whether the plugin declares its stores (and is held to them); false for one not converted yet' }),
    dependencies: Type.Array(Type.String()),
    stores: Type.Union([Type.Array(Type.Object({ name: Type.String(), description: Type.String(), key: Type.String(), key_parts: Type.Array(Type.Object({ name: Type.String(), kind: Type.String(), description: Type.String() })), value: Schema, value_type: Type.String(), encoding: Type.String() })), Type.Null()]),
    indexes: Type.Union([Type.Array(Type.Unknown()), Type.Null()]),
    events: Type.Array(Type.Object({ type: Type.String(), description: Type.String(), socket: Type.Boolean(), fields: Type.Array(Type.String()), data: Type.Union([Schema, Type.Null()]) })),
    routes: Type.Array(Type.Object({ method: Type.String(), path: Type.String(), operation: Type.Union([Type.String(), Type.Null()]), declared: Type.Boolean(), proves: Type.Boolean() }, { additionalProperties: true })),
    params: Type.Array(Type.Object({ key: Type.String(), default: Type.Integer(), min: Type.Union([Type.Integer(), Type.Null()]), max: Type.Union([Type.Integer(), Type.Null()]), description: Type.String() })),
    methods: Type.Object({ read: Type.Array(Type.String()), write: Type.Array(Type.String()) }),
  }),
]);

export const pluginsRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/plugins',
  summary: 'every plugin this node loads, with its status at the next height',
  query: pageQuery({ default: 100, cap: 100 }),
  responses: { 200: pageAnswer('plugins', PluginRow) },
});

export const pluginRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/plugins/:name',
  summary: 'one plugin and what it declares: stores, events, operations, routes, parameters',
  params: Type.Object({ name: Type.String({ pattern: '^[a-z][a-z0-9-]{0,31}$' }) }),
  responses: { 200: PluginMetadata, 404: 'no plugin of that name on this node' },
});

/** The plugin list and each plugin's metadata, read from the host, the operation registry and the node's route table. */
export function registerPluginRoutes(routes: RouteTable, host: PluginHost<unknown>, operations: OperationRegistry, nextHeight: () => number): void {
  routes.serve(pluginsRoute, (req) => {
    const { limit, offset } = toPage(req.query);
    return listPage('plugins', pluginsView(host, nextHeight(), operations), limit, offset);
  });
  routes.serve(pluginRoute, (req) => {
    const name = req.params.name;
    const row = pluginsView(host, nextHeight(), operations).find((p) => p.name === name);
    const loaded = host.enabled().find((l) => l.def.name === name);
    if (!row || !loaded) throw notFound(`no plugin named "${name}" on this node`);
    return {
      ...row,
      ...pluginMetadata({
        def: loaded.def,
        operations: operations.list().filter((o) => o.plugin === name),
        // Read when asked: the table is complete once every plugin's routes tap has run.
        routes: routes.list().filter((r) => r.owner === name),
      }),
    };
  });
}
