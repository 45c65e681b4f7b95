import { formatCoin, jsonRecord, pageOf, readParams, type NodeServices, type ReadContext, type RouteTable } from '../../kernel/sdk.js';
import { SessionListParams } from './schemas.js';
import { grantStatus } from './limits.js';
import { grantsPrefix, type SessionGrant } from './store.js';

const codec = jsonRecord<SessionGrant>();

/** A grant on the wire: part 1's Session key grant resource, `spent` and `*_human` beside each amount, and its status for the next block. */
export async function grantView(ctx: Pick<ReadContext, 'accounts' | 'read'>, g: SessionGrant, nextHeight: number): Promise<Record<string, unknown>> {
  return {
    account: g.account,
    session_pk: g.session_pk,
    scope: g.scope,
    cap: g.cap,
    cap_human: formatCoin(g.cap),
    expiry_block: g.expiry_block,
    spent: g.spent,
    spent_human: formatCoin(g.spent),
    status: await grantStatus(ctx, g, nextHeight),
    granted_height: g.granted_height,
    revoked_height: g.revoked_height,
  };
}

/** Every grant of an account, in key-id order (stable across nodes), paged as decisions.md §20 and §34 say. */
export async function listGrants(ctx: ReadContext, account: string): Promise<SessionGrant[]> {
  return (await ctx.store.scan(grantsPrefix(account))).map(([, v]) => codec.decode(v));
}

export function sessionRoutes(routes: RouteTable, s: NodeServices, plugin: string): void {
  routes.get('/api/v1/session/list/:account', (req) => {
    const { account } = readParams(SessionListParams, req.params);
    const { limit, offset } = pageOf(req.query, 100, 100);
    return s.query.run(plugin, async (ctx) => {
      const all = await listGrants(ctx, account);
      const page = all.slice(offset, offset + limit);
      const grants = [];
      for (const g of page) grants.push(await grantView(ctx, g, ctx.height + 1));
      return { account, grants, total: all.length, limit, offset, has_more: offset + page.length < all.length };
    });
  });
}
