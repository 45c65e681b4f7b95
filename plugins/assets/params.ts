import type { ParamSpec } from '../../kernel/sdk.js';

/** decisions.md §62: the assets and exchange parameters, their defaults and ranges. */
export const PARAMS = {
  issueFee: 'asset_issue_fee',
  maxDecimals: 'asset_max_decimals',
  shard: 'dex_shard',
  lpFee: 'dex_lp_fee_bps',
  protocolFee: 'dex_protocol_fee_bps',
  minLiquidity: 'dex_min_liquidity',
  maxSwaps: 'dex_max_swaps_per_pool_block',
  paused: 'dex_paused',
} as const;

export const ASSET_PARAMS: readonly ParamSpec[] = [
  { key: PARAMS.issueFee, default: 1_000_000_000n, min: 0n, max: 1_000_000_000_000_000n, description: 'ucoin burned to issue a new asset (a reissue pays only the operation fee)', unit: 'ucoin' },
  { key: PARAMS.maxDecimals, default: 18n, min: 0n, max: 18n, description: 'the most decimals an asset may have' },
  { key: PARAMS.shard, default: 0n, min: 0n, max: 1023n, description: 'the shard holding asset and exchange records: other shards refuse the operations (403)' },
  { key: PARAMS.lpFee, default: 30n, min: 0n, max: 1000n, description: "the liquidity providers' share of a swap, in basis points, paid into the reserves" },
  { key: PARAMS.protocolFee, default: 5n, min: 0n, max: 1000n, description: 'the protocol share of a swap, in basis points, burned' },
  { key: PARAMS.minLiquidity, default: 1000n, min: 1n, max: 1_000_000_000n, description: 'shares a new pool locks for ever (nobody can withdraw them)' },
  { key: PARAMS.maxSwaps, default: 100n, min: 1n, max: 10_000n, description: 'the most swaps of one pool a block may carry: a proposer defers the rest, validators refuse a proposal with more' },
  { key: PARAMS.paused, default: 0n, min: 0n, max: 1n, description: 'emergency switch: 1 refuses new pools, liquidity and swaps (403); deposits, withdrawals, removals and transfers stay open' },
];
