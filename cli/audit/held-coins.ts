import { ACCOUNTS_NAMESPACE, accountsReader } from '../../kernel/state/accounts.js';
import type { StateSource } from '../../kernel/state/overlay.js';
import type { BlockEvent } from '../../kernel/model/types.js';

/**
 * Where the shipped plugins keep coins and how they mint and burn them outside transaction fees:
 * what the supply check of `chain audit` (and the tests' supply model) sums. Sponsor pools, vaults,
 * the assets exchange's escrow and the like are accounts, so their coins count as balances; only
 * holdings kept outside accounts are listed here. A plugin that holds coins outside accounts, or
 * mints or burns them outside fees, must be added here, or the audit reports its first such block.
 */
export interface HeldCoins {
  readonly balances: bigint;
  readonly stakes: bigint;
  readonly delegations: bigint;
  readonly escrows: bigint;
  readonly total: bigint;
}

const decoder = new TextDecoder();
const big = (v: unknown): bigint => BigInt((v as { $big: string }).$big);

export async function heldCoins(state: StateSource): Promise<HeldCoins> {
  const accounts = accountsReader(state);
  let balances = 0n;
  for (const [key] of await state.scan(`${ACCOUNTS_NAMESPACE}/`)) balances += (await accounts.get(key.slice(ACCOUNTS_NAMESPACE.length + 1))).balance;
  const amount = (raw: Uint8Array): bigint => big((JSON.parse(decoder.decode(raw)) as { amount: unknown }).amount);
  let stakes = 0n;
  for (const [, raw] of await state.scan('staking/stake/')) stakes += amount(raw);
  let delegations = 0n;
  for (const [, raw] of await state.scan('staking/delegation/')) delegations += amount(raw);
  let escrows = 0n;
  for (const [, raw] of await state.scan('sentinel/held/')) {
    const held = JSON.parse(decoder.decode(raw)) as { status: string; value: unknown };
    if (held.status === 'held') escrows += big(held.value);
  }
  return { balances, stakes, delegations, escrows, total: balances + stakes + delegations + escrows };
}

const ucoin = (v: unknown): bigint => (typeof v === 'bigint' ? v : BigInt(v as number | string));

/**
 * Coins a block created (faucet credits, staking rewards, this chain's coin coming back over IBC:
 * its escrow was burned by the ack, decisions.md §67–68) and destroyed outside its fees (slashes;
 * an IBC ack's burn is in the fees burned), from its events. IBC vouchers (`ibc/…` denoms) are not
 * the coin.
 */
export function mintedAndBurned(events: readonly BlockEvent[]): { minted: bigint; burned: bigint } {
  let minted = 0n;
  let burned = 0n;
  for (const e of events) {
    if (e.type === 'faucet' || e.type === 'reward_paid') minted += ucoin(e.data.amount);
    else if (e.type === 'ibc_recv' && typeof e.data.credited_denom === 'string' && !e.data.credited_denom.startsWith('ibc/')) minted += ucoin(e.data.amount);
    else if (e.type === 'validator_slashed') burned += ucoin(e.data.burned);
  }
  return { minted, burned };
}
