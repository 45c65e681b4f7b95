import { badRequest, defineOperation, isChainError, type ChainError, type ReadContext } from '../../../kernel/sdk.js';
import type { Static } from '@sinclair/typebox';
import { TARGET } from '../ids.js';
import { addExchangeBalance, exchangeBalance } from '../ledger.js';
import { swapFees } from '../math.js';
import { PARAMS } from '../params.js';
import { assetOpSigning } from '../psig.js';
import { pausedProblem, poolNamed } from '../rules.js';
import { SwapBody } from '../schemas.js';
import { batches, batchPools } from '../store.js';

type Body = Static<typeof SwapBody>;

export const SWAP_GAS = 40;

async function swapProblem(ctx: ReadContext, b: Body, actor: string): Promise<ChainError | undefined> {
  const paused = await pausedProblem(ctx, 'swapping');
  if (paused) return paused;
  const pool = await poolNamed(ctx.store, b.pool_id);
  if (isChainError(pool)) return pool;
  if (b.asset_in !== pool.asset_x && b.asset_in !== pool.asset_y) return badRequest(`asset_in ${b.asset_in} is not an asset of pool ${pool.id} (${pool.asset_x}, ${pool.asset_y})`);
  const have = await exchangeBalance(ctx.store, actor, b.asset_in);
  if (BigInt(b.amount_in) > have) return badRequest(`amount_in ${b.amount_in} is above the exchange balance of ${b.asset_in}: ${have}`);
  return undefined;
}

/**
 * A swap (§59): when its transaction executes, `amount_in` leaves the exchange balance for the
 * pool's batch of this block (the transaction is `confirmed`); the batch clears in endBlock at one
 * price for every swap of the pool (clearing.ts, end-block.ts). A passed `deadline_height` is
 * refused at admission (checkTx, index.ts); a swap a proposer carries past it anyway is escrowed
 * here and refunded whole by the clearing, as is one a deferral carried past it.
 */
export const swap = defineOperation({
  name: 'swap',
  description: "escrows amount_in in the pool's batch of this block; the batch clears at one price when the block ends",
  routes: [{ method: 'POST', path: '/api/v1/dex/swap' }],
  schema: SwapBody,
  signsFor: TARGET,
  valueUnit: (b) => `exchange:${b.asset_in}`,
  gas: SWAP_GAS,
  signing: assetOpSigning(),
  check: (ctx, op) => swapProblem(ctx, op.body, op.actor),
  async execute(ctx, op) {
    const b = op.body;
    const pool = await poolNamed(ctx.store, b.pool_id);
    if (isChainError(pool)) throw pool;
    const amountIn = BigInt(b.amount_in);
    const fees = swapFees(amountIn, await ctx.params.get(PARAMS.lpFee), await ctx.params.get(PARAMS.protocolFee));
    await addExchangeBalance(ctx.store, op.actor, b.asset_in, -amountIn);
    const open = (await batchPools.get(ctx.store, pool.id)) ?? { swaps: 0 };
    batches.set(ctx.store, pool.id, open.swaps, {
      tx_hash: op.txHash,
      address: op.actor,
      asset_in: b.asset_in,
      asset_out: b.asset_in === pool.asset_x ? pool.asset_y : pool.asset_x,
      amount_in: amountIn,
      min_out: BigInt(b.min_out),
      deadline_height: b.deadline_height,
      fee: fees.fee,
      lp_fee: fees.lpFee,
      protocol_fee: fees.protocolFee,
      net: fees.net,
    });
    batchPools.set(ctx.store, pool.id, { swaps: open.swaps + 1 });
  },
});

/** For checkTx: a `deadline_height` below the height being built (§10) is refused at admission (§59). */
export function deadlineProblem(b: { readonly deadline_height?: unknown }, height: number): ChainError | undefined {
  const d = b.deadline_height;
  return typeof d === 'number' && d < height ? badRequest(`deadline_height ${d} has passed: the next block is ${height}`) : undefined;
}
