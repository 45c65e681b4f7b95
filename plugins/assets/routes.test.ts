import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { labelledWallet, makeChain, type Fixture, type Wallet } from '../../test/helpers/chain-fixture.js';
import { signAssetOp } from '../../test/helpers/asset-ops.js';
import { RouteTable, type RpcRequest } from '../../kernel/sdk.js';
import { assetsPlugin } from './index.js';
import { assetId, orderedPair, poolId } from './public.js';
import { isqrt, quoteAlone, swapFees } from './math.js';
import { humanAmount } from './units.js';

/**
 * The read routes of decisions.md §55–61 as a client written from the spec reads them: the
 * answer's fields, orders, filters, `*_human` texts and refusals, on a chain with two assets, a
 * pool, a cleared swap and one still pending. Values come back as the handler returns them
 * (amounts as bigints, which the node writes as JSON integers).
 */
const COIN = 1_000_000n;
const alice = labelledWallet('assets-routes-alice');
const bob = labelledWallet('assets-routes-bob');
const nobody = labelledWallet('assets-routes-nobody');
let nonce = 1_980_000_000_000;
const op = (w: Wallet, name: string, body: Record<string, unknown>) => signAssetOp(w, name, { from: w.address, ...body }, { nonce: ++nonce });

let f: Fixture;
let routes: RouteTable;
let gold = '';
let silver = '';
let pool = '';
let swapHash = '';
let swapHeight = 0;

type Answer = Record<string, unknown>;

function request(method: 'GET', path: string, params: Record<string, string>, query: string): RpcRequest {
  return { method, path, params, query: new URLSearchParams(query), headers: {}, body: undefined, ip: '127.0.0.1' };
}

async function get(path: string, params: Record<string, string> = {}, query = ''): Promise<Answer> {
  const route = routes.list().find((r) => r.method === 'GET' && r.path === path);
  assert.ok(route, `GET ${path} is served`);
  return (await route.handler(request('GET', path, params, query))) as Answer;
}

async function status(path: string, params: Record<string, string> = {}, query = ''): Promise<number> {
  try {
    await get(path, params, query);
    return 200;
  } catch (e: unknown) {
    return (e as { status?: number }).status ?? 500;
  }
}

async function committed(name: string, body: Record<string, unknown>): Promise<{ hash: string; height: number }> {
  const r = await f.chain.admitOperation(name, body, {}, 0);
  const b = await f.block();
  const rec = (await f.chain.queries.getTx(r.tx_hash))!;
  assert.equal(rec.receipt.status, 'confirmed', `${name}: ${rec.receipt.error ?? ''}`);
  return { hash: r.tx_hash, height: b.header.height };
}

before(async () => {
  f = await makeChain({ plugins: [assetsPlugin], accounts: [alice, bob].map((w) => ({ address: w.address, balance: 1_000n * COIN })), genesisParams: { asset_issue_fee: String(10n * COIN) } });
  routes = new RouteTable();
  f.hooks.routes.call(routes);
  // GOLD: 6 decimals, by alice; SILVER: 0 decimals, by bob, one block later.
  await committed('issue_asset', op(alice, 'issue_asset', { name: 'Gold', symbol: 'GOLD', decimals: 6, initial: 1_250_000_000, max_supply: 2_000_000_000, reissuable: false, reissue_unlock_height: 0, issue_nonce: 1 }));
  gold = assetId(alice.address, 'GOLD', 1);
  await committed('issue_asset', op(bob, 'issue_asset', { name: 'Silver', symbol: 'SILVER', decimals: 0, initial: 500, max_supply: 500, reissuable: false, reissue_unlock_height: 0, issue_nonce: 4 }));
  silver = assetId(bob.address, 'SILVER', 4);
  await committed('dex_deposit', op(alice, 'dex_deposit', { asset_id: gold, amount: 300_000_000 }));
  await committed('dex_deposit', op(alice, 'dex_deposit', { asset_id: 'ucoin', amount: 50_000_000 }));
  await committed('create_pool', op(alice, 'create_pool', { asset_x: 'ucoin', asset_y: gold, amount_x: 20_000_000, amount_y: 200_000_000 }));
  pool = poolId(...orderedPair(gold, 'ucoin'));
  const s = await committed('swap', op(alice, 'swap', { pool_id: pool, asset_in: 'ucoin', amount_in: 1_000_000, min_out: 0, deadline_height: 1_000 }));
  swapHash = s.hash;
  swapHeight = s.height;
});

test('check-symbol: valid and free, taken (naming the asset), each broken rule named, 400 without symbol', async () => {
  assert.deepEqual(await get('/api/v1/assets/check-symbol', {}, 'symbol=NEW1'), { symbol: 'NEW1', valid: true, available: true, reason: null });
  assert.deepEqual(await get('/api/v1/assets/check-symbol', {}, 'symbol=GOLD'), { symbol: 'GOLD', valid: true, available: false, reason: `taken by ${gold}` });
  for (const bad of ['gold', 'COIN', 'UCOIN', 'G', '1GOLD', 'ABCDEFGHIJKLM', 'GO-LD']) {
    const a = await get('/api/v1/assets/check-symbol', {}, `symbol=${bad}`);
    assert.equal(a.symbol, bad);
    assert.deepEqual([a.valid, a.available], [false, false], bad);
    assert.equal(typeof a.reason, 'string', bad);
  }
  assert.equal(await status('/api/v1/assets/check-symbol'), 400);
});

test('assets: the record with every field of §55 and its *_human; the list oldest first with the issuer filter; ucoin and unknown ids 404', async () => {
  const a = await get('/api/v1/assets/:id', { id: gold });
  assert.deepEqual(Object.keys(a).sort(), ['burned', 'burned_human', 'decimals', 'id', 'issue_nonce', 'issued_height', 'issuer', 'max_supply', 'max_supply_human', 'name', 'reissuable', 'reissue_unlock_height', 'supply', 'supply_human', 'symbol', 'tx_hash'].sort());
  assert.deepEqual([a.id, a.symbol, a.name, a.decimals, a.issuer, a.supply, a.max_supply, a.burned, a.issue_nonce], [gold, 'GOLD', 'Gold', 6, alice.address, 1_250_000_000n, 2_000_000_000n, a.burned, 1]);
  assert.deepEqual([a.supply_human, a.max_supply_human], ['1250 GOLD', '2000 GOLD']);
  assert.equal((await get('/api/v1/assets/:id', { id: silver })).supply_human, '500 SILVER', '0 decimals: no point');
  assert.equal(await status('/api/v1/assets/:id', { id: 'ucoin' }), 404);
  assert.equal(await status('/api/v1/assets/:id', { id: `0x${'ab'.repeat(32)}` }), 404);
  const list = await get('/api/v1/assets');
  assert.deepEqual((list.assets as Answer[]).map((r) => r.id), [gold, silver], 'oldest issue first; ucoin is not listed');
  assert.deepEqual([list.total, list.limit, list.offset, list.has_more], [2, 20, 0, false]);
  const paged = await get('/api/v1/assets', {}, 'limit=1&offset=1');
  assert.deepEqual([(paged.assets as Answer[]).map((r) => r.id), paged.total, paged.has_more], [[silver], 2, false]);
  const bobs = await get('/api/v1/assets', {}, `issuer=${bob.address}`);
  assert.deepEqual([(bobs.assets as Answer[]).map((r) => r.id), bobs.total], [[silver], 1]);
});

test('balances: main balances of issued assets and exchange balances with ucoin, non-zero rows by asset_id, an empty list for nobody, 400 for a non-address', async () => {
  const main = await get('/api/v1/assets/balances/:addr', { addr: alice.address });
  assert.equal(main.address, alice.address);
  assert.deepEqual(main.balances, [{ asset_id: gold, symbol: 'GOLD', decimals: 6, amount: 950_000_000n, amount_human: '950 GOLD' }]);
  const xs = (await get('/api/v1/dex/balances/:addr', { addr: alice.address })).balances as Answer[];
  assert.deepEqual(xs.map((r) => r.asset_id), [gold, 'ucoin'], 'by asset_id: an issued 0x… id sorts before ucoin');
  assert.deepEqual([xs[1]!.symbol, xs[1]!.decimals, xs[1]!.amount, xs[1]!.amount_human], ['COIN', 6, 29_000_000n, '29 COIN']);
  const none = await get('/api/v1/dex/balances/:addr', { addr: nobody.address });
  assert.deepEqual([none.address, none.balances, none.total, none.has_more], [nobody.address, [], 0, false]);
  assert.equal(await status('/api/v1/assets/balances/:addr', { addr: 'not-an-address' }), 400);
});

test('pools: the record with the fees in force and last_batch of the cleared swap; the list with the asset filter; 404 unknown', async () => {
  const p = await get('/api/v1/dex/pools/:id', { id: pool });
  assert.deepEqual(Object.keys(p).sort(), ['asset_x', 'asset_y', 'created_height', 'creator', 'id', 'last_batch', 'locked_shares', 'lp_fee_bps', 'protocol_fee_bps', 'reserve_x', 'reserve_x_human', 'reserve_y', 'reserve_y_human', 'symbol_x', 'symbol_y', 'total_shares'].sort());
  assert.deepEqual([p.id, p.asset_x, p.asset_y, p.symbol_x, p.symbol_y, p.lp_fee_bps, p.protocol_fee_bps, p.creator, p.locked_shares, p.total_shares], [pool, gold, 'ucoin', 'GOLD', 'COIN', 30, 5, alice.address, 1000n, isqrt(200_000_000n * 20_000_000n)]);
  // One swap paying ucoin (y) alone: price (Y + B)/(X + A) with A = 0.
  const fees = swapFees(1_000_000n, 30n, 5n);
  const out = (fees.net * 200_000_000n) / (20_000_000n + fees.net);
  assert.deepEqual(p.last_batch, { height: swapHeight, swaps: 1, filled: 1, refunded: 0, price_num: 20_000_000n + fees.net, price_den: 200_000_000n });
  assert.deepEqual([p.reserve_x, p.reserve_y], [200_000_000n - out, 20_000_000n + fees.net + fees.lpFee]);
  assert.equal(p.reserve_y_human, `${Number(20_000_000n + fees.net + fees.lpFee) / 1e6} COIN`);
  const list = await get('/api/v1/dex/pools', {}, `asset=${gold}`);
  assert.deepEqual([(list.pools as Answer[]).map((r) => r.id), list.total], [[pool], 1]);
  assert.deepEqual((await get('/api/v1/dex/pools', {}, `asset=${silver}`)).pools, []);
  assert.equal(await status('/api/v1/dex/pools/:id', { id: `0x${'cd'.repeat(32)}` }), 404);
});

test('positions: shares with what they are worth, floor(shares × X / T), non-zero only', async () => {
  const p = await get('/api/v1/dex/pools/:id', { id: pool });
  const rows = (await get('/api/v1/dex/positions/:addr', { addr: alice.address })).positions as Answer[];
  const shares = (p.total_shares as bigint) - 1000n;
  assert.deepEqual(rows, [
    {
      pool_id: pool,
      asset_x: gold,
      asset_y: 'ucoin',
      shares,
      total_shares: p.total_shares,
      amount_x: (shares * (p.reserve_x as bigint)) / (p.total_shares as bigint),
      amount_y: (shares * (p.reserve_y as bigint)) / (p.total_shares as bigint),
      amount_x_human: rows[0]!.amount_x_human,
      amount_y_human: rows[0]!.amount_y_human,
    },
  ]);
  assert.match(rows[0]!.amount_x_human as string, / GOLD$/);
  assert.match(rows[0]!.amount_y_human as string, / COIN$/);
  assert.deepEqual((await get('/api/v1/dex/positions/:addr', { addr: bob.address })).positions, []);
});

test('quote: the swap alone at committed reserves (§60); 400 missing or non-integer, 400 an asset not of the pool, 404 an unknown pool', async () => {
  const p = await get('/api/v1/dex/pools/:id', { id: pool });
  const q = await get('/api/v1/dex/quote', {}, `pool_id=${pool}&asset_in=${gold}&amount_in=5000000`);
  const fees = swapFees(5_000_000n, 30n, 5n);
  const alone = quoteAlone(fees.net, p.reserve_x as bigint, p.reserve_y as bigint);
  const ideal = (fees.net * (p.reserve_y as bigint)) / (p.reserve_x as bigint);
  assert.equal(alone.priceImpactBps, ((ideal - alone.amountOut) * 10_000n) / ideal);
  const human = { amount_in_human: undefined, fee_human: undefined, lp_fee_human: undefined, protocol_fee_human: undefined, amount_out_human: undefined };
  assert.deepEqual(
    { ...q, ...human },
    { pool_id: pool, asset_in: gold, asset_out: 'ucoin', amount_in: 5_000_000, fee: fees.fee, lp_fee: fees.lpFee, protocol_fee: fees.protocolFee, amount_out: (fees.net * (p.reserve_y as bigint)) / ((p.reserve_x as bigint) + fees.net), price_impact_bps: alone.priceImpactBps, height: f.chain.head.height, ...human },
  );
  // §21: each amount's `*_human`, the fees in what is paid in (6-decimal GOLD), the output in COIN.
  const gold6 = (v: bigint): string => humanAmount(v, gold, { symbol: 'GOLD', decimals: 6 });
  assert.deepEqual([q.amount_in_human, q.fee_human, q.lp_fee_human, q.protocol_fee_human], ['5 GOLD', gold6(fees.fee), gold6(fees.lpFee), gold6(fees.protocolFee)]);
  assert.match(q.amount_out_human as string, / COIN$/);
  assert.equal(await status('/api/v1/dex/quote', {}, `pool_id=${pool}&asset_in=${gold}&amount_in=${Number.MAX_SAFE_INTEGER}`), 200, 'every amount up to 2^53 − 1 (§55)');
  assert.equal(await status('/api/v1/dex/quote', {}, `asset_in=${gold}&amount_in=5`), 400, 'pool_id missing');
  assert.equal(await status('/api/v1/dex/quote', {}, `pool_id=${pool}&asset_in=${gold}`), 400, 'amount_in missing');
  assert.equal(await status('/api/v1/dex/quote', {}, `pool_id=${pool}&asset_in=${gold}&amount_in=1.5`), 400, 'amount_in not an integer');
  assert.equal(await status('/api/v1/dex/quote', {}, `pool_id=${pool}&asset_in=${gold}&amount_in=abc`), 400);
  assert.equal(await status('/api/v1/dex/quote', {}, `pool_id=${pool}&asset_in=${silver}&amount_in=5`), 400, 'an asset not of the pool');
  assert.equal(await status('/api/v1/dex/quote', {}, `pool_id=0x${'cd'.repeat(32)}&asset_in=${gold}&amount_in=5`), 404);
});

test("window: the open batch closes at height + 1 and counts this node's pending swaps per pool", async () => {
  const empty = await get('/api/v1/dex/window');
  assert.deepEqual(empty, { height: f.chain.head.height, closes_at: f.chain.head.height + 1, max_swaps_per_pool: 100, pending: [] });
  await f.chain.admitOperation('swap', op(alice, 'swap', { pool_id: pool, asset_in: gold, amount_in: 7_000, min_out: 0, deadline_height: 1_000 }), {}, 0);
  const w = await get('/api/v1/dex/window', {}, `pool_id=${pool}`);
  assert.deepEqual(w.pending, [{ pool_id: pool, swaps: 1, amount_in_x: 7_000n, amount_in_x_human: '0.007 GOLD', amount_in_y: 0n, amount_in_y_human: '0 COIN' }]);
  assert.deepEqual((await get('/api/v1/dex/window', {}, `pool_id=0x${'cd'.repeat(32)}`)).pending, []);
  await f.block();
  assert.deepEqual((await get('/api/v1/dex/window')).pending, [], 'cleared with its block');
});

test('activity and transactions: one record per exchange operation and per cleared swap, newest first, with the fields of §61; kind and pool filters', async () => {
  const act = await get('/api/v1/dex/activity/:addr', { addr: alice.address });
  const rows = act.activity as Answer[];
  assert.deepEqual(rows.map((r) => r.kind), ['swap', 'swap', 'create_pool', 'dex_deposit', 'dex_deposit'], 'newest height first');
  assert.equal(act.total, 5);
  const heights = rows.map((r) => r.height as number);
  assert.deepEqual(heights, [...heights].sort((a, b) => b - a));
  const swapRow = rows.find((r) => r.tx_hash === swapHash)!;
  const fees = swapFees(1_000_000n, 30n, 5n);
  for (const k of ['tx_hash', 'height', 'address', 'kind', 'status', 'pool_id', 'asset_in', 'asset_out', 'amount_in', 'min_out', 'deadline_height', 'fee', 'protocol_fee', 'amount_out', 'reason', 'price_num', 'price_den']) assert.ok(k in swapRow, `a swap record has ${k}`);
  assert.deepEqual([swapRow.height, swapRow.address, swapRow.status, swapRow.asset_in, swapRow.asset_out, swapRow.amount_in, swapRow.fee, swapRow.protocol_fee, swapRow.reason], [swapHeight, alice.address, 'filled', 'ucoin', gold, 1_000_000n, fees.fee, fees.protocolFee, null]);
  const deposit = rows.at(-1)!;
  assert.deepEqual([deposit.kind, deposit.status, deposit.asset_id, deposit.amount], ['dex_deposit', 'done', gold, 300_000_000n]);
  const created = rows.find((r) => r.kind === 'create_pool')!;
  assert.deepEqual([created.pool_id, created.amount_x, created.amount_y, created.shares], [pool, 200_000_000n, 20_000_000n, isqrt(200_000_000n * 20_000_000n) - 1000n]);
  const all = await get('/api/v1/dex/transactions');
  assert.equal(all.total, 5);
  assert.deepEqual(((await get('/api/v1/dex/transactions', {}, 'kind=swap')).transactions as Answer[]).map((r) => r.kind), ['swap', 'swap']);
  assert.equal((await get('/api/v1/dex/transactions', {}, `pool_id=${pool}`)).total, 3, 'the pool\'s creation and its two swaps');
  assert.equal((await get('/api/v1/dex/transactions', {}, `pool_id=${pool}&kind=create_pool`)).total, 1);
  assert.equal(await status('/api/v1/dex/transactions', {}, 'kind=bogus'), 400);
  assert.deepEqual((await get('/api/v1/dex/activity/:addr', { addr: nobody.address })).activity, []);
});
