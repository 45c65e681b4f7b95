import type { Logger } from 'pino';
import type { BlockRecord } from '../model/types.js';
import { toHex0x } from '../codec/hex.js';
import { utf8Bytes } from '../codec/utf8.js';
import { WriteBatch } from '../state/kv.js';
import { EMPTY_ROOT, type StateTree } from '../state/tree/index.js';
import type { ChainStore, StateView } from '../store/chain-store.js';
import type { CommitProgress } from './commit-progress.js';
import type { ValidatorSets } from './validator-sets.js';

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
  }
}
