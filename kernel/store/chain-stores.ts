import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { utf8Bytes } from '../codec/utf8.js';
import type { KvOp, KvStore } from '../state/kv.js';
import { metaKey, PREFIX, prefixEnd, TREE_VERSIONED_NODES } from './keys.js';
import { LevelStore, type LevelWork } from './level-store.js';
import { PrefixRoutedStore } from './prefix-routed-store.js';
import { type KeyScanOutcome, PresenceFilteredStore } from './presence-filtered-store.js';

/** The data directory's LevelDB stores: everything but the state tree, and the state tree's nodes. */
export const CHAIN_STORE_DIR = 'chain';
export const TREE_STORE_DIR = 'tree';

/**
 * `tree-nodes-apart`: the state tree's versioned node records (`n/` 0xff …) in `<data_dir>/tree`,
 * the rest (its root records too) in `<data_dir>/chain` (a `tree-apart` directory of the
 * 2026-11-30 morning is moved into it when opened). `one-store`: everything in `chain`, as every
 * data directory written before 2026-11-30 keeps it (its roots, reads and proofs are unchanged;
 * it is not migrated).
 */
export type StoreLayout = 'one-store' | 'tree-nodes-apart';

const LAYOUT_KEY = metaKey('store-layout');
/**
 * State entries and address totals: the families a transfer reads by key, mostly absent at 10^6
 * accounts, which the chain store answers from a filter of its keys (presence-filtered-store.ts).
 */
const ABSENT_READS_FILTERED = [utf8Bytes(PREFIX.state), utf8Bytes(PREFIX.totals)];
/*
 * What the tree store holds: the nodes updates store, keyed by version (`TREE_VERSIONED_NODES`).
 * The root records (one per block, keyed by the root's hash, so at random places) stay in the
 * chain store, written in the block's batch after the nodes they name: in the tree store each
 * flush would carry one, spanning the store's whole range, and LevelDB would merge every level-1
 * file again instead of moving it.
 */
const LAYOUT = 'tree-nodes-apart';
/**
 * What builds of the 2026-11-30 morning recorded: e98d8ac–3af51ed kept all of `n/` in the tree
 * store, root records too; 2a3d3c5 recorded the same name with root records in the chain store.
 * Either way, or mixed (a directory of the first reopened by the second), opening it moves the
 * records under `n/` below the versioned nodes from the tree store into the chain store.
 */
const MORNING_LAYOUT = 'tree-apart';

export interface ChainStores {
  /** The stores as one key space, which is what `ChainStore` and the state tree read and write. */
  readonly kv: KvStore;
  readonly layout: StoreLayout;
  /** How the chain store's start-up scan of its keys ended (it runs beside the node's start; until it ends every read goes to LevelDB). */
  readonly keyScan: Promise<KeyScanOutcome>;
  /** True until that scan ends (`chain_store_key_scanning`). */
  keyScanning(): boolean;
  /** What each store's LevelDB has done since it opened, and the reads the chain store's key filter answered (`chain_store_files`, `chain_store_point_reads_total`, `chain_store_reads_skipped_total`, `chain_store_compaction_bytes_total`). */
  work(): Array<{ readonly store: string; readonly skippedReads: number } & LevelWork>;
}

/**
 * Opens a data directory's stores in the layout it was written in; a new one gets `tree-nodes-apart`.
 *
 * Why apart: the tree's node records are most of the bytes a block writes and are keyed by
 * version, so alone in a store each memtable flush holds only records newer than everything
 * stored and LevelDB moves its files down without rewriting them. In one store with the state
 * entries and indexes (random keys), every flush spans the whole key space, and the compactions
 * that follow rewrite the account records' ranges at every ~4 MB of block writes (~1 MB of them
 * not the tree's) instead of every ~4 MB of non-tree writes (docs/performance.md, "The state
 * tree in a store of its own").
 *
 * A directory is new when its chain store holds neither a head (`m/chain`) nor any tree node (what
 * a genesis or snapshot install stopped half-way stages first). The tree store is created before
 * the layout is recorded, so a crash in between leaves a directory that is still new.
 */
export async function openChainStores(dataDir: string): Promise<ChainStores> {
  const chainDir = join(dataDir, CHAIN_STORE_DIR);
  const treeDir = join(dataDir, TREE_STORE_DIR);
  const main = await LevelStore.open(chainDir);
  try {
    const recorded = await main.get(LAYOUT_KEY);
    if (recorded === undefined && (await holdsChainData(main))) return oneStore(main);
    const layout = recorded === undefined ? LAYOUT : new TextDecoder().decode(recorded);
    if (layout !== LAYOUT && layout !== MORNING_LAYOUT) throw new Error(`${chainDir} records a store layout this build does not know (${JSON.stringify(layout)}): was it written by a newer build?`);
    const missingTree = (): Error => new Error(`${treeDir} is missing: this data directory keeps its state tree there; restore it together with ${chainDir} from the same backup`);
    // Absent: refused before LevelDB is asked, which would make the directory (its LOCK and LOG)
    // before refusing, so that a restore copied to tree/ would land in tree/tree.
    if (recorded !== undefined && !existsSync(treeDir)) throw missingTree();
    let tree: LevelStore;
    try {
      // Once recorded, the tree store must be there (an empty one would read as a tree with no
      // nodes): LevelDB refuses an empty directory, and the refusal is said in the operator's terms.
      tree = await LevelStore.open(treeDir, {}, recorded !== undefined);
    } catch (e) {
      if (recorded !== undefined && /does not exist/.test((e as Error & { cause?: Error }).cause?.message ?? '')) throw missingTree();
      throw e;
    }
    try {
      if (recorded === undefined) await main.write([{ type: 'put', key: LAYOUT_KEY, value: utf8Bytes(LAYOUT) }], true);
      else if (layout === MORNING_LAYOUT) await moveRootRecords(tree, main);
    } catch (e) {
      await tree.close();
      throw e;
    }
    const chain = new PresenceFilteredStore(main, ABSENT_READS_FILTERED);
    return {
      // The marks: a meta key of their own, and the bare prefix, which no node key equals.
      kv: new PrefixRoutedStore(chain, tree, TREE_VERSIONED_NODES, { main: metaKey('sync-mark'), side: TREE_VERSIONED_NODES }),
      layout: LAYOUT,
      keyScan: chain.scanned,
      keyScanning: () => chain.scanning,
      work: () => [
        { store: CHAIN_STORE_DIR, skippedReads: chain.skipped, ...main.work() },
        { store: TREE_STORE_DIR, skippedReads: 0, ...tree.work() },
      ],
    };
  } catch (e) {
    await main.close();
    throw e;
  }
}

function oneStore(main: LevelStore): ChainStores {
  const chain = new PresenceFilteredStore(main, ABSENT_READS_FILTERED);
  return { kv: chain, layout: 'one-store', keyScan: chain.scanned, keyScanning: () => chain.scanning, work: () => [{ store: CHAIN_STORE_DIR, skippedReads: chain.skipped, ...main.work() }] };
}

async function holdsChainData(main: LevelStore): Promise<boolean> {
  if ((await main.get(metaKey('chain'))) !== undefined) return true;
  const start = utf8Bytes(PREFIX.treeNode);
  for await (const _ of main.iterate({ gte: start, lt: prefixEnd(start), limit: 1 })) return true;
  return false;
}

/**
 * A `tree-apart` directory into this layout: the tree store's records under `n/` below the
 * versioned nodes (root records; the bare `n/` was a sync mark) are copied into the chain store in
 * one synced batch with the new layout's name, so a crash leaves either the old directory or the
 * new one, then deleted from the tree store, where the new routing would no longer see them.
 */
async function moveRootRecords(tree: LevelStore, main: LevelStore): Promise<void> {
  const start = utf8Bytes(PREFIX.treeNode);
  const moved: KvOp[] = [];
  const gone: KvOp[] = [];
  for await (const [key, value] of tree.iterate({ gte: start, lt: TREE_VERSIONED_NODES })) {
    if (key.length > start.length) moved.push({ type: 'put', key, value });
    gone.push({ type: 'del', key });
  }
  await main.write([...moved, { type: 'put', key: LAYOUT_KEY, value: utf8Bytes(LAYOUT) }], true);
  await tree.write(gone, true);
}
