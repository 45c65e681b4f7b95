import { accountStateKeys } from '../state/accounts.js';

/** What a transaction names: sender and recipient (a relayed body's fields, or a rebuilt `Tx`'s). */
export interface Parties {
  readonly from?: unknown;
  readonly to?: unknown;
}

/**
 * The committed state keys a batch of transactions is sure to read: each sender's and each
 * recipient's account record and bound key (admission reads both of the sender, execution both of
 * the sender and the record of the recipient, a plain transfer `get`s the recipient whole). The
 * list only says what to fetch ahead, in one LevelDB call; a key left out is read when needed and
 * one not needed is a wasted read, never a different result.
 */
export function accountKeysOf(txs: Iterable<Parties>): string[] {
  const keys: string[] = [];
  const seen = new Set<string>();
  for (const tx of txs) {
    for (const address of [tx.from, tx.to]) {
      if (typeof address !== 'string' || address === '' || seen.has(address)) continue;
      seen.add(address);
      keys.push(...accountStateKeys(address));
    }
  }
  return keys;
}
