import { accountStateKeys } from '../state/accounts.js';
import { isAddress } from '../crypto/address.js';
import type { DeclaredStore } from '../state/declared-store.js';

/** What a transaction names: sender and recipient (a relayed body's fields, or a rebuilt `Tx`'s). */
export interface Parties {
  readonly from?: unknown;
  readonly to?: unknown;
}

/** Keys fetched ahead per call at most (1,024 transfers' accounts, ~680 with the devnet's two plugin records by sender): one relay message of small bodies must not make one unbounded read. */
export const MAX_READ_AHEAD_KEYS = 4_096;

/**
 * The committed state keys a batch of transactions (a relay batch, a block) reads first, to fetch
 * them in one LevelDB call before the batch runs: each sender's and recipient's account record and
 * bound key, which every transfer reads. Only well-formed addresses: a relayed body not yet checked
 * must not make the node read (and cache) keys of its choosing. The list only says what to fetch
 * ahead: a key left out is read when needed, one not needed is a wasted read, never a different
 * result (store/state-reads.ts).
 *
 * Plugins' records of a party (a sponsor's `paidby/<from>`, the sentinel's `recent/<from>`) are
 * fetched when their store declares it (`StoreSpec.readAhead`, `stores`: the loaded plugins'
 * declarations, PluginBoundary.readAheadStores). Learning such keys from cache misses was tried
 * first and dropped: any public read or unchecked body could teach it useless shapes that every
 * later batch would then fetch; a declaration is code, the same on every node, and names keys
 * only of well-formed addresses.
 */
export function readAheadKeys(txs: Iterable<Parties>, stores: readonly DeclaredStore[] = []): string[] {
  const keys = new Set<string>();
  for (const tx of txs) {
    for (const party of [tx.from, tx.to]) {
      if (!isAddress(party)) continue;
      for (const key of accountStateKeys(party)) keys.add(key);
    }
    for (const store of stores) {
      const key = store.readAheadKey({ sender: tx.from, recipient: tx.to });
      if (key !== undefined) keys.add(key);
    }
    if (keys.size >= MAX_READ_AHEAD_KEYS) break;
  }
  // The last transaction's keys may pass the bound by a few: cut there, not at a whole transaction.
  return [...keys].slice(0, MAX_READ_AHEAD_KEYS);
}
