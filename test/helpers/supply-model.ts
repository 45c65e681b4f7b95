import { accountsReader } from '../../kernel/state/accounts.js';
import { applyScanOptions, type StateSource } from '../../kernel/state/overlay.js';
import { heldCoins, mintedAndBurned, type HeldCoins } from '../../kernel/state/supply.js';
import type { BlockEvent } from '../../kernel/model/types.js';
import { PLUGIN_CATALOGUE } from '../../plugins/index.js';

/**
 * An independent model of staking's rewards (decisions.md §33) for tests that check the supply:
 * the positions a run opens, changes and closes, settled at every reward height (beginBlock) and
 * whenever an operation pays what accrued; `minted` is what the chain should have created.
 */
export interface Position {
  amount: bigint;
  /** Height rewards were last paid up to. */
  paid: number;
  /** apy in basis points: genesis_apy_bps for a genesis validator's stake, base_apy_bps otherwise. */
  rate: bigint;
  /** A delegation's validator commission in basis points; absent for a self-stake. */
  commission?: bigint;
  /**
   * Whose it is, for the records a payout writes (decisions.md §97): the staker, and for a
   * delegation its validator. Without it the model counts what it mints but lists no records.
   */
  who?: { readonly staker: string; readonly validator?: string };
}

/** A reward record as the chain must have written it: one per non-zero payout. */
export interface ExpectedReward {
  readonly height: number;
  readonly source: 'stake' | 'delegation' | 'commission';
  readonly staker: string;
  readonly counterparty: string;
  readonly amount: bigint;
}

export class RewardModel {
  readonly positions = new Map<string, Position>();
  minted = 0n;
  /** Every payout of a position that says whose it is, in the order the model made them. */
  readonly payouts: ExpectedReward[] = [];

  constructor(private readonly p: { interval: number; blocksPerYear: bigint }) {}

  open(key: string, position: Position): void {
    this.positions.set(key, position);
  }

  /** Pays what `key` accrued up to height `h` (elapsed capped at one interval). */
  settle(key: string, h: number): void {
    const p = this.positions.get(key);
    if (!p) throw new Error(`no position ${key}`);
    const elapsed = BigInt(Math.min(h - p.paid, this.p.interval));
    const year = this.p.blocksPerYear;
    const pay = (source: ExpectedReward['source'], staker: string | undefined, counterparty: string | undefined, amount: bigint): void => {
      this.minted += amount;
      if (amount > 0n && staker !== undefined && counterparty !== undefined) this.payouts.push({ height: h, source, staker, counterparty, amount });
    };
    const who = p.who;
    if (p.commission === undefined) {
      pay('stake', who?.staker, who?.staker, (p.amount * p.rate * elapsed) / (10_000n * year));
    } else {
      pay('delegation', who?.staker, who?.validator, (p.amount * p.rate * (10_000n - p.commission) * elapsed) / (100_000_000n * year));
      pay('commission', who?.validator, who?.staker, (p.amount * p.rate * p.commission * elapsed) / (100_000_000n * year));
    }
    p.paid = h;
  }

  /** An addition: pays what accrued, then the amount grows. */
  add(key: string, h: number, amount: bigint): void {
    this.settle(key, h);
    this.positions.get(key)!.amount += amount;
  }

  /** Unstake or undelegate: pays what accrued, then the position is gone. */
  close(key: string, h: number): void {
    this.settle(key, h);
    this.positions.delete(key);
  }

  /** beginBlock of height `h`: every position, at a reward height. */
  begin(h: number): void {
    if (h % this.p.interval === 0) for (const key of this.positions.keys()) this.settle(key, h);
  }
}

/**
 * What a state holds, by where: every account balance (sponsor pools, vaults, escrow accounts are
 * accounts) and every holding a shipped plugin declares (`supply` on its definition: staking's
 * stakes and delegations, the sentinel's held transfers). The same sum `chain audit` checks at
 * every height and the history checker at the end of a fault scenario (kernel/state/supply.ts).
 */
export const heldSupply = (state: StateSource): Promise<HeldCoins> => heldCoins(state, PLUGIN_CATALOGUE.values());

/**
 * The ibc plugin's holdings (decisions.md §67–68). Its native escrow is an account
 * (`chain:ibc.escrow.<channel>`, counted in `heldSupply`'s balances) and an ack's burn is in
 * `total_burned`; what it adds to the coin's equation is the ucoin a returning coin re-creates,
 * bounded by each channel's `outstanding`. Vouchers are not the coin: each denom's `supply` must
 * equal what its holders hold, escrow included.
 */
export async function ibcHoldings(state: StateSource): Promise<{ outstanding: bigint; escrowAccounts: bigint; vouchersHeld: Map<string, bigint>; voucherSupply: Map<string, bigint> }> {
  const big = (x: { $big: string }): bigint => BigInt(x.$big);
  let outstanding = 0n;
  let escrowAccounts = 0n;
  const accounts = accountsReader(state);
  for (const [key, raw] of await state.scan('ibc/channels/')) {
    const ch = JSON.parse(new TextDecoder().decode(raw)) as { outstanding: { $big: string } };
    outstanding += big(ch.outstanding);
    escrowAccounts += (await accounts.get(`chain:ibc.escrow.${key.slice('ibc/channels/'.length)}`)).balance;
  }
  const vouchersHeld = new Map<string, bigint>();
  for (const [key, raw] of await state.scan('ibc/vouchers/')) {
    const hash = key.slice(key.lastIndexOf('/') + 1);
    vouchersHeld.set(hash, (vouchersHeld.get(hash) ?? 0n) + BigInt(new TextDecoder().decode(raw)));
  }
  const voucherSupply = new Map<string, bigint>();
  for (const [key, raw] of await state.scan('ibc/denoms/')) voucherSupply.set(key.slice('ibc/denoms/'.length), big((JSON.parse(new TextDecoder().decode(raw)) as { supply: { $big: string } }).supply));
  return { outstanding, escrowAccounts, vouchersHeld, voucherSupply };
}

/** Every reward record a state holds (decisions.md §97), as the model lists them. */
export async function rewardRecords(state: StateSource): Promise<ExpectedReward[]> {
  return (await state.scan('staking/reward/')).map(([, raw]) => {
    const r = JSON.parse(new TextDecoder().decode(raw)) as { height: number; source: ExpectedReward['source']; staker: string; counterparty: string; amount: { $big: string } };
    return { height: r.height, source: r.source, staker: r.staker, counterparty: r.counterparty, amount: BigInt(r.amount.$big) };
  });
}

/** A record list in one order, for comparing the chain's with the model's whatever order each came in. */
export function sortedRewards(rs: readonly ExpectedReward[]): string[] {
  return rs.map((r) => `${String(r.height).padStart(9, '0')} ${r.source} ${r.staker} ${r.counterparty} ${r.amount}`).sort();
}

/** A state read from a snapshot's entries (`[key, value hex]`, ascending), for the readers above. */
export function entriesState(entries: ReadonlyArray<readonly [string, string]>): StateSource {
  const rows = entries.map(([k, v]) => [k, Uint8Array.from(Buffer.from(v, 'hex'))] as [string, Uint8Array]);
  const byKey = new Map(rows);
  return {
    get: async (key) => byKey.get(key),
    scan: async (prefix, options) => applyScanOptions(rows.filter(([k]) => k.startsWith(prefix)), options),
  };
}

/** The sum of one bigint field over the records under `prefix` (reward amounts, slash burns). */
export async function recordedSum(state: StateSource, prefix: string, field: string): Promise<bigint> {
  let sum = 0n;
  for (const [, raw] of await state.scan(prefix)) sum += BigInt((JSON.parse(new TextDecoder().decode(raw)) as Record<string, { $big: string }>)[field]!.$big);
  return sum;
}

/**
 * The assets plugin's holdings (decisions.md §62) read from a state: per issued asset, its record's
 * `supply` and `burned` and what main balances, exchange balances and pool reserves hold of it;
 * and the exchange's ucoin (exchange balances and reserves of `ucoin`) beside the escrow
 * account's balance, which holds those coins as an account (so the coin supply check above counts
 * them once, as a balance). `openBatches` counts swaps escrowed in a batch: none at a committed
 * height.
 */
export interface AssetHoldings {
  readonly assets: ReadonlyMap<string, { supply: bigint; burned: bigint; held: bigint }>;
  readonly exchangeUcoin: bigint;
  readonly escrowBalance: bigint;
  readonly openBatches: number;
}

export async function assetHoldings(state: StateSource, escrow = 'chain:system.assets.escrow'): Promise<AssetHoldings> {
  const text = (raw: Uint8Array): string => new TextDecoder().decode(raw);
  const big = (v: unknown): bigint => BigInt((v as { $big: string }).$big);
  const assets = new Map<string, { supply: bigint; burned: bigint; held: bigint }>();
  for (const [, raw] of await state.scan('assets/asset/')) {
    const a = JSON.parse(text(raw)) as { id: string; supply: unknown; burned: unknown };
    assets.set(a.id, { supply: big(a.supply), burned: big(a.burned), held: 0n });
  }
  const hold = (asset: string, amount: bigint): void => {
    const a = assets.get(asset);
    if (a === undefined) throw new Error(`a balance or reserve of ${asset}, which is no asset`);
    a.held += amount;
  };
  let exchangeUcoin = 0n;
  for (const [key, raw] of await state.scan('assets/balance/')) hold(key.slice(key.lastIndexOf('/') + 1), BigInt(text(raw)));
  for (const [key, raw] of await state.scan('assets/xbalance/')) {
    const asset = key.slice(key.lastIndexOf('/') + 1);
    if (asset === 'ucoin') exchangeUcoin += BigInt(text(raw));
    else hold(asset, BigInt(text(raw)));
  }
  for (const [, raw] of await state.scan('assets/pool/')) {
    const p = JSON.parse(text(raw)) as { asset_x: string; asset_y: string; reserve_x: unknown; reserve_y: unknown };
    for (const [asset, reserve] of [[p.asset_x, big(p.reserve_x)], [p.asset_y, big(p.reserve_y)]] as const) {
      if (asset === 'ucoin') exchangeUcoin += reserve;
      else hold(asset, reserve);
    }
  }
  const openBatches = (await state.scan('assets/batch/')).length;
  return { assets, exchangeUcoin, escrowBalance: (await accountsReader(state).get(escrow)).balance, openBatches };
}

/** What one block's events say the catalogue's plugins created and destroyed beside fees (kernel/state/supply.ts). */
export const mintedAndBurnedBy = (events: readonly BlockEvent[]): { minted: bigint; burned: bigint } => mintedAndBurned(events, PLUGIN_CATALOGUE.values());
