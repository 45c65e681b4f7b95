import { utf8Bytes } from '../codec/utf8.js';
import type { GenesisAccountRange } from '../config/genesis.js';
import { sha3Hex0x } from '../crypto/hash.js';
import type { ShardView } from '../crypto/shard.js';
import { freshAccountEntry } from '../state/accounts.js';
import { WriteBatch } from '../state/kv.js';
import { EMPTY_ROOT, type StateTree } from '../state/tree/index.js';
import type { ChainStore } from '../store/chain-store.js';

/** Accounts written per tree update and store write: bounds the genesis writer's memory whatever a range's count. */
export const GENESIS_RANGE_CHUNK = 16_384;

/**
 * The i-th (0-based) address of the genesis range named `seed`: `chain:` + 15 hex of
 * SHA3-256(`ch-genesis-range|<seed>|<i>`) + `.human`, the key-derived form of decisions.md §3
 * computed from a seed instead of a public key, so a million of them cost a million hashes and no
 * key generation. No key is known to hash to it: such an account can receive, never sign.
 */
export function genesisRangeAddress(seed: string, index: number): string {
  return 'chain:' + sha3Hex0x(`ch-genesis-range|${seed}|${index}`).slice(2, 17) + '.human';
}

/** Every address of a range in index order, with the balance each gets. */
export function* genesisRangeAccounts(range: GenesisAccountRange): Generator<readonly [address: string, balance: bigint]> {
  const balance = BigInt(range.balance);
  for (let i = 0; i < range.count; i++) yield [genesisRangeAddress(range.seed, i), balance];
}

/**
 * Writes the accounts of the genesis ranges this shard owns into an empty store, `chunk` at a
 * time: each chunk is one tree update from the previous chunk's root and one store write of its
 * state entries and tree nodes, so memory stays at a chunk however many accounts there are, and
 * the root is the tree's root of the resulting key set (the tree's shape depends only on the keys,
 * not on how they were batched). Returns that root, from which the rest of genesis goes on.
 *
 * Nothing here is the committed genesis yet: the store's head stays empty until `commitGenesis`,
 * so a node stopped half-way starts genesis again and rewrites the same bytes. An address drawn
 * twice (two equal 60-bit prefixes) is funded once, the same on every node.
 */
export async function writeGenesisRanges(d: { readonly store: ChainStore; readonly tree: StateTree; readonly shards: ShardView }, ranges: readonly GenesisAccountRange[], chunk = GENESIS_RANGE_CHUNK): Promise<{ root: Uint8Array; accounts: number }> {
  let root = EMPTY_ROOT;
  let accounts = 0;
  let pending = new Map<string, Uint8Array>();
  const flush = async (): Promise<void> => {
    if (pending.size === 0) return;
    const entries = [...pending];
    pending = new Map();
    const batch = new WriteBatch();
    root = await d.tree.update(root, entries.map(([k, v]) => [utf8Bytes(k), v] as const), batch);
    await d.store.writeStaged(entries, batch.ops);
    d.tree.releasePending();
  };
  for (const range of ranges) {
    for (const [address, balance] of genesisRangeAccounts(range)) {
      if (!d.shards.owns(address)) continue;
      const [key, value] = freshAccountEntry(address, balance);
      pending.set(key, value);
      accounts++;
      if (pending.size >= chunk) await flush();
    }
  }
  await flush();
  return { root, accounts };
}
