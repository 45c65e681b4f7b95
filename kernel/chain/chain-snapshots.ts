import type { Logger } from 'pino';
import type { BlockRecord } from '../model/types.js';
import { toHex0x } from '../codec/hex.js';
import { utf8Bytes } from '../codec/utf8.js';
import { WriteBatch } from '../state/kv.js';
import { EMPTY_ROOT, type StateTree } from '../state/tree/index.js';
import type { ChainCounters, ChainStore, StateView } from '../store/chain-store.js';
import { settleTreeAfter } from './settle-tree.js';
import type { CommitProgress } from './commit-progress.js';
import type { ValidatorSets } from './validator-sets.js';
import type { StateSource } from '../state/overlay.js';

/** Snapshot entries (and their tree leaves), then internal nodes, per staged write of a streamed install (small, as GENESIS_RANGE_CHUNK). */
export const SNAPSHOT_INSTALL_CHUNK = 2048;

export interface ChainSnapshotsDeps {
  readonly store: ChainStore;
  readonly tree: StateTree;
  readonly sets: ValidatorSets;
  readonly progress: CommitProgress;
  readonly log: Logger;
}

/**
 * The chain's state as a whole: served as a snapshot (a consistent view of one head) and
 * installed from one into an empty store, so a node can join without replaying from genesis.
 */
export class ChainSnapshots {
  constructor(private readonly d: ChainSnapshotsDeps) {}

  /** Committed state as of now, with its head, read consistently while blocks commit (GET /api/v1/state/snapshot). */
  stateView(): Promise<StateView> {
    return this.d.store.stateView();
  }

  /** Every state entry at the head, ascending by key, all at once (tests; a snapshot streams `stateView`). */
  async stateEntries(): Promise<Array<[string, Uint8Array]>> {
    return this.d.store.state.scan('');
  }

  /**
   * Installs a snapshot's state into an empty store as its entries arrive (ascending by key),
   * never holding them whole: each run of `chunk` entries is one staged store write of the entries
   * and their tree leaves, and the internal nodes are built once all are in, bottom-up over the
   * sorted key hashes (`StateTree.bulkBuild`: each node written once, nothing read back, 72 bytes
   * per key in memory). The snapshot is accepted only once every entry is
   * in, by `accept` (judged on the staged state: the serving node's signature and the certificate
   * of block h + 1) and by the recomputed root. A refusal, or an entry source that throws (a
   * malformed or cut-off document), leaves the store empty again. Returns the installed block's
   * height and key count. (`kernel/replica/snapshot-install.ts` feeds it a peer's document.)
   */
  async installStream(entries: AsyncIterable<readonly [string, Uint8Array]>, accept: (state: StateSource) => Promise<{ ok: true; block: BlockRecord; counters?: ChainCounters | undefined } | { ok: false; reason: string }>, chunk = SNAPSHOT_INSTALL_CHUNK): Promise<{ height: number; keys: number }> {
    const store = this.d.store;
    await store.load();
    // What an earlier attempt staged before it was cut off.
    await store.discardStaged();
    const build = this.d.tree.bulkBuild(chunk);
    let keys = 0;
    let previous: string | null = null;
    let pending: Array<readonly [string, Uint8Array]> = [];
    let leaves = new WriteBatch();
    let installed: number;
    const flush = async (): Promise<void> => {
      if (pending.length === 0) return;
      await store.writeStaged(pending, leaves.ops);
      pending = [];
      leaves = new WriteBatch();
    };
    try {
      for await (const entry of entries) {
        if (previous !== null && !(previous < entry[0])) throw new Error('snapshot refused: snapshot entries are not strictly ascending');
        previous = entry[0];
        build.add(utf8Bytes(entry[0]), entry[1], leaves);
        pending.push(entry);
        keys++;
        if (pending.length >= chunk) await flush();
      }
      await flush();
      const root = await build.finish((ops) => store.writeStaged([], ops), chunk);
      const checked = await accept(store.state);
      if (!checked.ok) throw new Error(`snapshot refused: ${checked.reason}`);
      const block = checked.block;
      const got = toHex0x(root);
      if (got !== block.state_root) throw new Error(`snapshot refused: its entries hash to state root ${got}, not the claimed ${block.state_root}`);
      await store.flushStaged();
      await this.d.progress.writing(() => store.installSnapshot(block, [], [], checked.counters));
      this.d.sets.forget();
      this.d.log.info({ height: block.header.height, state_root: got, keys }, 'state snapshot installed');
      installed = block.header.height;
    } catch (e) {
      // Once the head is written the install stands: a later failure is not the snapshot's refusal.
      if (store.head.state_root === '') await store.discardStaged();
      throw e;
    }
    // Installed: a failure from here on is no refusal of the snapshot, and must not discard it.
    await settleTreeAfter('the install', store, this.d.log);
    return { height: installed, keys };
  }

  /**
   * Installs a verified snapshot into an empty store. The state root is recomputed from the
   * entries and must equal the snapshot's, so altered entries are refused.
   */
  async installSnapshot(block: BlockRecord, entries: ReadonlyArray<readonly [string, Uint8Array]>): Promise<void> {
    await this.d.store.load();
    const batch = new WriteBatch();
    const root = toHex0x(await this.d.tree.update(EMPTY_ROOT, entries.map(([k, v]) => [utf8Bytes(k), v] as const), batch));
    if (root !== block.state_root) throw new Error(`snapshot refused: its entries hash to state root ${root}, not the claimed ${block.state_root}`);
    await this.d.progress.writing(() => this.d.store.installSnapshot(block, entries, batch.ops));
    this.d.sets.forget();
    this.d.tree.releasePending();
    this.d.log.info({ height: block.header.height, state_root: root, keys: entries.length }, 'state snapshot installed');
    await settleTreeAfter('the install', this.d.store, this.d.log);
  }
}
