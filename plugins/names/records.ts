import type { Static } from '@sinclair/typebox';
import { formatCoin, type ReadonlyStore, type Store } from '../../kernel/sdk.js';
import { humanTenure, nftHistory, nfts, owned, ownedCount } from './store.js';
import type { NftSummarySchema, NftRecordSchema } from './schemas.js';

export type NftRecord = Static<typeof nfts.value>;

/** The list and tenure rows that say `owner` holds `address` from `height` (kept with the record). */
async function take(store: Store, owner: string, address: string, kind: NftRecord['kind'], height: number): Promise<void> {
  owned.set(store, owner, address, { acquired_height: height });
  ownedCount.set(store, owner, ((await ownedCount.get(store, owner)) ?? 0) + 1);
  if (kind === 'human') humanTenure.set(store, owner, height, address, {});
}

async function release(store: Store, owner: string, address: string, kind: NftRecord['kind'], since: number): Promise<void> {
  owned.delete(store, owner, address);
  const left = ((await ownedCount.get(store, owner)) ?? 1) - 1;
  if (left > 0) ownedCount.set(store, owner, left);
  else ownedCount.delete(store, owner);
  if (kind === 'human') humanTenure.delete(store, owner, since, address);
}

/** A new NFT (decisions.md §38, §41) with its `register` history entry. */
export async function createNft(store: Store, address: string, r: { kind: NftRecord['kind']; name: string; owner: string; price: bigint; height: number; txHash: string }): Promise<void> {
  nfts.set(store, address, { kind: r.kind, name: r.name, owner: r.owner, registrant: r.owner, registered_height: r.height, acquired_height: r.height, price: r.price, history_count: 1 });
  nftHistory.set(store, address, 1, { type: 'register', height: r.height, tx_hash: r.txHash, from: '', to: r.owner });
  await take(store, r.owner, address, r.kind, r.height);
}

/** §40 applied: `owner` = `to`, `acquired_height`, a `transfer` entry. */
export async function moveNft(store: Store, address: string, rec: NftRecord, to: string, height: number, txHash: string): Promise<void> {
  const seq = rec.history_count + 1;
  nfts.set(store, address, { ...rec, owner: to, acquired_height: height, history_count: seq });
  nftHistory.set(store, address, seq, { type: 'transfer', height, tx_hash: txHash, from: rec.owner, to });
  await release(store, rec.owner, address, rec.kind, rec.acquired_height);
  await take(store, to, address, rec.kind, height);
}

/** §39: the `.human` name `owner` has owned longest (earliest acquisition, then lowest address). */
export async function customAddressOf(store: ReadonlyStore, owner: string): Promise<string | undefined> {
  const [first] = await humanTenure.scan(store, { prefix: [owner], limit: 1 });
  return first === undefined ? undefined : String(first.key[2]);
}

export function summaryView(address: string, r: NftRecord): Static<typeof NftSummarySchema> {
  return { address, kind: r.kind, name: r.name, owner: r.owner, registrant: r.registrant, registered_height: r.registered_height, acquired_height: r.acquired_height, price: Number(r.price), price_human: formatCoin(r.price) };
}

/** The record with its whole history, oldest first. */
export async function recordView(store: ReadonlyStore, address: string, r: NftRecord): Promise<Static<typeof NftRecordSchema>> {
  const history = (await nftHistory.scan(store, { prefix: [address] })).map((e) => e.value);
  return { ...summaryView(address, r), history };
}
