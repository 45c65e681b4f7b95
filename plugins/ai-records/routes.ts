import { notFound, pageOf, stateKey, type NodeServices, type RouteTable } from '../../kernel/sdk.js';
import { entryPath, entryView, logCount, type LogEntry } from './log.js';
import { MODELS_PREFIX, modelPath, modelView, type ModelEntry } from './registry.js';

/** Most entries one filtered log request scans (newest first), so a filter cannot walk an unbounded log. */
export const LOG_SCAN_LIMIT = 10_000;

export function aiRecordsRoutes(routes: RouteTable, s: NodeServices, plugin: string): void {
  // Newest first, filtered by model, kind, subject; paged as decisions.md §20 and §34 say.
  routes.get('/api/v1/oracle/log', (req) => {
    const { limit, offset } = pageOf(req.query, 50, 100);
    const want = { model: req.query.get('model'), kind: req.query.get('kind'), subject: req.query.get('subject') };
    return s.query.run(plugin, async (ctx) => {
      const n = await logCount(ctx.store);
      const filtered = want.model !== null || want.kind !== null || want.subject !== null;
      const entries: Record<string, unknown>[] = [];
      let total = 0;
      for (let id = n; id >= 1 && n - id < (filtered ? LOG_SCAN_LIMIT : n); id--) {
        if (!filtered) {
          total = n;
          if (n - id < offset) continue;
          if (entries.length >= limit) break;
        }
        const e = (await ctx.store.getRecord<LogEntry>(entryPath(id)))!;
        if (filtered) {
          if ((want.model !== null && e.model !== want.model) || (want.kind !== null && e.kind !== want.kind) || (want.subject !== null && e.subject !== want.subject)) continue;
          total++;
          if (total <= offset || entries.length >= limit) continue;
        }
        entries.push(entryView(e));
      }
      return { entries, total, limit, offset, has_more: offset + entries.length < total };
    });
  });
  routes.get('/api/v1/oracle/log/:id', (req) => {
    const id = Number(req.params.id);
    return s.query.run(plugin, async (ctx) => {
      const e = Number.isSafeInteger(id) && id >= 1 ? await ctx.store.getRecord<LogEntry>(entryPath(id)) : undefined;
      if (!e) throw notFound(`no decision log entry ${req.params.id}`);
      return entryView(e);
    });
  }, { proves: (req) => [stateKey(plugin, entryPath(Number(req.params.id)))] });
  routes.get('/api/v1/models/registry', (req) => {
    const { limit, offset } = pageOf(req.query, 100, 100);
    return s.query.run(plugin, async (ctx) => {
      const all = await ctx.store.scan(MODELS_PREFIX);
      const page = all.slice(offset, offset + limit);
      const models = [];
      for (const [k] of page) models.push(modelView((await ctx.store.getRecord<ModelEntry>(k))!));
      return { models, total: all.length, limit, offset, has_more: offset + page.length < all.length };
    });
  });
  routes.get('/api/v1/models/registry/:id', (req) =>
    s.query.run(plugin, async (ctx) => {
      const e = await ctx.store.getRecord<ModelEntry>(modelPath(req.params.id!));
      if (!e) throw notFound(`no model registry entry ${req.params.id}`);
      return modelView(e);
    }),
    { proves: (req) => [stateKey(plugin, modelPath(req.params.id!))] },
  );
}
