import { badRequest, COIN_UNIT, isChainError, operationFamily, type ChainError, type ReadContext } from '../../../kernel/sdk.js';
import type { Static } from '@sinclair/typebox';
import { dexDeposited, dexWithdrawn } from '../events.js';
import { TARGET } from '../ids.js';
import { addExchangeBalance, exchangeBalance, EXCHANGE_ESCROW, mainBalance, recordActivity, setMainBalance } from '../ledger.js';
import { assetOpSigning } from '../psig.js';
import { exchangeAsset } from '../rules.js';
import { ExchangeMoveBody } from '../schemas.js';
import { UCOIN } from '../store.js';

type Body = Static<typeof ExchangeMoveBody>;

export const EXCHANGE_MOVE_GAS = 25;

/**
 * Moves between an address's main balance and its exchange balance (§57). A `ucoin` deposit is
 * the one asset or exchange operation whose value is held against the coin balance (`valueUnit`
 * `ucoin`): its coins go to the exchange escrow account through `ctx.accounts`, where the
 * sentinel scores the move and a session key's cap counts it; the withdrawal pays them back.
 */
const exchangeMove = operationFamily({ schema: ExchangeMoveBody, signsFor: TARGET, gas: EXCHANGE_MOVE_GAS, signing: assetOpSigning() });

/** The balance a move draws on, and the refusal when it is short. */
async function shortProblem(ctx: ReadContext, have: bigint, b: Body, where: string): Promise<ChainError | undefined> {
  const asset = await exchangeAsset(ctx.store, b.asset_id, 'asset_id');
  if (isChainError(asset)) return asset;
  return BigInt(b.amount) > have ? badRequest(`insufficient ${asset.symbol} in the ${where} balance: ${have} held, amount is ${b.amount}`) : undefined;
}

export const dexDeposit = exchangeMove({
  name: 'dex_deposit',
  description: 'moves an issued asset or ucoin from the main balance to the exchange balance',
  routes: [{ method: 'POST', path: '/api/v1/dex/deposit' }],
  valueUnit: (b) => (b.asset_id === UCOIN ? COIN_UNIT : `asset:${b.asset_id}`),
  async check(ctx, op) {
    const b = op.body;
    const have = b.asset_id === UCOIN ? (await ctx.accounts.getCore(op.signer.account)).balance : await mainBalance(ctx.store, op.actor, b.asset_id);
    return shortProblem(ctx, have, b, 'main');
  },
  // A ucoin deposit moves coins into the escrow: the sentinel judges it at admission as in the block (decisions.md §99).
  pays: (_ctx, op) => (op.body.asset_id === UCOIN ? [{ from: op.signer.account, to: EXCHANGE_ESCROW, value: BigInt(op.body.amount) }] : []),
  async execute(ctx, op) {
    const b = op.body;
    const amount = BigInt(b.amount);
    if (b.asset_id === UCOIN) await ctx.accounts.transfer(op.signer.account, EXCHANGE_ESCROW, amount);
    else await setMainBalance(ctx.store, op.actor, b.asset_id, (await mainBalance(ctx.store, op.actor, b.asset_id)) - amount);
    await addExchangeBalance(ctx.store, op.actor, b.asset_id, amount);
    dexDeposited.emit(ctx, { address: op.actor, asset_id: b.asset_id, amount });
    await recordActivity(ctx.store, { tx_hash: op.txHash, height: ctx.block.height, address: op.actor, kind: 'dex_deposit', status: 'done', asset_id: b.asset_id, amount });
  },
});

export const dexWithdraw = exchangeMove({
  name: 'dex_withdraw',
  description: 'moves an issued asset or ucoin from the exchange balance back to the main balance',
  routes: [{ method: 'POST', path: '/api/v1/dex/withdraw' }],
  valueUnit: (b) => `exchange:${b.asset_id}`,
  async check(ctx, op) {
    return shortProblem(ctx, await exchangeBalance(ctx.store, op.actor, op.body.asset_id), op.body, 'exchange');
  },
  async execute(ctx, op) {
    const b = op.body;
    const amount = BigInt(b.amount);
    await addExchangeBalance(ctx.store, op.actor, b.asset_id, -amount);
    if (b.asset_id === UCOIN) await ctx.accounts.transfer(EXCHANGE_ESCROW, op.signer.account, amount);
    else await setMainBalance(ctx.store, op.actor, b.asset_id, (await mainBalance(ctx.store, op.actor, b.asset_id)) + amount);
    dexWithdrawn.emit(ctx, { address: op.actor, asset_id: b.asset_id, amount });
    await recordActivity(ctx.store, { tx_hash: op.txHash, height: ctx.block.height, address: op.actor, kind: 'dex_withdraw', status: 'done', asset_id: b.asset_id, amount });
  },
});
