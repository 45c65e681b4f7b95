import type { ReadonlyStore, Store } from '../../kernel/sdk.js';
import { badRequest } from '../../kernel/sdk.js';
import { denoms, vouchers } from './store.js';

/*
 * Voucher balances (decisions.md §68). A denom's `supply` is what was minted less what was burned,
 * so it always equals the sum of its holders' balances, escrowed ones included: every change goes
 * through these three functions.
 */

export async function voucherBalance(store: ReadonlyStore, holder: string, hash: string): Promise<bigint> {
  return (await vouchers.get(store, holder, hash)) ?? 0n;
}

function setBalance(store: Store, holder: string, hash: string, amount: bigint): void {
  if (amount === 0n) vouchers.delete(store, holder, hash);
  else vouchers.set(store, holder, hash, amount);
}

/** Credits newly minted vouchers of `trace` (its denom record created on first use). */
export async function mintVoucher(store: Store, holder: string, hash: string, trace: { trace: string; base_denom: string; channel: string }, amount: bigint): Promise<void> {
  const denom = (await denoms.get(store, hash)) ?? { ...trace, supply: 0n };
  denoms.set(store, hash, { ...denom, supply: denom.supply + amount });
  setBalance(store, holder, hash, (await voucherBalance(store, holder, hash)) + amount);
}

export async function moveVoucher(store: Store, from: string, to: string, hash: string, amount: bigint): Promise<void> {
  const have = await voucherBalance(store, from, hash);
  if (have < amount) throw badRequest(`insufficient vouchers: ${from} holds ${have} of ibc/${hash}, not ${amount}`);
  setBalance(store, from, hash, have - amount);
  setBalance(store, to, hash, (await voucherBalance(store, to, hash)) + amount);
}

export async function burnVoucher(store: Store, holder: string, hash: string, amount: bigint): Promise<void> {
  const have = await voucherBalance(store, holder, hash);
  const denom = await denoms.get(store, hash);
  if (have < amount || denom === undefined || denom.supply < amount) throw new Error(`ibc: burning ${amount} of ibc/${hash} that ${holder} does not hold`);
  setBalance(store, holder, hash, have - amount);
  denoms.set(store, hash, { ...denom, supply: denom.supply - amount });
}
