import { Type } from '@sinclair/typebox';
import { accountStateKey, defineRoute, formatCoin, isAddress, pageAnswer, pageQuery, toPage, type NodeServices, type RouteTable } from '../../kernel/sdk.js';
import { poolAddress, pays } from './store.js';

/** Any text: the pool of what is no address holds nothing, and it sponsors nobody. */
const SponsorParams = Type.Object({ address: Type.String({ minLength: 1, description: 'the sponsor' }) });

export const poolRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/sponsor/:address',
  summary: "the balance of a sponsor's fee pool (decisions.md §34: exactly address, balance, balance_human)",
  params: SponsorParams,
  responses: { 200: Type.Object({ address: Type.String(), balance: Type.Integer({ minimum: 0, description: 'ucoin' }), balance_human: Type.String() }) },
  // decisions.md §84: the balance is the pool account's.
  proves: (req) => [accountStateKey(poolAddress(req.params.address))],
});

export const beneficiariesRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/sponsor/:address/beneficiaries',
  summary: 'whom a sponsor\'s pool pays for, by beneficiary address (an addition to part 1)',
  params: SponsorParams,
  query: pageQuery({ default: 100, cap: 100 }),
  responses: {
    200: Type.Object({
      address: Type.String(),
      pool: Type.String({ description: 'the pool account' }),
      ...pageAnswer('beneficiaries', Type.Object({ beneficiary: Type.String(), session_pk: Type.Union([Type.String(), Type.Null()]), height: Type.Integer({ minimum: 0 }) })).properties,
    }),
  },
});

/** The routes the plugin lists in its definition, for the gateway to forward under these declarations (part 1: served by both). */
export const SPONSOR_ROUTES = [poolRoute, beneficiariesRoute] as const;

export function sponsorRoutes(routes: RouteTable, s: NodeServices, plugin: string): void {
  routes.serve(poolRoute, (req) =>
    s.query.run(plugin, async (ctx) => {
      const balance = (await ctx.accounts.get(poolAddress(req.params.address))).balance;
      return { address: req.params.address, balance, balance_human: formatCoin(balance) };
    }),
  );
  routes.serve(beneficiariesRoute, (req) => {
    const { limit, offset } = toPage(req.query);
    const sponsor = req.params.address;
    return s.query.run(plugin, async (ctx) => {
      const all = isAddress(sponsor) ? (await pays.scan(ctx.store, { prefix: [sponsor] })).map((e) => e.value) : [];
      const page = all.slice(offset, offset + limit);
      return {
        address: sponsor,
        pool: poolAddress(sponsor),
        beneficiaries: page.map((b) => ({ beneficiary: b.beneficiary, session_pk: b.session_pk, height: b.height })),
        total: all.length,
        limit,
        offset,
        has_more: offset + page.length < all.length,
      };
    });
  });
}
