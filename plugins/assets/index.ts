import { definePlugin, operationOf, type NodeServices } from '../../kernel/sdk.js';
import { clearBatches } from './end-block.js';
import { ALL_EVENTS } from './events.js';
import { createPool } from './operations/create-pool.js';
import { dexDeposit, dexWithdraw } from './operations/exchange-balance.js';
import { issueAsset, issueFeeProblemAtAdmission, ISSUE_GAS } from './operations/issue.js';
import { addLiquidity, removeLiquidity } from './operations/liquidity.js';
import { deadlineProblem, swap } from './operations/swap.js';
import { transferAsset } from './operations/transfer.js';
import { ASSET_PARAMS, PARAMS } from './params.js';
import { swapLimitProblem, withinSwapLimit } from './proposal.js';
import { ASSET_ROUTES, serveAssetRoutes } from './routes.js';
import { ALL_STORES } from './store.js';

/**
 * Native assets and a batch-cleared exchange (decisions.md §54–62), one plugin because one
 * invariant spans both: an asset's supply is its main balances, exchange balances and pool
 * reserves, and the exchange's ucoin is the escrow account's balance. Users issue assets without
 * a contract, move them, deposit them (and ucoin) into exchange balances, and trade on
 * constant-product pools where all swaps of a pool in one block clear at one price in endBlock,
 * so the order of transactions inside a block gains nobody anything.
 */
export const assetsPlugin = definePlugin<Record<string, unknown>, NodeServices>({
  name: 'assets',
  kind: 'state',
  description: 'native assets and a batch-cleared constant-product exchange (one price per pool per block)',
  params: ASSET_PARAMS,
  shardParam: PARAMS.shard,
  stores: ALL_STORES,
  events: ALL_EVENTS,
  operations: [issueAsset, transferAsset, dexDeposit, dexWithdraw, createPool, addLiquidity, removeLiquidity, swap],
  routes: ASSET_ROUTES,
  register(api) {
    // Conditions judged at admission only (checkTx does not run in the block): a passed deadline
    // (a swap carried past it is refunded by the clearing instead), and the issue fee against the
    // balance net of the operation's own fee (in the block that fee is already charged).
    api.hooks.checkTx.tapPromise(api.name, async (ctx, tx) => {
      const op = tx.origin === 'signed' ? operationOf(tx) : undefined;
      if (op === 'swap') return deadlineProblem(tx.body, ctx.height);
      if (op === 'issue_asset' && typeof tx.body.symbol === 'string') {
        const limit = typeof tx.body.gas_limit === 'number' ? tx.body.gas_limit : ISSUE_GAS;
        return issueFeeProblemAtAdmission(ctx, tx.body.symbol, tx.from, BigInt(limit) * tx.gasPrice);
      }
      return undefined;
    });
    api.hooks.prepareProposal.tapPromise(api.name, async (txs, ctx) => withinSwapLimit(txs, Number(await ctx.params.get(PARAMS.maxSwaps))));
    api.hooks.processProposal.tapPromise(api.name, async (ctx, txs) => swapLimitProblem(txs, Number(await ctx.params.get(PARAMS.maxSwaps))));
    api.hooks.endBlock.tapPromise(api.name, async (result, ctx) => {
      await clearBatches(ctx);
      return result;
    });
    api.hooks.routes.tap(api.name, (routes) => serveAssetRoutes(routes, api.services, api.name));
  },
});
