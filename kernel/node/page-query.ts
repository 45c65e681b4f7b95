import { Type, type TArray, type TBoolean, type TInteger, type TObject, type TOptional, type TProperties, type TSchema } from '@sinclair/typebox';
import type { Page } from './pagination.js';

/** decisions.md §20: a list's default page and the most one page holds (`limit` above it is capped, not refused). */
export interface PageLimits {
  readonly default: number;
  readonly cap: number;
}

type PageProperties = {
  limit: TOptional<TInteger>;
  offset: TOptional<TInteger>;
  page: TOptional<TInteger>;
};

/**
 * The query of a list route (part 2 "Pagination caps", decisions.md §20): `limit` (default and
 * cap as given; above the cap it is capped), `offset`, or `page` (1-based, used when `offset` is
 * absent), beside the route's own filters. Read it with `toPage(req.query)`.
 */
export function pageQuery<E extends TProperties = Record<never, never>>(limits: PageLimits, filters?: E): TObject<PageProperties & E> {
  if (!Number.isSafeInteger(limits.default) || !Number.isSafeInteger(limits.cap) || limits.default < 1 || limits.cap < limits.default) throw new Error('pageQuery: 1 ≤ default ≤ cap');
  const page: PageProperties = {
    limit: Type.Optional(Type.Integer({ minimum: 1, default: limits.default, 'x-cap': limits.cap, description: `records per page: default ${limits.default}, at most ${limits.cap} (a larger limit is capped)` })),
    offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 999_999_999, description: 'records to skip' })),
    page: Type.Optional(Type.Integer({ minimum: 1, maximum: 999_999_999, description: '1-based page, when offset is absent' })),
  };
  return Type.Object({ ...page, ...(filters ?? ({} as E)) }) as TObject<PageProperties & E>;
}

/** The page a validated page query asks for (its `limit` already defaulted and capped by the route). */
export function toPage(q: { readonly limit?: number; readonly offset?: number; readonly page?: number }): Page {
  const limit = q.limit;
  if (limit === undefined) throw new Error('toPage: no limit (a route declared with pageQuery fills its default)');
  return { limit, offset: q.offset ?? (q.page !== undefined ? (q.page - 1) * limit : 0) };
}

/** The schema of a §20 list answer: `{<key>: [item…], total, limit, offset, has_more}`. */
export function pageAnswer<K extends string, I extends TSchema>(key: K, item: I): TObject<{ [P in K]: TArray<I> } & { total: TInteger; limit: TInteger; offset: TInteger; has_more: TBoolean }> {
  return Type.Object({
    [key]: Type.Array(item),
    total: Type.Integer({ minimum: 0 }),
    limit: Type.Integer({ minimum: 1 }),
    offset: Type.Integer({ minimum: 0 }),
    has_more: Type.Boolean(),
  }) as unknown as TObject<{ [P in K]: TArray<I> } & { total: TInteger; limit: TInteger; offset: TInteger; has_more: TBoolean }>;
}
