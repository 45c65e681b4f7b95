import { badRequest, isChainError, operationFamily } from '../../../kernel/sdk.js';
import { liquidityAdded, liquidityRemoved } from '../events.js';
import { TARGET } from '../ids.js';
import { addExchangeBalance, exchangeBalance, positionOf, recordActivity, setPosition } from '../ledger.js';
import { liquidityToAdd, liquidityToRemove, MAX_AMOUNT } from '../math.js';
import { assetOpSigning } from '../psig.js';
import { pausedProblem, poolNamed } from '../rules.js';
import { AddLiquidityBody, RemoveLiquidityBody } from '../schemas.js';
import { pools } from '../store.js';

export const ADD_LIQUIDITY_GAS = 40;
export const REMOVE_LIQUIDITY_GAS = 40;

/**
 * Liquidity in and out of an existing pool (§58), rounded in the pool's favour: an addition mints
 * the fewer shares either amount is worth and takes the amounts rounded up; a removal pays the
 * amounts rounded down.
 */
export const addLiquidity = operationFamily({ schema: AddLiquidityBody, signsFor: TARGET, gas: ADD_LIQUIDITY_GAS, signing: assetOpSigning() })({
  name: 'add_liquidity',
  description: 'adds liquidity to a pool: mints min(⌊max_a·T/X⌋, ⌊max_b·T/Y⌋) shares, takes ⌈s·X/T⌉ and ⌈s·Y/T⌉',
  routes: [{ method: 'POST', path: '/api/v1/dex/liquidity/add' }],
  async check(ctx, op) {
    const paused = await pausedProblem(ctx, 'adding liquidity');
    if (paused) return paused;
    const pool = await poolNamed(ctx.store, op.body.pool_id);
    if (isChainError(pool)) return pool;
    const [maxA, maxB] = [BigInt(op.body.max_a), BigInt(op.body.max_b)];
    for (const [field, asset, max] of [['max_a', pool.asset_x, maxA], ['max_b', pool.asset_y, maxB]] as const) {
      const have = await exchangeBalance(ctx.store, op.actor, asset);
      if (max > have) return badRequest(`${field} ${max} is above the exchange balance of ${asset}: ${have}`);
    }
    const add = liquidityToAdd(maxA, maxB, pool.reserve_x, pool.reserve_y, pool.total_shares);
    if (add.shares === 0n) return badRequest(`liquidity worth no share: max_a ${maxA} and max_b ${maxB} buy 0 of the pool's ${pool.total_shares} shares`);
    if (pool.total_shares + add.shares > MAX_AMOUNT) return badRequest(`total shares would exceed ${MAX_AMOUNT}`);
    return undefined;
  },
  async execute(ctx, op) {
    const pool = await poolNamed(ctx.store, op.body.pool_id);
    if (isChainError(pool)) throw pool;
    const add = liquidityToAdd(BigInt(op.body.max_a), BigInt(op.body.max_b), pool.reserve_x, pool.reserve_y, pool.total_shares);
    await addExchangeBalance(ctx.store, op.actor, pool.asset_x, -add.amountX);
    await addExchangeBalance(ctx.store, op.actor, pool.asset_y, -add.amountY);
    pools.set(ctx.store, pool.id, { ...pool, reserve_x: pool.reserve_x + add.amountX, reserve_y: pool.reserve_y + add.amountY, total_shares: pool.total_shares + add.shares });
    await setPosition(ctx.store, op.actor, pool.id, (await positionOf(ctx.store, op.actor, pool.id)) + add.shares);
    liquidityAdded.emit(ctx, { pool_id: pool.id, address: op.actor, amount_x: add.amountX, amount_y: add.amountY, shares: add.shares });
    await recordActivity(ctx.store, { tx_hash: op.txHash, height: ctx.block.height, address: op.actor, kind: 'add_liquidity', status: 'done', pool_id: pool.id, amount_x: add.amountX, amount_y: add.amountY, shares: add.shares });
  },
});

export const removeLiquidity = operationFamily({ schema: RemoveLiquidityBody, signsFor: TARGET, gas: REMOVE_LIQUIDITY_GAS, signing: assetOpSigning() })({
  name: 'remove_liquidity',
  description: 'redeems shares of a pool: pays ⌊shares·X/T⌋ and ⌊shares·Y/T⌋ to the exchange balance (open while the exchange is paused)',
  routes: [{ method: 'POST', path: '/api/v1/dex/liquidity/remove' }],
  async check(ctx, op) {
    const pool = await poolNamed(ctx.store, op.body.pool_id);
    if (isChainError(pool)) return pool;
    const held = await positionOf(ctx.store, op.actor, pool.id);
    return BigInt(op.body.shares) > held ? badRequest(`shares ${op.body.shares} is above the position's ${held}`) : undefined;
  },
  async execute(ctx, op) {
    const pool = await poolNamed(ctx.store, op.body.pool_id);
    if (isChainError(pool)) throw pool;
    const shares = BigInt(op.body.shares);
    const out = liquidityToRemove(shares, pool.reserve_x, pool.reserve_y, pool.total_shares);
    pools.set(ctx.store, pool.id, { ...pool, reserve_x: pool.reserve_x - out.amountX, reserve_y: pool.reserve_y - out.amountY, total_shares: pool.total_shares - shares });
    await setPosition(ctx.store, op.actor, pool.id, (await positionOf(ctx.store, op.actor, pool.id)) - shares);
    await addExchangeBalance(ctx.store, op.actor, pool.asset_x, out.amountX);
    await addExchangeBalance(ctx.store, op.actor, pool.asset_y, out.amountY);
    liquidityRemoved.emit(ctx, { pool_id: pool.id, address: op.actor, amount_x: out.amountX, amount_y: out.amountY, shares });
    await recordActivity(ctx.store, { tx_hash: op.txHash, height: ctx.block.height, address: op.actor, kind: 'remove_liquidity', status: 'done', pool_id: pool.id, amount_x: out.amountX, amount_y: out.amountY, shares });
  },
});
