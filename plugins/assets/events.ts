import { Type } from '@sinclair/typebox';
import { defineEvent } from '../../kernel/sdk.js';

/**
 * The block events of decisions.md §61 (`GET /api/v1/blocks/:height/events`). None is pushed on
 * the socket: part 2 lists no asset or exchange event there. Amounts are bigints, served as JSON
 * integers.
 */
const Amount = Type.BigInt({ minimum: 0n });

export const assetIssued = defineEvent({
  type: 'asset_issued',
  description: 'an asset was issued, or reissued by its issuer (amount minted, the issue fee burned)',
  data: Type.Object({ asset_id: Type.String(), symbol: Type.String(), issuer: Type.String(), amount: Amount, supply: Amount, reissue: Type.Boolean(), fee_burned: Amount }),
});

export const assetTransferred = defineEvent({
  type: 'asset_transferred',
  description: 'units of an asset moved between main balances',
  data: Type.Object({ asset_id: Type.String(), from: Type.String(), to: Type.String(), amount: Amount }),
});

export const dexDeposited = defineEvent({
  type: 'dex_deposit',
  description: 'an asset or ucoin moved from a main balance to the same address\'s exchange balance',
  data: Type.Object({ address: Type.String(), asset_id: Type.String(), amount: Amount }),
});

export const dexWithdrawn = defineEvent({
  type: 'dex_withdraw',
  description: 'an asset or ucoin moved from an exchange balance back to the main balance',
  data: Type.Object({ address: Type.String(), asset_id: Type.String(), amount: Amount }),
});

export const poolCreated = defineEvent({
  type: 'pool_created',
  description: 'a pool was created with its first liquidity; locked_shares are nobody\'s',
  data: Type.Object({ pool_id: Type.String(), creator: Type.String(), asset_x: Type.String(), asset_y: Type.String(), amount_x: Amount, amount_y: Amount, shares: Amount, locked_shares: Amount }),
});

export const liquidityAdded = defineEvent({
  type: 'liquidity_added',
  description: 'liquidity was added to a pool (amounts taken, shares minted)',
  data: Type.Object({ pool_id: Type.String(), address: Type.String(), amount_x: Amount, amount_y: Amount, shares: Amount }),
});

export const liquidityRemoved = defineEvent({
  type: 'liquidity_removed',
  description: 'shares of a pool were redeemed (amounts paid to the exchange balance)',
  data: Type.Object({ pool_id: Type.String(), address: Type.String(), amount_x: Amount, amount_y: Amount, shares: Amount }),
});

export const batchCleared = defineEvent({
  type: 'batch_cleared',
  description: "a pool's batch of swaps cleared at one price (the pool's last_batch)",
  data: Type.Object({ pool_id: Type.String(), height: Type.Integer({ minimum: 0 }), swaps: Type.Integer({ minimum: 0 }), filled: Type.Integer({ minimum: 0 }), refunded: Type.Integer({ minimum: 0 }), price_num: Amount, price_den: Amount }),
});

export const ALL_EVENTS = [assetIssued, assetTransferred, dexDeposited, dexWithdrawn, poolCreated, liquidityAdded, liquidityRemoved, batchCleared];
