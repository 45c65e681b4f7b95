import { badRequest, defineOperation, isChainError } from '../../../kernel/sdk.js';
import { assetTransferred } from '../events.js';
import { TARGET } from '../ids.js';
import { mainBalance, setMainBalance } from '../ledger.js';
import { assetOpSigning } from '../psig.js';
import { issuedAsset } from '../rules.js';
import { TransferBody } from '../schemas.js';

export const TRANSFER_ASSET_GAS = 25;

export const transferAsset = defineOperation({
  name: 'transfer_asset',
  description: 'moves units of an issued asset from the sender\'s main balance to the recipient\'s (a .node credits its owner)',
  routes: [{ method: 'POST', path: '/api/v1/assets/transfer' }],
  schema: TransferBody,
  signsFor: TARGET,
  valueUnit: (b) => `asset:${b.asset_id}`,
  gas: TRANSFER_ASSET_GAS,
  signing: assetOpSigning(),
  async check(ctx, op) {
    const b = op.body;
    const asset = await issuedAsset(ctx.store, b.asset_id, 'asset_id');
    if (isChainError(asset)) return asset;
    if (b.to === op.actor) return badRequest('to is the sender itself');
    const payee = await ctx.payee(b.to);
    if (isChainError(payee)) return payee;
    const held = await mainBalance(ctx.store, op.actor, b.asset_id);
    if (BigInt(b.amount) > held) return badRequest(`insufficient ${asset.symbol}: ${op.actor} holds ${held}, amount is ${b.amount}`);
    return undefined;
  },
  async execute(ctx, op) {
    const b = op.body;
    const to = await ctx.payee(b.to);
    if (isChainError(to)) throw to;
    const amount = BigInt(b.amount);
    await setMainBalance(ctx.store, op.actor, b.asset_id, (await mainBalance(ctx.store, op.actor, b.asset_id)) - amount);
    await setMainBalance(ctx.store, to, b.asset_id, (await mainBalance(ctx.store, to, b.asset_id)) + amount);
    assetTransferred.emit(ctx, { asset_id: b.asset_id, from: op.actor, to, amount });
  },
});
