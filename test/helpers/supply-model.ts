import { ACCOUNTS_NAMESPACE, accountsReader } from '../../kernel/state/accounts.js';
import type { StateSource } from '../../kernel/state/overlay.js';

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
}

export class RewardModel {
  readonly positions = new Map<string, Position>();
  minted = 0n;

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
    if (p.commission === undefined) {
      this.minted += (p.amount * p.rate * elapsed) / (10_000n * year);
    } else {
      this.minted += (p.amount * p.rate * p.commission * elapsed) / (100_000_000n * year);
      this.minted += (p.amount * p.rate * (10_000n - p.commission) * elapsed) / (100_000_000n * year);
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

/** What a state holds, by where: every account balance, and the stakes and delegations staking holds. */
export async function heldSupply(state: StateSource): Promise<{ balances: bigint; stakes: bigint; delegations: bigint; total: bigint }> {
  const accounts = accountsReader(state);
  let balances = 0n;
  for (const [key] of await state.scan(`${ACCOUNTS_NAMESPACE}/`)) balances += (await accounts.get(key.slice(ACCOUNTS_NAMESPACE.length + 1))).balance;
  const amount = (raw: Uint8Array): bigint => BigInt((JSON.parse(new TextDecoder().decode(raw)) as { amount: { $big: string } }).amount.$big);
  let stakes = 0n;
  for (const [, raw] of await state.scan('staking/stake/')) stakes += amount(raw);
  let delegations = 0n;
  for (const [, raw] of await state.scan('staking/delegation/')) delegations += amount(raw);
  return { balances, stakes, delegations, total: balances + stakes + delegations };
}

/** The sum of one bigint field over the records under `prefix` (reward amounts, slash burns). */
export async function recordedSum(state: StateSource, prefix: string, field: string): Promise<bigint> {
  let sum = 0n;
  for (const [, raw] of await state.scan(prefix)) sum += BigInt((JSON.parse(new TextDecoder().decode(raw)) as Record<string, { $big: string }>)[field]!.$big);
  return sum;
}
