import { genesisRangeAddress } from '../kernel/chain/genesis-accounts.js';
import { deriveAddress } from '../kernel/crypto/address.js';
import { sha3 } from '../kernel/crypto/hash.js';
import type { KeyPair } from '../kernel/crypto/provider.js';
import { toHex } from '../kernel/codec/hex.js';
import { Prng } from '../kernel/state/tree/prng.js';
import type { GenesisDoc } from '../kernel/config/genesis.js';

/**
 * The load bench's devnet with `--genesis-accounts N`: N funded accounts in its genesis, and
 * transfers spread over all of them. An address is the hash of a public key (decisions.md §3),
 * so an account that signs needs a key pair (an ML-DSA-65 keygen, ~0.1–3 ms) but one that only
 * receives does not: the genesis lists the S senders' key-derived addresses and funds the other
 * N − S by a range rule (`account_ranges`, kernel/chain/genesis-accounts.ts), whose addresses cost
 * a hash each. S is what the run will send (each sender about once when N allows it), so keys are
 * derived only for senders actually used; recipients are drawn uniformly among all N, so at
 * N = 10^6 nearly every account a transfer touches is cold.
 */
export const LOAD_RANGE_SEED = 'load-bench';
/** Each account's genesis balance: far more than a run's transfers and fees take. */
export const LOAD_ACCOUNT_BALANCE = 1_000_000_000n;

export interface GenesisSpread {
  /** Accounts in the genesis, senders included. */
  readonly total: number;
  /** Keyed senders, listed in the genesis's `accounts`. */
  readonly senders: number;
  /** Recipient-only accounts, funded by the range rule. */
  readonly ranged: number;
}

/** S = min(N, transfers the run may send): a sender for every transfer where N allows. */
export function genesisSpread(total: number, transfers: number): GenesisSpread {
  const senders = Math.max(1, Math.min(total, transfers));
  return { total, senders, ranged: total - senders };
}

/** Sender i's key seed: deterministic, so a rerun signs with the same accounts. */
export function senderSeed(i: number): Uint8Array {
  return sha3(`load-bench-sender|${i}`);
}

/** The sender wallets, keys derived from their seeds with `keygen` (the pre-signing provider's). */
export function senderWallets(spread: GenesisSpread, keygen: (seed: Uint8Array) => KeyPair): Array<{ keys: KeyPair; address: string; publicKeyHex: string }> {
  return Array.from({ length: spread.senders }, (_, i) => {
    const keys = keygen(senderSeed(i));
    return { keys, address: deriveAddress(keys.publicKey), publicKeyHex: toHex(keys.publicKey) };
  });
}

/** The genesis with the spread's accounts: the senders listed (balances added), the rest as one range. */
export function withGenesisAccounts(doc: GenesisDoc, spread: GenesisSpread, senders: readonly string[]): GenesisDoc {
  const balance = LOAD_ACCOUNT_BALANCE.toString();
  return {
    ...doc,
    accounts: [...doc.accounts, ...senders.map((address) => ({ address, balance }))],
    ...(spread.ranged > 0 ? { account_ranges: [{ seed: LOAD_RANGE_SEED, count: spread.ranged, balance }] } : {}),
  };
}

/** Account `index` of N: the senders first, then the range. */
export function accountAddress(spread: GenesisSpread, senders: readonly string[], index: number): string {
  return index < spread.senders ? senders[index]! : genesisRangeAddress(LOAD_RANGE_SEED, index - spread.senders);
}

/** Recipients drawn uniformly among all N accounts but the sender, from a fixed seed (a transfer to oneself proves nothing). */
export function recipientDraw(spread: GenesisSpread, senders: readonly string[], seed = 40): (from: string) => string {
  if (spread.total < 2) throw new RangeError('spreading transfers needs at least 2 accounts');
  const prng = new Prng(seed);
  return (from) => {
    for (;;) {
      const to = accountAddress(spread, senders, prng.below(spread.total));
      if (to !== from) return to;
    }
  };
}
