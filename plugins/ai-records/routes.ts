import { exportRoutesDeclared } from './export.js';
import { defineRoute, notFound, toPage, type NodeServices, type RouteTable } from '../../kernel/sdk.js';
import { entryView, logCount } from './log.js';
import { modelView } from './registry.js';
import { IdParams, LogEntryView, ModelListQuery, ModelRegistryAnswer, ModelView, OracleLogAnswer, OracleLogQuery } from './schemas.js';
import { logEntries, models } from './store.js';

/** Most entries one filtered log request scans (newest first), so a filter cannot walk an unbounded log. */
export const LOG_SCAN_LIMIT = 10_000;

const ENTRY_ID = /^[1-9][0-9]{0,14}$/;
const MODEL_ID = /^[0-9a-f]{16}$/;

export const oracleLogRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/oracle/log',
  summary: `the AI decision log, newest first, optionally filtered by model, kind and subject (a filter scans at most the newest ${LOG_SCAN_LIMIT} entries)`,
  query: OracleLogQuery,
  responses: { 200: OracleLogAnswer },
});

export const oracleEntryRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/oracle/log/:id',
  summary: 'one decision log entry',
  params: IdParams,
  responses: { 200: LogEntryView, 404: 'no entry has the id' },
  proves: (req) => (ENTRY_ID.test(req.params.id) ? [logEntries.stateKey(Number(req.params.id))] : []),
});

export const modelRegistryRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/models/registry',
  summary: 'the model registry, by id',
  query: ModelListQuery,
  responses: { 200: ModelRegistryAnswer },
});

export const modelEntryRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/models/registry/:id',
  summary: 'one model registry entry',
  params: IdParams,
  responses: { 200: ModelView, 404: 'no entry has the id' },
  proves: (req) => (MODEL_ID.test(req.params.id) ? [models.stateKey(req.params.id)] : []),
});

/** The routes the plugin lists in its definition, for the gateway to forward under these declarations (part 1: served by both). */
export const AI_RECORDS_ROUTES = [oracleLogRoute, oracleEntryRoute, modelRegistryRoute, modelEntryRoute, ...exportRoutesDeclared] as const;

export function aiRecordsRoutes(routes: RouteTable, s: NodeServices, plugin: string): void {
  // Newest first, filtered by model, kind, subject; paged as decisions.md §20 and §34 say.
  routes.serve(oracleLogRoute, (req) => {
    const { limit, offset } = toPage(req.query);
    const want = { model: req.query.model, kind: req.query.kind, subject: req.query.subject };
    return s.query.run(plugin, async (ctx) => {
      const n = await logCount(ctx.store);
      const filtered = want.model !== undefined || want.kind !== undefined || want.subject !== undefined;
      const entries: Record<string, unknown>[] = [];
      let total = 0;
      for (let id = n; id >= 1 && n - id < (filtered ? LOG_SCAN_LIMIT : n); id--) {
        if (!filtered) {
          total = n;
          if (n - id < offset) continue;
          if (entries.length >= limit) break;
        }
        const e = (await logEntries.get(ctx.store, id))!;
        if (filtered) {
          if ((want.model !== undefined && e.model !== want.model) || (want.kind !== undefined && e.kind !== want.kind) || (want.subject !== undefined && e.subject !== want.subject)) continue;
          total++;
          if (total <= offset || entries.length >= limit) continue;
        }
        entries.push(entryView(e));
      }
      return { entries, total, limit, offset, has_more: offset + entries.length < total };
    });
  });
  routes.serve(oracleEntryRoute, (req) =>
    s.query.run(plugin, async (ctx) => {
      const e = ENTRY_ID.test(req.params.id) ? await logEntries.get(ctx.store, Number(req.params.id)) : undefined;
      if (!e) throw notFound(`no decision log entry ${req.params.id}`);
      return entryView(e);
    }),
  );
  routes.serve(modelRegistryRoute, (req) => {
    const { limit, offset } = toPage(req.query);
    return s.query.run(plugin, async (ctx) => {
      const all = await models.scan(ctx.store);
      const page = all.slice(offset, offset + limit);
      return { models: page.map((e) => modelView(e.value)), total: all.length, limit, offset, has_more: offset + page.length < all.length };
    });
  });
  routes.serve(modelEntryRoute, (req) =>
    s.query.run(plugin, async (ctx) => {
      const e = MODEL_ID.test(req.params.id) ? await models.get(ctx.store, req.params.id) : undefined;
      if (!e) throw notFound(`no model registry entry ${req.params.id}`);
      return modelView(e);
    }),
  );
}
