import { utf8Bytes } from '../codec/utf8.js';
import type { GenesisAccountRange } from '../config/genesis.js';
import { sha3Hex0x } from '../crypto/hash.js';
import type { ShardView } from '../crypto/shard.js';
import { freshAccountEntry } from '../state/accounts.js';
import { WriteBatch } from '../state/kv.js';
import type { StateTree, TreeBulkBuild } from '../state/tree/index.js';
import type { ChainStore } from '../store/chain-store.js';

/**
 * Accounts whose state entries and leaves go to the store per write while the ranges are derived,
 * and internal nodes per write after. Small: at 10^6 accounts, runs of 2,048 peaked at 272 MiB RSS
 * and 41 s CPU where runs of 16,384 took 426 MiB and 54 s (bench/genesis-write, side by side):
 * LevelDB copies every batch and grows its memtable past its 4 MiB buffer for a large one.
 */
export const GENESIS_RANGE_CHUNK = 2048;

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
 * Writes the accounts of the genesis ranges this shard owns into an empty store and returns the
 * root of the tree of them, from which the rest of genesis goes on. The state entries and leaves
 * go to the store `chunk` accounts at a time as they are derived; the internal nodes are built once,
 * bottom-up over the sorted key hashes, when every account is known (`StateTree.bulkBuild`): each
 * node is written once and nothing is read back, where an update per chunk rewrote the upper paths
 * with every chunk (at 10^6 accounts ~11 SHA3 and ~8 node writes per account, a store read per
 * path, and ~250 MiB of garbage per chunk). Memory: 72 bytes per account plus a chunk.
 *
 * Nothing here is the committed genesis yet: the store's head stays empty until `commitGenesis`,
 * so a node stopped half-way starts genesis again and rewrites the same bytes. An address drawn
 * twice (two equal 60-bit prefixes) is funded once, by its last draw, the same on every node.
 */
export async function writeGenesisRanges(d: { readonly store: ChainStore; readonly tree: StateTree; readonly shards: ShardView }, ranges: readonly GenesisAccountRange[], chunk = GENESIS_RANGE_CHUNK): Promise<{ root: Uint8Array; accounts: number }> {
  const { build, accounts } = await stageGenesisRanges(d, ranges, chunk);
  return { root: await build.finish((ops) => d.store.writeStaged([], ops), chunk), accounts };
}

/**
 * `writeGenesisRanges` up to the tree's internal nodes: the state entries and leaves are in the
 * store, and the returned build takes more keys before its `finish`, so the rest of genesis (its
 * listed accounts, validators, plugins' records) joins the one bottom-up build instead of an
 * update on top, which at 10^6 accounts read and rewrote ~9 nodes for each of its keys (12,000
 * listed accounts: +365 MiB RSS, measured in-process).
 */
/** Keys the rest of genesis (listed accounts, validators, plugins' records) may add without the bulk build's arrays growing. */
const GENESIS_REST_ROOM = 16_384;

export async function stageGenesisRanges(d: { readonly store: ChainStore; readonly tree: StateTree; readonly shards: ShardView }, ranges: readonly GenesisAccountRange[], chunk = GENESIS_RANGE_CHUNK): Promise<{ build: TreeBulkBuild; accounts: number }> {
  const expected = ranges.reduce((sum, r) => sum + r.count, 0);
  // This shard's share of the ranges (a random share with several shards: 5 % over it) and room for
  // the rest of genesis, which joins the same build: sized so that the arrays do not grow at the end.
  const build = d.tree.bulkBuild(Math.ceil((expected / d.shards.count) * (d.shards.count > 1 ? 1.05 : 1)) + GENESIS_REST_ROOM);
  let accounts = 0;
  let entries: Array<readonly [string, Uint8Array]> = [];
  let leaves = new WriteBatch();
  const flush = async (): Promise<void> => {
    if (entries.length === 0) return;
    await d.store.writeStaged(entries, leaves.ops);
    entries = [];
    leaves = new WriteBatch();
  };
  for (const range of ranges) {
    for (const [address, balance] of genesisRangeAccounts(range)) {
      if (!d.shards.owns(address)) continue;
      const entry = freshAccountEntry(address, balance);
      build.add(utf8Bytes(entry[0]), entry[1], leaves);
      entries.push(entry);
      accounts++;
      if (entries.length >= chunk) await flush();
    }
  }
  await flush();
  return { build, accounts };
}
