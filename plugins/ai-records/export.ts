import { Type } from '@sinclair/typebox';
import { timingSafeEqual } from 'node:crypto';
import { badRequest, defineRoute, stringify, streamReply, unauthorized, type ChainError, type ChainHistory, type NodeServices, type RouteTable, type RpcRequest } from '../../kernel/sdk.js';
import { entryView, logCount, type LogEntry } from './log.js';
import { ExportQuery } from './schemas.js';
import { logEntries } from './store.js';

/**
 * Training-data export (part 1 "AI and models"): `GET /api/v1/ai/export/{blocks,txs,validators,oracle}`
 * as JSON Lines (`application/x-ndjson`), one record per line in ascending height (decisions.md
 * §37), over `from`..`to` (block heights, inclusive; default the whole chain). Streamed: one
 * block (or 500 log entries) is read at a time and written once the client took the previous
 * lines, so a node's memory stays flat however long the range.
 */
export const EXPORT_KINDS = ['blocks', 'txs', 'validators', 'oracle'] as const;
export type ExportKind = (typeof EXPORT_KINDS)[number];

/** What an export reads: committed blocks and the decision log. */
export interface ExportSource extends Pick<ChainHistory, 'head' | 'block' | 'transactions'> {
  /** Log entries with ids in [fromId, fromId + count), as stored. */
  oracle(fromId: number, count: number): Promise<LogEntry[]>;
  /** How many log entries there are (ids run from 1). */
  oracleCount(): Promise<number>;
}

/**
 * Id of the first log entry at or above `height`, by bisection: entries are appended block by
 * block, so heights never fall as ids rise, and an export of a late range starts there instead of
 * reading the log from its first entry (log2 of the log's length reads).
 */
async function firstOracleId(src: ExportSource, height: number): Promise<number> {
  let lo = 1;
  let hi = (await src.oracleCount()) + 1;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    const e = (await src.oracle(mid, 1))[0];
    if (e === undefined || e.height >= height) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

export interface HeightRange {
  readonly from: number;
  readonly to: number;
}

/** Lines flushed together: a chunk per this many records, so a socket write is not one per line. */
const LINES_PER_CHUNK = 64;

export async function* exportLines(kind: ExportKind, src: ExportSource, range: HeightRange): AsyncGenerator<string> {
  let buf: string[] = [];
  const flush = (): string => {
    const out = buf.join('');
    buf = [];
    return out;
  };
  const line = (record: unknown): void => void buf.push(stringify(record) + '\n');
  if (kind === 'oracle') {
    for (let id = await firstOracleId(src, range.from); ; id += 500) {
      const entries = await src.oracle(id, 500);
      for (const e of entries) if (e.height >= range.from && e.height <= range.to) line(entryView(e));
      if (buf.length > 0) yield flush();
      if (entries.length < 500 || entries[entries.length - 1]!.height > range.to) return;
    }
  }
  for (let h = range.from; h <= range.to; h++) {
    const b = await src.block(h);
    if (!b) continue;
    if (kind === 'blocks') line(b);
    else if (kind === 'validators') line({ height: h, proposer: b.proposer, round: b.round, timestamp: b.timestamp });
    else for (const tx of await src.transactions(h)) line(tx);
    if (buf.length >= LINES_PER_CHUNK) yield flush();
  }
  if (buf.length > 0) yield flush();
}

/** The four export routes, declared (their answer is JSON Lines, streamed). */
export const exportRoutesDeclared = EXPORT_KINDS.map((kind) =>
  defineRoute({
    method: 'GET',
    path: `/api/v1/ai/export/${kind}`,
    summary: `${kind === 'oracle' ? 'the decision log' : kind === 'txs' ? 'committed transactions' : kind === 'validators' ? "each block's proposer, round and timestamp" : 'committed blocks'} over a height range, as JSON Lines in ascending height`,
    query: ExportQuery,
    produces: 'application/x-ndjson; charset=utf-8',
    responses: { 200: Type.String({ description: 'one JSON record per line' }), 400: 'from below 1, or to below from', 401: 'AI_EXPORT_TOKEN is set and the request does not carry it' },
  }),
);

/** `Authorization: Bearer <AI_EXPORT_TOKEN>` when the variable is set (part 2 "Other access controls" 1). */
export function checkExportToken(req: RpcRequest, token: string | undefined): void {
  const refused = exportTokenRefusal(req, token);
  if (refused) throw refused;
}

function exportTokenRefusal(req: RpcRequest, token: string | undefined): ChainError | undefined {
  if (token === undefined || token === '') return undefined;
  const header = req.headers['authorization'];
  const m = typeof header === 'string' ? /^Bearer (.+)$/.exec(header) : null;
  const given = Buffer.from(m?.[1] ?? '', 'utf8');
  const want = Buffer.from(token, 'utf8');
  if (m === null || given.length !== want.length || !timingSafeEqual(given, want)) {
    return unauthorized('the AI export requires AI_EXPORT_TOKEN', 'send the header Authorization: Bearer <AI_EXPORT_TOKEN>');
  }
  return undefined;
}

export function exportRoutes(routes: RouteTable, s: NodeServices, plugin: string): void {
  const source: ExportSource = {
    head: () => s.history.head(),
    block: (h) => s.history.block(h),
    transactions: (h) => s.history.transactions(h),
    oracle: (fromId, count) =>
      s.query.run(plugin, async (ctx) => {
        const n = await logCount(ctx.store);
        const out: LogEntry[] = [];
        for (let id = fromId; id < fromId + count && id <= n; id++) out.push((await logEntries.get(ctx.store, id))!);
        return out;
      }),
    oracleCount: () => s.query.run(plugin, (ctx) => logCount(ctx.store)),
  };
  EXPORT_KINDS.forEach((kind, i) => {
    routes.serve(
      exportRoutesDeclared[i]!,
      (req) => {
        const head = source.head();
        const from = req.query.from ?? 1;
        const to = Math.min(req.query.to ?? head, head);
        if (from < 1) throw badRequest('from starts at 1');
        if (req.query.to !== undefined && to < from) throw badRequest(`to (${to}) is below from (${from})`);
        return streamReply(exportLines(kind, source, { from, to }), { contentType: 'application/x-ndjson; charset=utf-8' });
      },
      // The token is judged before the query, so a client without it learns nothing else.
      { refuse: (raw) => exportTokenRefusal(raw, process.env.AI_EXPORT_TOKEN) },
    );
  });
}
