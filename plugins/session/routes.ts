import { Type } from '@sinclair/typebox';
import { defineRoute, formatCoin, isAddress, pageAnswer, pageQuery, toPage, type NodeServices, type ReadContext, type RouteTable } from '../../kernel/sdk.js';
import { SessionListParams } from './schemas.js';
import { grantStatus } from './limits.js';
import { grants, SessionScopeSchema, type SessionGrant } from './store.js';

/** Part 1's Session key grant resource, `spent` and `*_human` beside each amount, and its status for the next block. */
export const GrantViewSchema = Type.Object({
  account: Type.String(),
  session_pk: Type.String(),
  scope: SessionScopeSchema,
  cap: Type.Integer({ minimum: 0, description: 'ucoin' }),
  cap_human: Type.String(),
  expiry_block: Type.Integer({ minimum: 1 }),
  spent: Type.Integer({ minimum: 0, description: 'ucoin' }),
  spent_human: Type.String(),
  status: Type.Union([Type.Literal('active'), Type.Literal('revoked'), Type.Literal('expired'), Type.Literal('ended')], { description: 'for the next block' }),
  granted_height: Type.Integer({ minimum: 0 }),
  revoked_height: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
});

export const sessionListRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/session/list/:account',
  summary: "an account's session key grants, in key-id order, with each one's status for the next block",
  params: SessionListParams,
  query: pageQuery({ default: 100, cap: 100 }),
  responses: { 200: Type.Object({ account: Type.String(), ...pageAnswer('grants', GrantViewSchema).properties }) },
});

/** A grant on the wire. */
export async function grantView(ctx: Pick<ReadContext, 'accounts' | 'methods'>, g: SessionGrant, nextHeight: number): Promise<Record<string, unknown>> {
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

/** Every grant of an account, in key-id order (stable across nodes): at most MAX_GRANTS_PER_ACCOUNT. */
export async function listGrants(ctx: ReadContext, account: string): Promise<SessionGrant[]> {
  return isAddress(account) ? (await grants.scan(ctx.store, { prefix: [account] })).map((e) => e.value) : [];
}

/** The routes the plugin lists in its definition, for the gateway to forward under these declarations (part 1: served by both). */
export const SESSION_ROUTES = [sessionListRoute] as const;

/** Paged as decisions.md §20 and §34 say; `total` counts every grant of the account. */
export function sessionRoutes(routes: RouteTable, s: NodeServices, plugin: string): void {
  routes.serve(sessionListRoute, (req) => {
    const { account } = req.params;
    const { limit, offset } = toPage(req.query);
    return s.query.run(plugin, async (ctx) => {
      const all = await listGrants(ctx, account);
      const page = all.slice(offset, offset + limit);
      const views = [];
      for (const g of page) views.push(await grantView(ctx, g, ctx.height + 1));
      return { account, grants: views, total: all.length, limit, offset, has_more: offset + page.length < all.length };
    });
  });
}
