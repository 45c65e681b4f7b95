import { Type } from '@sinclair/typebox';
import { pageAnswer } from '../../kernel/sdk.js';

/**
 * The bodies of the eight operations (decisions.md §54–59; the kernel adds and checks the signed
 * fields `signature`, `public_key`, `nonce`, `gas_price`, `gas_limit` and `_psig`), and the
 * answers of the read routes (§55–61). Amounts are JSON integers from 0 to 2^53 − 1 (§55: more
 * is 400); the rules a schema cannot say (symbols, balances, the parameters) are the operations'
 * `check`, with messages naming the rule.
 */
const Amount = (description: string, minimum = 0) => Type.Integer({ minimum, maximum: Number.MAX_SAFE_INTEGER, description });
const Address = (description: string) => Type.String({ minLength: 1, maxLength: 128, description });
const AssetRef = (description: string) => Type.String({ minLength: 1, maxLength: 66, description });
const Height = (description: string) => Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description });

export const IssueBody = Type.Object(
  {
    from: Address('the issuer'),
    name: Type.String({ maxLength: 256, description: '1 to 64 characters, no control characters' }),
    symbol: Type.String({ maxLength: 64, description: '2 to 12 of A-Z and 0-9, a letter first; COIN and UCOIN are reserved' }),
    decimals: Type.Integer({ minimum: 0, maximum: 255, description: '0 to asset_max_decimals' }),
    initial: Amount('units credited to the issuer (a reissue: minted on top; at least 1)'),
    max_supply: Amount('the most units that may ever be outstanding', 1),
    reissuable: Type.Boolean({ description: 'whether the issuer may mint more later' }),
    reissue_unlock_height: Height('the first height a reissue is accepted'),
    issue_nonce: Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'makes the asset id (ignored by a reissue)' }),
  },
  { additionalProperties: false },
);

export const TransferBody = Type.Object(
  { from: Address('the sender'), to: Address('the recipient (judged as for a plain transfer; a .node credits its owner)'), asset_id: AssetRef('an issued asset'), amount: Amount('units', 1) },
  { additionalProperties: false },
);

export const ExchangeMoveBody = Type.Object(
  { from: Address('the owner of both balances'), asset_id: AssetRef('an issued asset, or ucoin'), amount: Amount('units (ucoin for ucoin)', 1) },
  { additionalProperties: false },
);

export const CreatePoolBody = Type.Object(
  {
    from: Address('the creator'),
    asset_x: AssetRef('one asset of the pair (either order; each amount goes with the asset beside it)'),
    asset_y: AssetRef('the other asset'),
    amount_x: Amount('of asset_x, from the exchange balance', 1),
    amount_y: Amount('of asset_y, from the exchange balance', 1),
  },
  { additionalProperties: false },
);

export const AddLiquidityBody = Type.Object(
  { from: Address('the provider'), pool_id: AssetRef('the pool'), max_a: Amount("the most of the pool's asset_x to take", 1), max_b: Amount("the most of the pool's asset_y to take", 1) },
  { additionalProperties: false },
);

export const RemoveLiquidityBody = Type.Object({ from: Address('the provider'), pool_id: AssetRef('the pool'), shares: Amount('shares of the position to redeem', 1) }, { additionalProperties: false });

export const SwapBody = Type.Object(
  {
    from: Address('the trader'),
    pool_id: AssetRef('the pool'),
    asset_in: AssetRef('the asset paid, one of the pool'),
    amount_in: Amount('paid from the exchange balance', 1),
    min_out: Amount('the least acceptable output; below it the swap is refunded'),
    deadline_height: Height('the last height whose batch may clear it; later it is refunded'),
  },
  { additionalProperties: false },
);

export const AssetView = Type.Object({
  id: Type.String(),
  symbol: Type.String(),
  name: Type.String(),
  decimals: Type.Integer(),
  issuer: Type.String(),
  supply: Type.Integer(),
  max_supply: Type.Integer(),
  burned: Type.Integer(),
  reissuable: Type.Boolean(),
  reissue_unlock_height: Type.Integer(),
  issue_nonce: Type.Integer(),
  issued_height: Type.Integer(),
  tx_hash: Type.String(),
  supply_human: Type.String(),
  max_supply_human: Type.String(),
  burned_human: Type.String(),
});

export const AssetList = pageAnswer('assets', AssetView);

export const CheckSymbolAnswer = Type.Object({ symbol: Type.String(), valid: Type.Boolean(), available: Type.Boolean(), reason: Type.Union([Type.String(), Type.Null()]) });

export const BalanceRow = Type.Object({ asset_id: Type.String(), symbol: Type.String(), decimals: Type.Integer(), amount: Type.Integer(), amount_human: Type.String() });
export const BalanceList = Type.Intersect([Type.Object({ address: Type.String() }), pageAnswer('balances', BalanceRow)]);

const BatchView = Type.Object({ height: Type.Integer(), swaps: Type.Integer(), filled: Type.Integer(), refunded: Type.Integer(), price_num: Type.Integer(), price_den: Type.Integer() });

export const PoolView = Type.Object({
  id: Type.String(),
  asset_x: Type.String(),
  asset_y: Type.String(),
  symbol_x: Type.String(),
  symbol_y: Type.String(),
  reserve_x: Type.Integer(),
  reserve_y: Type.Integer(),
  reserve_x_human: Type.String(),
  reserve_y_human: Type.String(),
  total_shares: Type.Integer(),
  locked_shares: Type.Integer(),
  lp_fee_bps: Type.Integer(),
  protocol_fee_bps: Type.Integer(),
  creator: Type.String(),
  created_height: Type.Integer(),
  last_batch: Type.Union([BatchView, Type.Null()]),
});

export const PoolList = pageAnswer('pools', PoolView);

export const PositionRow = Type.Object({
  pool_id: Type.String(),
  asset_x: Type.String(),
  asset_y: Type.String(),
  shares: Type.Integer(),
  total_shares: Type.Integer(),
  amount_x: Type.Integer(),
  amount_y: Type.Integer(),
  amount_x_human: Type.String(),
  amount_y_human: Type.String(),
});
export const PositionList = pageAnswer('positions', PositionRow);

export const QuoteAnswer = Type.Object({
  pool_id: Type.String(),
  asset_in: Type.String(),
  asset_out: Type.String(),
  amount_in: Type.Integer(),
  amount_in_human: Type.String(),
  fee: Type.Integer(),
  fee_human: Type.String(),
  lp_fee: Type.Integer(),
  lp_fee_human: Type.String(),
  protocol_fee: Type.Integer(),
  protocol_fee_human: Type.String(),
  amount_out: Type.Integer(),
  amount_out_human: Type.String(),
  price_impact_bps: Type.Integer(),
  height: Type.Integer(),
});

export const WindowAnswer = Type.Object({
  height: Type.Integer(),
  closes_at: Type.Integer(),
  max_swaps_per_pool: Type.Integer(),
  pending: Type.Array(Type.Object({ pool_id: Type.String(), swaps: Type.Integer(), amount_in_x: Type.Integer(), amount_in_x_human: Type.String(), amount_in_y: Type.Integer(), amount_in_y_human: Type.String() })),
});

/** An activity record as served: the stored fields (§61) and a `*_human` beside each amount. */
export const ActivityView = Type.Object({ tx_hash: Type.String(), height: Type.Integer(), address: Type.String(), kind: Type.String(), status: Type.String() }, { additionalProperties: true });
export const ActivityList = pageAnswer('activity', ActivityView);
export const TransactionList = pageAnswer('transactions', ActivityView);
