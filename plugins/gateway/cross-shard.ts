import { badRequest, notFound, sha3Hex0x } from '../../kernel/sdk.js';
import { isObject, type NodeAnswer } from './node-client.js';
import type { NodeReads } from './node-reads.js';
import type { ShardRouter } from './shard-router.js';
import { shardEntry } from './shards.js';

/** The cross-shard relay routes (decisions.md §72–§77), served by the xshard plugin on every node. */
export const CROSS_SHARD_PATHS = {
  commit: '/api/v1/cross-shard/commit',
  ack: '/api/v1/cross-shard/ack',
  headers: '/api/v1/cross-shard/headers',
  queue: '/api/v1/cross-shard/queue',
  clients: '/api/v1/cross-shard/clients',
  transfer: '/api/v1/cross-shard/transfers/:id',
  transferProof: '/api/v1/cross-shard/transfers/:id/proof',
  receipt: '/api/v1/cross-shard/receipts/:source_shard/:id',
  receiptProof: '/api/v1/cross-shard/receipts/:source_shard/:id/proof',
} as const;

/**
 * decisions.md §73: the reads the gateway asks every shard for (a transaction or a lock lives on
 * the shard that holds it, and a hash does not say which), answering the first 200, else 404.
 */
export const EVERY_SHARD_READS: ReadonlySet<string> = new Set(['/api/v1/transactions/:hash', CROSS_SHARD_PATHS.transfer, CROSS_SHARD_PATHS.transferProof, CROSS_SHARD_PATHS.receipt, CROSS_SHARD_PATHS.receiptProof]);

/** The body field each relay submission is routed by (§73): a commit to the lock's destination, an ack to the receipt's source. */
const ROUTED_BY: Readonly<Record<string, readonly [string, string]>> = {
  [CROSS_SHARD_PATHS.commit]: ['lock', 'dest_shard'],
  [CROSS_SHARD_PATHS.ack]: ['receipt', 'source_shard'],
};

/**
 * The shard a relay submission goes to, or undefined for a path routed another way. A body
 * without the field, or naming no shard of this network, is refused with 400 as the node would
 * refuse its shape (§76: body shape first).
 */
export function submissionShard(path: string, body: unknown, shardCount: number): number | undefined {
  const by = ROUTED_BY[path];
  if (by === undefined) return undefined;
  const [record, field] = by;
  const holder = isObject(body) ? body[record] : undefined;
  const shard = isObject(holder) ? holder[field] : undefined;
  if (shard === undefined) throw badRequest(`${record}.${field} is required: the body is a ${record} bundle {${record}, proof} (decisions.md §75)`);
  if (!Number.isSafeInteger(shard) || (shard as number) < 0) throw badRequest(`${record}.${field} must be a shard number (an integer ≥ 0)`);
  if ((shard as number) >= shardCount) throw badRequest(`${record}.${field} ${String(shard)} is not a shard of this network (n_shards ${shardCount})`);
  return shard as number;
}

/**
 * decisions.md §73: the shard a read that names no address asks, from `?shard=` (default 0); a
 * value that is not an integer below `n_shards` is refused with 400.
 */
export function shardQuery(query: URLSearchParams, shardCount: number): number {
  const raw = query.get('shard');
  if (raw === null) return 0;
  if (!/^\d{1,9}$/.test(raw) || Number(raw) >= shardCount) throw badRequest(`query parameter shard: "${raw}" is not a shard of this network: expected an integer from 0 to ${shardCount - 1} (n_shards ${shardCount})`);
  return Number(raw);
}

/** The first shard's 200 for `pathAndQuery`, in shard order, else 404; an unreachable shard is passed over, all unreachable is the 503 of the last. */
export async function firstFound(reads: NodeReads, router: ShardRouter, pathAndQuery: string): Promise<NodeAnswer> {
  const answers = await Promise.allSettled(Array.from({ length: router.shardCount }, (_, shard) => reads.getOnShard(shard, pathAndQuery)));
  for (const a of answers) if (a.status === 'fulfilled' && a.value.status === 200) return a.value;
  const refused = answers.find((a): a is PromiseFulfilledResult<NodeAnswer> => a.status === 'fulfilled' && a.value.status !== 404);
  if (refused) return refused.value; // a 400 for a malformed id reads the same on every shard
  if (answers.every((a) => a.status === 'rejected')) throw (answers[answers.length - 1] as PromiseRejectedResult).reason;
  throw notFound(`no shard holds ${pathAndQuery.split('?')[0]} (asked all ${router.shardCount})`);
}

/**
 * decisions.md §77: the queue of `?shard=`, or, without it, every shard's list in shard order
 * with `total` their sum. `limit` and `offset` page that concatenation (§20), not each shard: every
 * shard is asked once as the client asked (it judges the query and tells its total and the
 * paging it applied), then the page is read from the shards it spans.
 */
export async function mergedQueue(reads: NodeReads, router: ShardRouter, query: URLSearchParams): Promise<NodeAnswer> {
  const pathOf = (q: URLSearchParams): string => `${CROSS_SHARD_PATHS.queue}${q.toString() ? `?${q}` : ''}`;
  if (query.has('shard') || router.shardCount === 1) return reads.getOnShard(shardQuery(query, router.shardCount), pathOf(query));
  const answers = await Promise.all(Array.from({ length: router.shardCount }, (_, shard) => reads.getOnShard(shard, pathOf(query))));
  const refused = answers.find((a) => a.status !== 200 || !isObject(a.body));
  if (refused) return refused;
  const bodies = answers.map((a) => a.body as Record<string, unknown>);
  const totals = bodies.map((b) => (typeof b.total === 'number' ? b.total : 0));
  const total = totals.reduce((sum, t) => sum + t, 0);
  const first = bodies[0]!;
  const limit = typeof first.limit === 'number' ? first.limit : 0;
  const offset = typeof first.offset === 'number' ? first.offset : 0;
  const transfers: unknown[] = [];
  let skip = offset;
  for (let shard = 0; shard < router.shardCount && transfers.length < limit; shard++) {
    const t = totals[shard]!;
    if (skip >= t) {
      skip -= t;
      continue;
    }
    const want = Math.min(limit - transfers.length, t - skip);
    const q = new URLSearchParams(query);
    q.set('offset', String(skip));
    q.set('limit', String(want));
    // The answer in hand starts at the client's offset and holds up to `limit` rows: it is this slice when that is where the slice starts.
    const page = skip === offset ? answers[shard]! : await reads.getOnShard(shard, pathOf(q));
    if (page.status !== 200 || !isObject(page.body)) return page;
    const rows = (page.body as Record<string, unknown>).transfers;
    if (Array.isArray(rows)) transfers.push(...rows.slice(0, want));
    skip = 0;
  }
  return { status: 200, body: { transfers, total, limit, offset, has_more: offset + transfers.length < total } };
}

/**
 * decisions.md §77's global root: `shard_roots[0]` with one shard, else `0x` SHA3-256 of
 * `ch-global-root-v1|<n>|<h_0>|<root_0>|…` in shard order; null while any entry is null.
 */
export function globalRoot(roots: ReadonlyArray<string | null>, heights: ReadonlyArray<number | null>): string | null {
  if (roots.some((r) => r === null) || heights.some((h) => h === null)) return null;
  if (roots.length === 1) return roots[0]!;
  return sha3Hex0x(`ch-global-root-v1|${roots.length}|${roots.map((r, s) => `${heights[s]}|${r}`).join('|')}`);
}

/**
 * GET /api/v1/state/root at a gateway with a shard map (§77): every shard's head root and height,
 * each from that shard's own nodes (its `/shards` entry), `height` = `root_height` the lowest of
 * those known, and the global root over them. An unreachable shard leaves its entries and the global
 * root null, so one dead shard does not hide the others' roots.
 */
export async function assembledStateRoot(reads: NodeReads, router: ShardRouter): Promise<Record<string, unknown>> {
  const entries = await Promise.all(Array.from({ length: router.shardCount }, (_, shard) => shardEntry(reads, shard)));
  const roots = entries.map((e) => (typeof e.state_root === 'string' && e.error === undefined ? e.state_root : null));
  const heights = entries.map((e, s) => (roots[s] !== null && typeof e.height === 'number' ? e.height : null));
  const known = heights.filter((h): h is number => h !== null);
  // As a node fills only its own entry and takes the lowest of those it has (§77), the lowest known.
  const lowest = known.length > 0 ? Math.min(...known) : null;
  return { n_shards: router.shardCount, shard_roots: roots, shard_heights: heights, height: lowest, root_height: lowest, global_root: globalRoot(roots, heights) };
}
