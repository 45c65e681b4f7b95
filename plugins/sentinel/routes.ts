import { Value } from '@sinclair/typebox/value';
import { badRequest, pageOf, readParams, type NodeServices, type RouteTable } from '../../kernel/sdk.js';
import { fraction, score, type Model } from './model.js';
import { heldView } from './policy.js';
import { HeldListParams, ScoreRequestSchema } from './schemas.js';
import { byAddressPrefix, heldPath, trustPrefix, type HeldTransfer, type TrustEntry } from './store.js';

/** Read routes and the unsigned scorer (part 1, "AI and models" and "Sentinel trust list" endpoint tables). */
export function sentinelRoutes(routes: RouteTable, s: NodeServices, plugin: string, model: Model): void {
  routes.post('/api/v1/sentinel/score', (req) => {
    const body = req.body;
    if (!Value.Check(ScoreRequestSchema, body)) {
      const first = [...Value.Errors(ScoreRequestSchema, body)][0];
      throw badRequest(`score request: ${first ? `${first.path || 'body'} ${first.message}` : 'invalid body'}`, 'fields: value, gas_price, nonce, last_nonce, balance, tx_count_last_10, recipient_tx_count (non-negative integers), is_self_transfer (boolean)');
    }
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

  routes.get('/api/v1/held/:address', (req) => {
    const { address } = readParams(HeldListParams, req.params);
    const { limit, offset } = pageOf(req.query, 100, 100);
    return s.query.run(plugin, async (ctx) => {
      const markers = await ctx.store.scan(byAddressPrefix(address));
      const page = markers.slice(offset, offset + limit);
      const held = [];
      for (const [key] of page) {
        const h = await ctx.store.getRecord<HeldTransfer>(heldPath(key.slice(key.lastIndexOf('/') + 1)));
        if (h) held.push(heldView(h));
      }
      return { address, held, total: markers.length, limit, offset, has_more: offset + page.length < markers.length };
    });
  });

  routes.get('/api/v1/trust/:owner', (req) => {
    const { limit, offset } = pageOf(req.query, 100, 100);
    return s.query.run(plugin, async (ctx) => {
      const all = await ctx.store.scan(trustPrefix(req.params.owner!));
      const page = all.slice(offset, offset + limit);
      const trusted = [];
      for (const [key] of page) {
        const t = await ctx.store.getRecord<TrustEntry>(key);
        if (t) trusted.push({ ...t, active: t.active_from <= ctx.height + 1 });
      }
      return { owner: req.params.owner, trusted, total: all.length, limit, offset, has_more: offset + page.length < all.length };
    });
  });
}
