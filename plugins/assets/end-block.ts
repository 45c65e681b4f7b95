import type { WriteContext } from '../../kernel/sdk.js';
import { batchCleared } from './events.js';
import { clearBatch, type BatchSwap } from './clearing.js';
import { addExchangeBalance, EXCHANGE_ESCROW, recordActivity } from './ledger.js';
import { assets, batches, batchPools, pools, UCOIN } from './store.js';

/**
 * The end of block H (§59): each pool with an open batch, by pool id ascending (the store's key
 * order), clears its swaps in block order at one price; outputs and refunds go to exchange
 * balances, the reserves take the nets and LP fees and pay the outputs, protocol fees are burned
 * (an asset's `supply` falls and `burned` rises; `ucoin` is burned from the exchange escrow and
 * counted in the block's `fees_burned`). The batch is emptied, so no committed state holds one.
 */
export async function clearBatches(ctx: WriteContext): Promise<void> {
  const height = ctx.block.height;
  for (const { key: [id] } of await batchPools.scan(ctx.store)) {
    const pool = await pools.get(ctx.store, id);
    if (pool === undefined) throw new Error(`a batch is open for pool ${id}, which does not exist`);
    const entries = await batches.scan(ctx.store, { prefix: [id] });
    const swaps: BatchSwap[] = entries.map(({ value: s }) => ({ side: s.asset_in === pool.asset_x ? 'x' : 'y', amountIn: s.amount_in, minOut: s.min_out, deadlineHeight: s.deadline_height, net: s.net, lpFee: s.lp_fee, protocolFee: s.protocol_fee }));
    const c = clearBatch(height, pool.reserve_x, pool.reserve_y, swaps);
    for (let i = 0; i < entries.length; i++) {
      const s = entries[i]!.value;
      const o = c.outcomes[i]!;
      const common = { tx_hash: s.tx_hash, height, address: s.address, kind: 'swap', pool_id: id, asset_in: s.asset_in, asset_out: s.asset_out, amount_in: s.amount_in, min_out: s.min_out, deadline_height: s.deadline_height, price_num: c.priceNum, price_den: c.priceDen };
      if (o.status === 'filled') {
        await addExchangeBalance(ctx.store, s.address, s.asset_out, o.amountOut);
        await recordActivity(ctx.store, { ...common, status: 'filled', fee: s.fee, protocol_fee: s.protocol_fee, amount_out: o.amountOut, reason: null });
      } else {
        // A refund returns amount_in whole: no swap fee (§59).
        await addExchangeBalance(ctx.store, s.address, s.asset_in, s.amount_in);
        await recordActivity(ctx.store, { ...common, status: 'refunded', fee: 0n, protocol_fee: 0n, amount_out: 0n, reason: o.reason });
      }
      batches.delete(ctx.store, id, entries[i]!.key[1]);
    }
    await burn(ctx, pool.asset_x, c.burnedX);
    await burn(ctx, pool.asset_y, c.burnedY);
    const lastBatch = { height, swaps: entries.length, filled: c.filled, refunded: c.refunded, price_num: c.priceNum, price_den: c.priceDen };
    pools.set(ctx.store, id, { ...pool, reserve_x: c.reserveX, reserve_y: c.reserveY, last_batch: lastBatch });
    batchPools.delete(ctx.store, id);
    batchCleared.emit(ctx, { pool_id: id, ...lastBatch });
  }
}

/** Burns a protocol fee (§59 step 3). */
async function burn(ctx: WriteContext, asset: string, amount: bigint): Promise<void> {
  if (amount === 0n) return;
  if (asset === UCOIN) {
    await ctx.burn(EXCHANGE_ESCROW, amount);
    return;
  }
  const a = await assets.get(ctx.store, asset);
  if (a === undefined) throw new Error(`protocol fee in ${asset}, which is not an asset`);
  assets.set(ctx.store, asset, { ...a, supply: a.supply - amount, burned: a.burned + amount });
}
