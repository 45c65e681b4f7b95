import { accountStateKey, formatCoin, jsonRecord, pageOf, type NodeServices, type RouteTable } from '../../kernel/sdk.js';
import { poolAddress, type Sponsorship } from './store.js';

const codec = jsonRecord<Sponsorship>();

export function sponsorRoutes(routes: RouteTable, s: NodeServices, plugin: string): void {
  // decisions.md §34: exactly address, balance, balance_human.
  routes.get('/api/v1/sponsor/:address', (req) =>
    s.query.run(plugin, async (ctx) => {
      const balance = (await ctx.accounts.get(poolAddress(req.params.address!))).balance;
      return { address: req.params.address, balance, balance_human: formatCoin(balance) };
    }),
    // decisions.md §84: the balance is the pool account's.
    { proves: (req) => [accountStateKey(poolAddress(req.params.address!))] },
  );
  routes.get('/api/v1/sponsor/:address/beneficiaries', (req) => {
    const { limit, offset } = pageOf(req.query, 100, 100);
    return s.query.run(plugin, async (ctx) => {
      const all = (await ctx.store.scan(`pays/${req.params.address}/`)).map(([, v]) => codec.decode(v));
      const page = all.slice(offset, offset + limit);
      return {
        address: req.params.address,
        pool: poolAddress(req.params.address!),
        beneficiaries: page.map((b) => ({ beneficiary: b.beneficiary, session_pk: b.session_pk, height: b.height })),
        total: all.length,
        limit,
        offset,
        has_more: offset + page.length < all.length,
      };
    });
  });
}
