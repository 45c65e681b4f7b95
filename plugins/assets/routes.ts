import { Type, type Static } from '@sinclair/typebox';
import { badRequest, countedPage, defineRoute, isAddress, notFound, pageQuery, toPage, type NodeServices, type QueryContext, type ReadonlyStore, type RouteTable } from '../../kernel/sdk.js';
import { countOf, denominationOf, listOf, type Activity, type Asset } from './ledger.js';
import { liquidityToRemove, quoteAlone, swapFees } from './math.js';
import { PARAMS } from './params.js';
import { symbolProblem, type Pool } from './rules.js';
import { ActivityList, AssetList, AssetView, BalanceList, CheckSymbolAnswer, PoolList, PoolView, PositionList, QuoteAnswer, TransactionList, WindowAnswer } from './schemas.js';
import { activity, activityByAddress, activityByKind, activityByPool, activityByPoolKind, ASSET_ID_RE, assets, balances, exchangeBalances, EXCHANGE_ASSET_RE, issueOrder, issuerAssets, pools, poolsByAsset, positions, symbols } from './store.js';
import { humanAmount, type Denomination } from './units.js';

/**
 * The read routes of decisions.md §55–61, declared (`defineRoute`) and listed in the plugin's
 * definition so the gateway proxies each one. Lists follow §20 (`total`, `limit`, `offset`,
 * `has_more`; default 20, cap 100) and are read one page at a time with a bounded scan, their
 * size kept in a count record written with their entries.
 */
const HASH_RE = /^0x[0-9a-f]{64}$/;
const Addr = Type.Object({ addr: Type.String({ minLength: 1, maxLength: 128 }) });
const PAGE = { default: 20, cap: 100 } as const;
const KINDS = ['dex_deposit', 'dex_withdraw', 'create_pool', 'add_liquidity', 'remove_liquidity', 'swap'];

export const assetListRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/assets',
  summary: 'issued assets, oldest issue first, then by id (§55); `issuer` filters',
  query: pageQuery(PAGE, { issuer: Type.Optional(Type.String({ maxLength: 128, description: 'only this issuer\'s assets' })) }),
  responses: { 200: AssetList },
});

export const checkSymbolRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/assets/check-symbol',
  summary: 'whether a ticker is valid and free (§55)',
  query: Type.Object({ symbol: Type.String({ maxLength: 64, description: 'the ticker to check' }) }),
  responses: { 200: CheckSymbolAnswer },
});

export const assetRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/assets/:id',
  summary: 'one asset (§55); ucoin is the native coin, not an issued asset (404)',
  params: Type.Object({ id: Type.String({ maxLength: 128 }) }),
  responses: { 200: AssetView, 404: 'no asset has this id' },
  proves: (req) => (ASSET_ID_RE.test(req.params.id) ? [assets.stateKey(req.params.id)] : []),
});

export const assetBalancesRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/assets/balances/:addr',
  summary: 'main balances of issued assets, non-zero, by asset_id (§57)',
  params: Addr,
  query: pageQuery(PAGE),
  responses: { 200: BalanceList, 400: 'not a chain address' },
});

export const exchangeBalancesRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/dex/balances/:addr',
  summary: 'exchange balances, ucoin included, non-zero, by asset_id (§57)',
  params: Addr,
  query: pageQuery(PAGE),
  responses: { 200: BalanceList, 400: 'not a chain address' },
});

export const poolListRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/dex/pools',
  summary: 'pools by id (§58); `asset` filters',
  query: pageQuery(PAGE, { asset: Type.Optional(Type.String({ maxLength: 66, description: 'only pools of this asset (an id, or ucoin)' })) }),
  responses: { 200: PoolList },
});

export const poolRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/dex/pools/:id',
  summary: 'one pool (§58), with its last batch',
  params: Type.Object({ id: Type.String({ maxLength: 128 }) }),
  responses: { 200: PoolView, 404: 'no pool has this id' },
  proves: (req) => (HASH_RE.test(req.params.id) ? [pools.stateKey(req.params.id)] : []),
});

export const positionsRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/dex/positions/:addr',
  summary: 'liquidity positions, non-zero, by pool id, with what the shares are worth (§61)',
  params: Addr,
  query: pageQuery(PAGE),
  responses: { 200: PositionList, 400: 'not a chain address' },
});

export const quoteRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/dex/quote',
  summary: 'the price of a swap alone in a batch at committed reserves (§60)',
  query: Type.Object({
    pool_id: Type.String({ maxLength: 128 }),
    asset_in: Type.String({ maxLength: 66 }),
    amount_in: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }),
  }),
  responses: { 200: QuoteAnswer, 400: 'a missing or non-integer parameter, or an asset not of the pool', 404: 'no pool has this id' },
});

export const windowRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/dex/window',
  summary: "the open batch window: swaps waiting in this node's mempool per pool (node-local, §60)",
  query: Type.Object({ pool_id: Type.Optional(Type.String({ maxLength: 128 })) }),
  responses: { 200: WindowAnswer },
});

export const activityRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/dex/activity/:addr',
  summary: "an address's exchange activity, newest height first (§61)",
  params: Addr,
  query: pageQuery(PAGE),
  responses: { 200: ActivityList, 400: 'not a chain address' },
});

export const transactionsRoute = defineRoute({
  method: 'GET',
  path: '/api/v1/dex/transactions',
  summary: 'every address\'s exchange activity, newest height first (§61); `pool_id`, `kind` filter',
  query: pageQuery(PAGE, { pool_id: Type.Optional(Type.String({ maxLength: 128 })), kind: Type.Optional(Type.String({ maxLength: 32 })) }),
  responses: { 200: TransactionList, 400: 'an unknown kind' },
});

export const ASSET_ROUTES = [assetListRoute, checkSymbolRoute, assetRoute, assetBalancesRoute, exchangeBalancesRoute, poolListRoute, poolRoute, positionsRoute, quoteRoute, windowRoute, activityRoute, transactionsRoute];

export function assetView(a: Asset): Static<typeof AssetView> & Asset {
  const d: Denomination = a;
  return { ...a, supply_human: humanAmount(a.supply, a.id, d), max_supply_human: humanAmount(a.max_supply, a.id, d), burned_human: humanAmount(a.burned, a.id, d) } as never;
}

async function poolView(ctx: QueryContext, p: Pool): Promise<Record<string, unknown>> {
  const [dx, dy] = [await denominationOf(ctx.store, p.asset_x), await denominationOf(ctx.store, p.asset_y)];
  return {
    ...p,
    reserve_x_human: humanAmount(p.reserve_x, p.asset_x, dx!),
    reserve_y_human: humanAmount(p.reserve_y, p.asset_y, dy!),
    lp_fee_bps: Number(await ctx.params.get(PARAMS.lpFee)),
    protocol_fee_bps: Number(await ctx.params.get(PARAMS.protocolFee)),
  };
}

/** The denominations of the assets a page names, each read once. */
function denominations(store: ReadonlyStore): (asset: string) => Promise<Denomination> {
  const seen = new Map<string, Promise<Denomination>>();
  return (asset) => {
    let d = seen.get(asset);
    if (d === undefined) {
      d = denominationOf(store, asset).then((x) => x ?? { symbol: '?', decimals: 0 });
      seen.set(asset, d);
    }
    return d;
  };
}

/** An activity record with a `*_human` beside each amount, in the asset it counts. */
async function activityView(r: Activity, of: (asset: string) => Promise<Denomination>, pool: (id: string) => Promise<Pool | undefined>): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = { ...r };
  const human = async (field: keyof Activity, asset: string | undefined): Promise<void> => {
    const v = r[field];
    if (typeof v === 'bigint' && asset !== undefined) out[`${field}_human`] = humanAmount(v, asset, await of(asset));
  };
  await human('amount', r.asset_id);
  await human('amount_in', r.asset_in);
  await human('fee', r.asset_in);
  await human('protocol_fee', r.asset_in);
  await human('amount_out', r.asset_out);
  await human('min_out', r.asset_out);
  if (r.amount_x !== undefined && r.pool_id !== undefined) {
    const p = await pool(r.pool_id);
    await human('amount_x', p?.asset_x);
    await human('amount_y', p?.asset_y);
  }
  return out;
}

function address(addr: string): string {
  if (!isAddress(addr)) throw badRequest(`${JSON.stringify(addr)} is not a chain address`);
  return addr;
}

/** One page of a list kept in key order: the rows up to offset + limit, the page after the offset. */
function page<T>(rows: readonly T[], offset: number): T[] {
  return rows.slice(offset);
}

export function serveAssetRoutes(routes: RouteTable, s: NodeServices, plugin: string): void {
  const run = <T>(fn: (ctx: QueryContext) => Promise<T>): Promise<T> => s.query.run(plugin, fn);

  routes.serve(assetListRoute, (req) =>
    run(async (ctx) => {
      const { limit, offset } = toPage(req.query);
      const issuer = req.query.issuer;
      if (issuer !== undefined && !isAddress(issuer)) throw badRequest(`issuer: ${JSON.stringify(issuer)} is not a chain address`);
      const keys =
        issuer === undefined
          ? (await issueOrder.scan(ctx.store, { limit: offset + limit })).map((e) => e.key[1])
          : (await issuerAssets.scan(ctx.store, { prefix: [issuer], limit: offset + limit })).map((e) => e.key[2]);
      const rows: unknown[] = [];
      for (const id of page(keys, offset)) rows.push(assetView((await assets.get(ctx.store, id))!));
      return countedPage('assets', rows, await countOf(ctx.store, issuer === undefined ? listOf.assets : listOf.issuer(issuer)), limit, offset);
    }),
  );

  routes.serve(checkSymbolRoute, (req) =>
    run(async (ctx) => {
      const symbol = req.query.symbol;
      const problem = symbolProblem(symbol);
      if (problem !== null) return { symbol, valid: false, available: false, reason: problem };
      const held = await symbols.get(ctx.store, symbol);
      return held === undefined ? { symbol, valid: true, available: true, reason: null } : { symbol, valid: true, available: false, reason: `taken by ${held.id}` };
    }),
  );

  routes.serve(assetRoute, (req) =>
    run(async (ctx) => {
      const a = ASSET_ID_RE.test(req.params.id) ? await assets.get(ctx.store, req.params.id) : undefined;
      if (a === undefined) throw notFound(req.params.id === 'ucoin' ? 'ucoin is the native coin, not an issued asset' : `no asset ${req.params.id}`);
      return assetView(a);
    }),
  );

  const balanceRoute = (route: typeof assetBalancesRoute, store: typeof balances | typeof exchangeBalances, list: (a: string) => string): void =>
    routes.serve(route, (req) =>
      run(async (ctx) => {
        const addr = address(req.params.addr);
        const { limit, offset } = toPage(req.query);
        const of = denominations(ctx.store);
        const rows = [];
        for (const { key, value } of page(await store.scan(ctx.store, { prefix: [addr], limit: offset + limit }), offset)) {
          const asset = key[1];
          const d = await of(asset);
          rows.push({ asset_id: asset, symbol: d.symbol, decimals: d.decimals, amount: value, amount_human: humanAmount(value, asset, d) });
        }
        return { address: addr, ...countedPage('balances', rows, await countOf(ctx.store, list(addr)), limit, offset) };
      }),
    );
  balanceRoute(assetBalancesRoute, balances, listOf.holdings);
  balanceRoute(exchangeBalancesRoute, exchangeBalances, listOf.exchangeHoldings);

  routes.serve(poolListRoute, (req) =>
    run(async (ctx) => {
      const { limit, offset } = toPage(req.query);
      const asset = req.query.asset;
      if (asset !== undefined && !EXCHANGE_ASSET_RE.test(asset)) throw badRequest(`asset: ${JSON.stringify(asset)} is neither an asset id nor ucoin`);
      const ids =
        asset === undefined
          ? (await pools.scan(ctx.store, { limit: offset + limit })).map((e) => e.key[0])
          : (await poolsByAsset.scan(ctx.store, { prefix: [asset], limit: offset + limit })).map((e) => e.key[1]);
      const rows = [];
      for (const id of page(ids, offset)) rows.push(await poolView(ctx, (await pools.get(ctx.store, id))!));
      return countedPage('pools', rows, await countOf(ctx.store, asset === undefined ? listOf.pools : listOf.poolsOf(asset)), limit, offset);
    }),
  );

  routes.serve(poolRoute, (req) =>
    run(async (ctx) => {
      const p = HASH_RE.test(req.params.id) ? await pools.get(ctx.store, req.params.id) : undefined;
      if (p === undefined) throw notFound(`no pool ${req.params.id}`);
      return poolView(ctx, p);
    }),
  );

  routes.serve(positionsRoute, (req) =>
    run(async (ctx) => {
      const addr = address(req.params.addr);
      const { limit, offset } = toPage(req.query);
      const rows = [];
      for (const { key, value: shares } of page(await positions.scan(ctx.store, { prefix: [addr], limit: offset + limit }), offset)) {
        const p = (await pools.get(ctx.store, key[1]))!;
        const worth = liquidityToRemove(shares, p.reserve_x, p.reserve_y, p.total_shares);
        const [dx, dy] = [await denominationOf(ctx.store, p.asset_x), await denominationOf(ctx.store, p.asset_y)];
        rows.push({ pool_id: p.id, asset_x: p.asset_x, asset_y: p.asset_y, shares, total_shares: p.total_shares, amount_x: worth.amountX, amount_y: worth.amountY, amount_x_human: humanAmount(worth.amountX, p.asset_x, dx!), amount_y_human: humanAmount(worth.amountY, p.asset_y, dy!) });
      }
      return countedPage('positions', rows, await countOf(ctx.store, listOf.positions(addr)), limit, offset);
    }),
  );

  routes.serve(quoteRoute, (req) =>
    run(async (ctx) => {
      const { pool_id, asset_in } = req.query;
      const p = HASH_RE.test(pool_id) ? await pools.get(ctx.store, pool_id) : undefined;
      if (p === undefined) throw notFound(`no pool ${pool_id}`);
      if (asset_in !== p.asset_x && asset_in !== p.asset_y) throw badRequest(`asset_in ${asset_in} is not an asset of pool ${p.id} (${p.asset_x}, ${p.asset_y})`);
      const paysX = asset_in === p.asset_x;
      const assetOut = paysX ? p.asset_y : p.asset_x;
      const fees = swapFees(BigInt(req.query.amount_in), await ctx.params.get(PARAMS.lpFee), await ctx.params.get(PARAMS.protocolFee));
      const q = quoteAlone(fees.net, paysX ? p.reserve_x : p.reserve_y, paysX ? p.reserve_y : p.reserve_x);
      const [inD, outD] = [(await denominationOf(ctx.store, asset_in))!, (await denominationOf(ctx.store, assetOut))!];
      // §21: a `*_human` beside each amount; the fees are taken from what is paid in.
      const paidIn = (v: bigint): string => humanAmount(v, asset_in, inD);
      return {
        pool_id: p.id,
        asset_in,
        asset_out: assetOut,
        amount_in: req.query.amount_in,
        amount_in_human: paidIn(BigInt(req.query.amount_in)),
        fee: fees.fee,
        fee_human: paidIn(fees.fee),
        lp_fee: fees.lpFee,
        lp_fee_human: paidIn(fees.lpFee),
        protocol_fee: fees.protocolFee,
        protocol_fee_human: paidIn(fees.protocolFee),
        amount_out: q.amountOut,
        amount_out_human: humanAmount(q.amountOut, assetOut, outD),
        price_impact_bps: q.priceImpactBps,
        height: ctx.height,
      };
    }),
  );

  routes.serve(windowRoute, (req) =>
    run(async (ctx) => {
      const wanted = req.query.pool_id;
      const byPool = new Map<string, { swaps: number; x: bigint; y: bigint; pool: Pool }>();
      for (const { body } of s.chain.pendingOperations('swap')) {
        const id = body.pool_id;
        const amount = body.amount_in;
        if (typeof id !== 'string' || !HASH_RE.test(id) || (wanted !== undefined && id !== wanted) || typeof amount !== 'number') continue;
        const p = await pools.get(ctx.store, id);
        if (p === undefined) continue;
        const row = byPool.get(id) ?? { swaps: 0, x: 0n, y: 0n, pool: p };
        row.swaps++;
        if (body.asset_in === p.asset_x) row.x += BigInt(amount);
        else if (body.asset_in === p.asset_y) row.y += BigInt(amount);
        byPool.set(id, row);
      }
      const of = denominations(ctx.store);
      const pending = [];
      for (const [pool_id, r] of [...byPool.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
        const [dx, dy] = [await of(r.pool.asset_x), await of(r.pool.asset_y)];
        pending.push({ pool_id, swaps: r.swaps, amount_in_x: r.x, amount_in_x_human: humanAmount(r.x, r.pool.asset_x, dx), amount_in_y: r.y, amount_in_y_human: humanAmount(r.y, r.pool.asset_y, dy) });
      }
      return { height: ctx.height, closes_at: ctx.height + 1, max_swaps_per_pool: Number(await ctx.params.get(PARAMS.maxSwaps)), pending };
    }),
  );

  /** Activity records named by the (height, tx hash) keys of one of its lists, as served. */
  const activityRows = async (ctx: QueryContext, keys: ReadonlyArray<readonly [number, string]>): Promise<unknown[]> => {
    const of = denominations(ctx.store);
    const poolCache = new Map<string, Promise<Pool | undefined>>();
    const pool = (id: string): Promise<Pool | undefined> => {
      let p = poolCache.get(id);
      if (p === undefined) poolCache.set(id, (p = pools.get(ctx.store, id)));
      return p;
    };
    const rows = [];
    for (const [height, hash] of keys) rows.push(await activityView((await activity.get(ctx.store, height, hash))!, of, pool));
    return rows;
  };

  routes.serve(activityRoute, (req) =>
    run(async (ctx) => {
      const addr = address(req.params.addr);
      const { limit, offset } = toPage(req.query);
      const keys = page(await activityByAddress.scan(ctx.store, { prefix: [addr], reverse: true, limit: offset + limit }), offset).map((e) => [e.key[1], e.key[2]] as const);
      return countedPage('activity', await activityRows(ctx, keys), await countOf(ctx.store, listOf.activityOf(addr)), limit, offset);
    }),
  );

  routes.serve(transactionsRoute, (req) =>
    run(async (ctx) => {
      const { limit, offset } = toPage(req.query);
      const { pool_id: pool, kind } = req.query;
      if (kind !== undefined && !KINDS.includes(kind)) throw badRequest(`kind: ${JSON.stringify(kind)} is not one of ${KINDS.join(', ')}`);
      if (pool !== undefined && !HASH_RE.test(pool)) throw badRequest(`pool_id: ${JSON.stringify(pool)} is not a pool id`);
      const n = offset + limit;
      let keys: Array<readonly [number, string]>;
      let list: string;
      if (pool !== undefined && kind !== undefined) {
        keys = (await activityByPoolKind.scan(ctx.store, { prefix: [pool, kind], reverse: true, limit: n })).map((e) => [e.key[2], e.key[3]] as const);
        list = listOf.activityOfPoolKind(pool, kind);
      } else if (pool !== undefined) {
        keys = (await activityByPool.scan(ctx.store, { prefix: [pool], reverse: true, limit: n })).map((e) => [e.key[1], e.key[2]] as const);
        list = listOf.activityOfPool(pool);
      } else if (kind !== undefined) {
        keys = (await activityByKind.scan(ctx.store, { prefix: [kind], reverse: true, limit: n })).map((e) => [e.key[1], e.key[2]] as const);
        list = listOf.activityOfKind(kind);
      } else {
        keys = (await activity.scan(ctx.store, { reverse: true, limit: n })).map((e) => [e.key[0], e.key[1]] as const);
        list = listOf.activity;
      }
      return countedPage('transactions', await activityRows(ctx, page(keys, offset)), await countOf(ctx.store, list), limit, offset);
    }),
  );
}

