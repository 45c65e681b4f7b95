import type { Static } from '@sinclair/typebox';
import type { ReadonlyStore, Store } from '../../kernel/sdk.js';
import { activity, activityByAddress, activityByKind, activityByPool, activityByPoolKind, assets, balances, counts, exchangeBalances, positions, UCOIN, type ActivityRecord, type AssetRecord } from './store.js';
import { COIN_DENOMINATION, type Denomination } from './units.js';

/**
 * Reads and writes of balances, positions and the activity history, each keeping the count of
 * the list it belongs to (so a route pages it with a bounded scan, never reading it whole) and
 * deleting a row that falls to 0 (lists show non-zero rows only, §57, §61).
 */

/**
 * The account that holds every ucoin of the exchange (exchange balances and reserves of `ucoin`):
 * a `ucoin` deposit moves coins into it through `ctx.accounts` (the kernel's interception point,
 * so the sentinel scores it and a session key's cap counts it), a withdrawal moves them back, and
 * a protocol fee paid in ucoin is burned from it. Its balance equals the exchange's ucoin at every
 * height, and the chain's supply check counts it as an account. Nobody can sign for it or send to
 * it (a plain transfer to an unserved system address is refused).
 */
export const EXCHANGE_ESCROW = 'chain:system.assets.escrow';

export type Asset = Static<typeof AssetRecord>;
export type Activity = Static<typeof ActivityRecord>;

export const listOf = {
  assets: 'assets',
  issuer: (issuer: string) => `issuer:${issuer}`,
  holdings: (address: string) => `holdings:${address}`,
  exchangeHoldings: (address: string) => `exchange:${address}`,
  pools: 'pools',
  poolsOf: (asset: string) => `pools:${asset}`,
  positions: (address: string) => `positions:${address}`,
  activity: 'activity',
  activityOf: (address: string) => `activity:${address}`,
  activityOfPool: (pool: string) => `activity-pool:${pool}`,
  activityOfKind: (kind: string) => `activity-kind:${kind}`,
  activityOfPoolKind: (pool: string, kind: string) => `activity-pool-kind:${pool}:${kind}`,
};

export async function countOf(store: ReadonlyStore, list: string): Promise<number> {
  return (await counts.get(store, list)) ?? 0;
}

export async function bump(store: Store, list: string, delta: number): Promise<void> {
  const next = (await countOf(store, list)) + delta;
  if (next < 0) throw new Error(`count of ${list} would fall below 0`);
  if (next === 0) counts.delete(store, list);
  else counts.set(store, list, next);
}

export async function mainBalance(store: ReadonlyStore, address: string, asset: string): Promise<bigint> {
  return (await balances.get(store, address, asset)) ?? 0n;
}

export async function setMainBalance(store: Store, address: string, asset: string, amount: bigint): Promise<void> {
  const before = await mainBalance(store, address, asset);
  if (amount < 0n) throw new Error(`main balance of ${address} in ${asset} would be ${amount}`);
  if (amount === 0n) balances.delete(store, address, asset);
  else balances.set(store, address, asset, amount);
  if ((before === 0n) !== (amount === 0n)) await bump(store, listOf.holdings(address), amount === 0n ? -1 : 1);
}

export async function exchangeBalance(store: ReadonlyStore, address: string, asset: string): Promise<bigint> {
  return (await exchangeBalances.get(store, address, asset)) ?? 0n;
}

export async function setExchangeBalance(store: Store, address: string, asset: string, amount: bigint): Promise<void> {
  const before = await exchangeBalance(store, address, asset);
  if (amount < 0n) throw new Error(`exchange balance of ${address} in ${asset} would be ${amount}`);
  if (amount === 0n) exchangeBalances.delete(store, address, asset);
  else exchangeBalances.set(store, address, asset, amount);
  if ((before === 0n) !== (amount === 0n)) await bump(store, listOf.exchangeHoldings(address), amount === 0n ? -1 : 1);
}

export async function addExchangeBalance(store: Store, address: string, asset: string, delta: bigint): Promise<void> {
  await setExchangeBalance(store, address, asset, (await exchangeBalance(store, address, asset)) + delta);
}

export async function positionOf(store: ReadonlyStore, address: string, pool: string): Promise<bigint> {
  return (await positions.get(store, address, pool)) ?? 0n;
}

export async function setPosition(store: Store, address: string, pool: string, shares: bigint): Promise<void> {
  const before = await positionOf(store, address, pool);
  if (shares < 0n) throw new Error(`position of ${address} in ${pool} would be ${shares}`);
  if (shares === 0n) positions.delete(store, address, pool);
  else positions.set(store, address, pool, shares);
  if ((before === 0n) !== (shares === 0n)) await bump(store, listOf.positions(address), shares === 0n ? -1 : 1);
}

/** What the `*_human` of an exchange asset needs: `ucoin` is the coin, else the asset's record (undefined for an unknown one). */
export async function denominationOf(store: ReadonlyStore, asset: string): Promise<(Denomination & { readonly record?: Asset }) | undefined> {
  if (asset === UCOIN) return COIN_DENOMINATION;
  const record = await assets.get(store, asset);
  return record === undefined ? undefined : { symbol: record.symbol, decimals: record.decimals, record };
}

/** Writes one activity record (§61) and its entries in the address's, pool's and kind's lists. */
export async function recordActivity(store: Store, r: Activity): Promise<void> {
  activity.set(store, r.height, r.tx_hash, r);
  await bump(store, listOf.activity, 1);
  activityByAddress.set(store, r.address, r.height, r.tx_hash, {});
  await bump(store, listOf.activityOf(r.address), 1);
  activityByKind.set(store, r.kind, r.height, r.tx_hash, {});
  await bump(store, listOf.activityOfKind(r.kind), 1);
  if (r.pool_id !== undefined) {
    activityByPool.set(store, r.pool_id, r.height, r.tx_hash, {});
    await bump(store, listOf.activityOfPool(r.pool_id), 1);
    activityByPoolKind.set(store, r.pool_id, r.kind, r.height, r.tx_hash, {});
    await bump(store, listOf.activityOfPoolKind(r.pool_id, r.kind), 1);
  }
}
