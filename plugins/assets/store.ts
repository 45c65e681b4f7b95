import { Type } from '@sinclair/typebox';
import { defineStore, keyPart } from '../../kernel/sdk.js';

/**
 * The assets plugin's state layout (namespace `assets/`): assets and their symbols, main and
 * exchange balances, pools and positions, the open batch of each pool (written by swaps and
 * emptied by the endBlock that clears it, so it is never in a committed state), the activity
 * history and the counts that page its lists. Amounts are bigints (§55 bounds them to 2^53 − 1).
 */
export const PLUGIN = 'assets';

/** An asset id (§55): `0x` + SHA3-256, the same shape as a hash. */
export const ASSET_ID_RE = /^0x[0-9a-f]{64}$/;
/** The exchange asset of the native coin (§55): not issued, only held in exchange balances and reserves. */
export const UCOIN = 'ucoin';
/** An asset the exchange holds: an issued asset's id, or `ucoin`. */
export const EXCHANGE_ASSET_RE = /^(0x[0-9a-f]{64}|ucoin)$/;
/** A symbol (§55): 2 to 12 of A-Z and 0-9, a letter first. */
export const SYMBOL_RE = /^[A-Z][A-Z0-9]{1,11}$/;

const Amount = Type.BigInt({ minimum: 0n });

export const AssetRecord = Type.Object({
  id: Type.String(),
  symbol: Type.String(),
  name: Type.String(),
  decimals: Type.Integer({ minimum: 0 }),
  issuer: Type.String(),
  supply: Amount,
  max_supply: Amount,
  burned: Amount,
  reissuable: Type.Boolean(),
  reissue_unlock_height: Type.Integer({ minimum: 0 }),
  issue_nonce: Type.Integer({ minimum: 0 }),
  issued_height: Type.Integer({ minimum: 0 }),
  tx_hash: Type.String(),
});

export const LastBatch = Type.Object({
  height: Type.Integer({ minimum: 0 }),
  swaps: Type.Integer({ minimum: 0 }),
  filled: Type.Integer({ minimum: 0 }),
  refunded: Type.Integer({ minimum: 0 }),
  price_num: Amount,
  price_den: Amount,
});

export const PoolRecord = Type.Object({
  id: Type.String(),
  asset_x: Type.String(),
  asset_y: Type.String(),
  symbol_x: Type.String(),
  symbol_y: Type.String(),
  reserve_x: Amount,
  reserve_y: Amount,
  total_shares: Amount,
  locked_shares: Amount,
  creator: Type.String(),
  created_height: Type.Integer({ minimum: 0 }),
  last_batch: Type.Union([LastBatch, Type.Null()]),
});

/** A swap escrowed in its pool's open batch: what clearing needs, fees as of the height it executed. */
export const PendingSwap = Type.Object({
  tx_hash: Type.String(),
  address: Type.String(),
  asset_in: Type.String(),
  asset_out: Type.String(),
  amount_in: Amount,
  min_out: Amount,
  deadline_height: Type.Integer({ minimum: 0 }),
  fee: Amount,
  lp_fee: Amount,
  protocol_fee: Amount,
  net: Amount,
});

/** One exchange activity record (§61); the fields of its kind, the rest absent. */
export const ActivityRecord = Type.Object({
  tx_hash: Type.String(),
  height: Type.Integer({ minimum: 0 }),
  address: Type.String(),
  kind: Type.String(),
  status: Type.Union([Type.Literal('done'), Type.Literal('filled'), Type.Literal('refunded')]),
  asset_id: Type.Optional(Type.String()),
  amount: Type.Optional(Amount),
  pool_id: Type.Optional(Type.String()),
  amount_x: Type.Optional(Amount),
  amount_y: Type.Optional(Amount),
  shares: Type.Optional(Amount),
  asset_in: Type.Optional(Type.String()),
  asset_out: Type.Optional(Type.String()),
  amount_in: Type.Optional(Amount),
  min_out: Type.Optional(Amount),
  deadline_height: Type.Optional(Type.Integer({ minimum: 0 })),
  fee: Type.Optional(Amount),
  protocol_fee: Type.Optional(Amount),
  amount_out: Type.Optional(Amount),
  reason: Type.Optional(Type.Union([Type.Null(), Type.Literal('min_out'), Type.Literal('deadline')])),
  price_num: Type.Optional(Amount),
  price_den: Type.Optional(Amount),
});

const Marker = Type.Object({});
const assetPart = keyPart.hash('asset_id');
const exchangeAssetPart = keyPart.string('asset', { maxLength: 66, pattern: EXCHANGE_ASSET_RE });
const activityKinds = /^(dex_deposit|dex_withdraw|create_pool|add_liquidity|remove_liquidity|swap)$/;

export const assets = defineStore(PLUGIN, { name: 'assets', description: 'an issued asset (§55), by id', key: ['asset', assetPart], value: AssetRecord });

export const symbols = defineStore(PLUGIN, {
  name: 'symbols',
  description: 'which asset holds a symbol (symbols are unique and never case-folded)',
  key: ['symbol', keyPart.string('symbol', { maxLength: 12, pattern: SYMBOL_RE })],
  value: Type.Object({ id: Type.String() }),
});

export const issueOrder = defineStore(PLUGIN, {
  name: 'issueOrder',
  description: 'the asset list in its order: first-issue height, then id',
  key: ['issued', keyPart.integer('height'), assetPart],
  value: Marker,
});

export const issuerAssets = defineStore(PLUGIN, {
  name: 'issuerAssets',
  description: "an issuer's assets, in the asset list's order (the list's issuer filter)",
  key: ['issuer', keyPart.address('issuer'), keyPart.integer('height'), assetPart],
  value: Marker,
});

export const balances = defineStore(PLUGIN, {
  name: 'balances',
  description: "an address's main balance of an issued asset (non-zero only)",
  key: ['balance', keyPart.address('address'), assetPart],
  value: Amount,
  encoding: 'decimal',
});

export const exchangeBalances = defineStore(PLUGIN, {
  name: 'exchangeBalances',
  description: "an address's exchange balance of an issued asset or ucoin (non-zero only; ucoin ones are held by the exchange escrow account)",
  key: ['xbalance', keyPart.address('address'), exchangeAssetPart],
  value: Amount,
  encoding: 'decimal',
});

export const pools = defineStore(PLUGIN, { name: 'pools', description: 'a pool (§58), by id', key: ['pool', keyPart.hash('pool_id')], value: PoolRecord });

export const poolsByAsset = defineStore(PLUGIN, {
  name: 'poolsByAsset',
  description: "the pools an asset is in (the pool list's asset filter)",
  key: ['pool-asset', exchangeAssetPart, keyPart.hash('pool_id')],
  value: Marker,
});

export const positions = defineStore(PLUGIN, {
  name: 'positions',
  description: "an address's shares of a pool (non-zero only; the locked shares are nobody's)",
  key: ['position', keyPart.address('address'), keyPart.hash('pool_id')],
  value: Amount,
  encoding: 'decimal',
});

export const batches = defineStore(PLUGIN, {
  name: 'batches',
  description: "the swaps escrowed in a pool's open batch, in block order; emptied by the endBlock that clears them",
  key: ['batch', keyPart.hash('pool_id'), keyPart.integer('seq', { width: 6 })],
  value: PendingSwap,
});

export const batchPools = defineStore(PLUGIN, {
  name: 'batchPools',
  description: 'the pools with an open batch in this block and their swap count; emptied with the batches',
  key: ['batch-pool', keyPart.hash('pool_id')],
  value: Type.Object({ swaps: Type.Integer({ minimum: 0 }) }),
});

export const activity = defineStore(PLUGIN, {
  name: 'activity',
  description: 'an exchange activity record (§61): one per applied exchange operation and per cleared swap',
  key: ['activity', keyPart.integer('height'), keyPart.hash('tx_hash')],
  value: ActivityRecord,
});

export const activityByAddress = defineStore(PLUGIN, {
  name: 'activityByAddress',
  description: "an address's activity, by height",
  key: ['activity-address', keyPart.address('address'), keyPart.integer('height'), keyPart.hash('tx_hash')],
  value: Marker,
});

export const activityByPool = defineStore(PLUGIN, {
  name: 'activityByPool',
  description: "a pool's activity, by height",
  key: ['activity-pool', keyPart.hash('pool_id'), keyPart.integer('height'), keyPart.hash('tx_hash')],
  value: Marker,
});

export const activityByKind = defineStore(PLUGIN, {
  name: 'activityByKind',
  description: "one kind's activity, by height",
  key: ['activity-kind', keyPart.string('kind', { maxLength: 16, pattern: activityKinds }), keyPart.integer('height'), keyPart.hash('tx_hash')],
  value: Marker,
});

export const activityByPoolKind = defineStore(PLUGIN, {
  name: 'activityByPoolKind',
  description: "one kind's activity in a pool, by height",
  key: ['activity-pool-kind', keyPart.hash('pool_id'), keyPart.string('kind', { maxLength: 16, pattern: activityKinds }), keyPart.integer('height'), keyPart.hash('tx_hash')],
  value: Marker,
});

export const counts = defineStore(PLUGIN, {
  name: 'counts',
  description: 'the size of a paged list (assets, an issuer\'s, holdings, pools, positions, activity), kept with its entries',
  key: ['count', keyPart.string('list', { maxLength: 256 })],
  value: Type.Integer({ minimum: 0 }),
  encoding: 'record',
});

export const ALL_STORES = [assets, symbols, issueOrder, issuerAssets, balances, exchangeBalances, pools, poolsByAsset, positions, batches, batchPools, activity, activityByAddress, activityByPool, activityByKind, activityByPoolKind, counts];
