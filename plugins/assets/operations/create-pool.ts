import { badRequest, conflict, defineOperation, isChainError, type ChainError, type ReadContext } from '../../../kernel/sdk.js';
import type { Static } from '@sinclair/typebox';
import { poolCreated } from '../events.js';
import { orderedPair, poolId, TARGET } from '../ids.js';
import { addExchangeBalance, bump, exchangeBalance, listOf, recordActivity, setPosition } from '../ledger.js';
import { initialShares } from '../math.js';
import { PARAMS } from '../params.js';
import { assetOpSigning } from '../psig.js';
import { exchangeAsset, pausedProblem } from '../rules.js';
import { CreatePoolBody } from '../schemas.js';
import { pools, poolsByAsset } from '../store.js';

type Body = Static<typeof CreatePoolBody>;

export const CREATE_POOL_GAS = 60;

/** The pair in pool order (§58) with each amount beside its asset, whichever order the body named them in. */
function ordered(b: Body): { x: string; y: string; amountX: bigint; amountY: bigint } {
  const [x, y] = orderedPair(b.asset_x, b.asset_y);
  return x === b.asset_x ? { x, y, amountX: BigInt(b.amount_x), amountY: BigInt(b.amount_y) } : { x, y, amountX: BigInt(b.amount_y), amountY: BigInt(b.amount_x) };
}

async function createProblem(ctx: ReadContext, b: Body, actor: string): Promise<ChainError | undefined> {
  const paused = await pausedProblem(ctx, 'creating a pool');
  if (paused) return paused;
  if (b.asset_x === b.asset_y) return badRequest(`a pool pairs two distinct assets: asset_x and asset_y are both ${b.asset_x}`);
  const p = ordered(b);
  for (const [field, id] of [['asset_x', b.asset_x], ['asset_y', b.asset_y]] as const) {
    const asset = await exchangeAsset(ctx.store, id, field);
    if (isChainError(asset)) return asset;
  }
  const id = poolId(p.x, p.y);
  if (await pools.has(ctx.store, id)) return conflict(`the pair is pooled already: pool ${id}`);
  for (const [asset, amount] of [[p.x, p.amountX], [p.y, p.amountY]] as const) {
    const have = await exchangeBalance(ctx.store, actor, asset);
    if (amount > have) return badRequest(`insufficient exchange balance of ${asset}: ${have} held, ${amount} needed`);
  }
  const shares = initialShares(p.amountX, p.amountY);
  const min = await ctx.params.get(PARAMS.minLiquidity);
  if (shares <= min) return badRequest(`liquidity worth no share: floor(√(amount_x × amount_y)) = ${shares} must be above dex_min_liquidity ${min}, which is locked for ever`);
  return undefined;
}

export const createPool = defineOperation({
  name: 'create_pool',
  description: 'creates the pool of a pair with its first liquidity; dex_min_liquidity of its shares are locked for ever',
  routes: [{ method: 'POST', path: '/api/v1/dex/pools' }],
  schema: CreatePoolBody,
  signsFor: TARGET,
  gas: CREATE_POOL_GAS,
  signing: assetOpSigning(),
  check: (ctx, op) => createProblem(ctx, op.body, op.actor),
  async execute(ctx, op) {
    const p = ordered(op.body);
    const id = poolId(p.x, p.y);
    const [dx, dy] = [await exchangeAsset(ctx.store, p.x, 'asset_x'), await exchangeAsset(ctx.store, p.y, 'asset_y')];
    if (isChainError(dx)) throw dx;
    if (isChainError(dy)) throw dy;
    const shares = initialShares(p.amountX, p.amountY);
    const locked = await ctx.params.get(PARAMS.minLiquidity);
    await addExchangeBalance(ctx.store, op.actor, p.x, -p.amountX);
    await addExchangeBalance(ctx.store, op.actor, p.y, -p.amountY);
    pools.set(ctx.store, id, { id, asset_x: p.x, asset_y: p.y, symbol_x: dx.symbol, symbol_y: dy.symbol, reserve_x: p.amountX, reserve_y: p.amountY, total_shares: shares, locked_shares: locked, creator: op.actor, created_height: ctx.block.height, last_batch: null });
    poolsByAsset.set(ctx.store, p.x, id, {});
    poolsByAsset.set(ctx.store, p.y, id, {});
    await bump(ctx.store, listOf.pools, 1);
    await bump(ctx.store, listOf.poolsOf(p.x), 1);
    await bump(ctx.store, listOf.poolsOf(p.y), 1);
    await setPosition(ctx.store, op.actor, id, shares - locked);
    poolCreated.emit(ctx, { pool_id: id, creator: op.actor, asset_x: p.x, asset_y: p.y, amount_x: p.amountX, amount_y: p.amountY, shares: shares - locked, locked_shares: locked });
    await recordActivity(ctx.store, { tx_hash: op.txHash, height: ctx.block.height, address: op.actor, kind: 'create_pool', status: 'done', pool_id: id, amount_x: p.amountX, amount_y: p.amountY, shares: shares - locked });
  },
});
