import { badRequest } from '../errors.js';

export interface Page {
  limit: number;
  offset: number;
}

function intParam(query: URLSearchParams, name: string): number | undefined {
  const raw = query.get(name);
  if (raw === null || raw === '') return undefined;
  if (!/^\d{1,9}$/.test(raw)) throw badRequest(`${name} must be a non-negative integer, got "${raw}"`);
  return Number(raw);
}

/**
 * `limit` (capped, not refused, above the endpoint's maximum), `offset`, and `page` (1-based,
 * used when offset is absent) as part 2 "Pagination caps" says.
 */
export function pageOf(query: URLSearchParams, defaultLimit: number, cap: number): Page {
  let limit = intParam(query, 'limit') ?? defaultLimit;
  if (limit < 1) throw badRequest('limit must be at least 1');
  limit = Math.min(limit, cap);
  const offset = intParam(query, 'offset');
  const page = intParam(query, 'page');
  if (page !== undefined && page < 1) throw badRequest('page starts at 1');
  return { limit, offset: offset ?? (page !== undefined ? (page - 1) * limit : 0) };
}

/**
 * The page a query read with a schema's paging fields asks for (`pagingFields` in
 * read-schemas.ts: `limit` already defaulted and capped), `page` standing for an absent `offset`.
 */
export function pageFrom(q: { readonly limit?: number; readonly offset?: number; readonly page?: number }): Page {
  const limit = q.limit;
  if (limit === undefined) throw new Error('pageFrom: no limit (the paging fields default it)');
  return { limit, offset: q.offset ?? (q.page !== undefined ? (q.page - 1) * limit : 0) };
}

/** One page of a list already in its order, shaped as decisions.md §20 says: `{<key>: [...], total, limit, offset, has_more}`. */
export function listPage<T>(key: string, all: readonly T[], limit: number, offset: number): Record<string, unknown> {
  const items = all.slice(offset, offset + limit);
  return { [key]: items, total: all.length, limit, offset, has_more: offset + items.length < all.length };
}

/**
 * The same shape for a page read on its own (a bounded scan) from a list whose size is kept apart
 * (a count record): a route answers without holding the whole list.
 */
export function countedPage<T>(key: string, rows: readonly T[], total: number, limit: number, offset: number): Record<string, unknown> {
  return { [key]: rows, total, limit, offset, has_more: offset + rows.length < total };
}
