import { defineRoute, isAddress, toPage, type NodeServices, type RouteTable } from '../../kernel/sdk.js';
import { fraction, score, type Model } from './model.js';
import { heldView } from './policy.js';
import { HeldListAnswer, HeldListParams, ScoreAnswer, ScoreRequestSchema, SentinelListQuery, TrustListAnswer, TrustListParams } from './schemas.js';
import { heldTransfers, holdsByAddress, trustList } from './store.js';

export const scoreRoute = defineRoute({
  method: 'POST',
  path: '/api/v1/sentinel/score',
  summary: 'scores a transfer described by its features with the registered model (signs nothing, writes nothing)',
  body: ScoreRequestSchema,
  responses: { 200: ScoreAnswer },
});

export const heldListRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/held/:address',
  summary: "an address's open holds, as sender or recipient, by transaction hash",
  params: HeldListParams,
  query: SentinelListQuery,
  responses: { 200: HeldListAnswer },
});

export const trustListRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/trust/:owner',
  summary: "an owner's trust list, by recipient, with whether each counts yet",
  params: TrustListParams,
  query: SentinelListQuery,
  responses: { 200: TrustListAnswer },
});

/** The routes the plugin lists in its definition, for the gateway to forward under these declarations (part 1: served by both). */
export const SENTINEL_ROUTES = [scoreRoute, heldListRoute, trustListRoute] as const;

/** Read routes and the unsigned scorer (part 1, "AI and models" and "Sentinel trust list" endpoint tables). */
export function sentinelRoutes(routes: RouteTable, s: NodeServices, plugin: string, model: Model): void {
  routes.serve(scoreRoute, (req) => {
    const body = req.body;
    const n = (x: number | string): bigint => BigInt(x);
    const v = score(model, {
      value: n(body.value),
      gas_price: n(body.gas_price),
      nonce: n(body.nonce),
      last_nonce: n(body.last_nonce),
      balance: n(body.balance),
      tx_count_last_10: n(body.tx_count_last_10),
      recipient_tx_count: n(body.recipient_tx_count),
      is_self_transfer: body.is_self_transfer,
    });
    return { score: fraction(v.scoreBp), anomalous: v.anomalous, category: v.category, model: model.name, version: model.version };
  });

  routes.serve(heldListRoute, (req) => {
    const { address } = req.params;
    const { limit, offset } = toPage(req.query);
    return s.query.run(plugin, async (ctx) => {
      const markers = await holdsByAddress.scan(ctx.store, { prefix: [address] });
      const page = markers.slice(offset, offset + limit);
      const held = [];
      for (const { key } of page) {
        const h = await heldTransfers.get(ctx.store, key[1]);
        if (h) held.push(heldView(h));
      }
      return { address, held, total: markers.length, limit, offset, has_more: offset + page.length < markers.length };
    });
  });

  routes.serve(trustListRoute, (req) => {
    const { owner } = req.params;
    const { limit, offset } = toPage(req.query);
    return s.query.run(plugin, async (ctx) => {
      const all = isAddress(owner) ? await trustList.scan(ctx.store, { prefix: [owner] }) : [];
      const page = all.slice(offset, offset + limit);
      const trusted = page.map(({ value: t }) => ({ ...t, active: t.active_from <= ctx.height + 1 }));
      return { owner, trusted, total: all.length, limit, offset, has_more: offset + page.length < all.length };
    });
  });
}
