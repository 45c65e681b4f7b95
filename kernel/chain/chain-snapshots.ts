import type { Logger } from 'pino';
import type { BlockRecord } from '../model/types.js';
import { toHex0x } from '../codec/hex.js';
import { utf8Bytes } from '../codec/utf8.js';
import { WriteBatch } from '../state/kv.js';
import { EMPTY_ROOT, type StateTree } from '../state/tree/index.js';
import type { ChainStore, StateView } from '../store/chain-store.js';
import type { CommitProgress } from './commit-progress.js';
import type { ValidatorSets } from './validator-sets.js';
import type { StateSource } from '../state/overlay.js';
import { parseHex } from '../codec/hex.js';
import { EntriesHasher, entryJson, isSnapshotEntry } from '../replica/snapshot.js';
import { SnapshotStreamReader } from '../replica/snapshot-stream.js';

/** Snapshot entries per tree update and staged write of a streamed install: bounds its memory. */
export const SNAPSHOT_INSTALL_CHUNK = 16_384;

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
   * Installs a snapshot into an empty store as its document arrives (`chunks`: the bytes of
   * `GET /api/v1/state/snapshot`), never holding its state or JSON whole: each run of `chunk`
   * entries becomes one state-tree update from the previous root and one staged store write, and
   * the snapshot is accepted only at the end, once its entries hash, signature, certificate
   * (`accept`, judged on the staged state) and the recomputed root all agree. A refused or cut-off
   * document leaves the store empty again. Returns the installed block's height and key count.
   */
  async installSnapshotStream(chunks: AsyncIterable<Uint8Array>, accept: (head: unknown, entriesHash: string, state: StateSource) => Promise<{ ok: true; block: BlockRecord } | { ok: false; reason: string }>, chunk = SNAPSHOT_INSTALL_CHUNK): Promise<{ height: number; keys: number }> {
    const store = this.d.store;
    await store.load();
    // What an earlier attempt staged before it was cut off.
    await store.discardStaged();
    const head: Record<string, unknown> = {};
    const hasher = new EntriesHasher();
    let root = EMPTY_ROOT;
    let keys = 0;
    let previous: string | null = null;
    let pending: Array<readonly [string, Uint8Array]> = [];
    const flush = async (): Promise<void> => {
      if (pending.length === 0) return;
      const entries = pending;
      pending = [];
      const batch = new WriteBatch();
      root = await this.d.tree.update(root, entries.map(([k, v]) => [utf8Bytes(k), v] as const), batch);
      await store.writeStaged(entries, batch.ops);
      this.d.tree.releasePending();
    };
    const reader = new SnapshotStreamReader({
      field: (name, value) => {
        head[name] = value;
      },
      entry: async (e) => {
        if (!isSnapshotEntry(e)) throw new Error('snapshot refused: snapshot entries are malformed');
        const [key, hex] = e;
        if (previous !== null && !(previous < key)) throw new Error('snapshot refused: snapshot entries are not strictly ascending');
        previous = key;
        hasher.add(entryJson(key, hex));
        pending.push([key, parseHex(hex)!]);
        keys++;
        if (pending.length >= chunk) await flush();
      },
    });
    try {
      for await (const bytes of chunks) await reader.push(bytes);
      reader.end();
      await flush();
      const checked = await accept(head, hasher.digest(), store.state);
      if (!checked.ok) throw new Error(`snapshot refused: ${checked.reason}`);
      const block = checked.block;
      const got = toHex0x(root);
      if (got !== block.state_root) throw new Error(`snapshot refused: its entries hash to state root ${got}, not the claimed ${block.state_root}`);
      await this.d.progress.writing(() => store.installSnapshot(block, [], []));
      this.d.sets.forget();
      this.d.log.info({ height: block.header.height, state_root: got, keys }, 'state snapshot installed');
      return { height: block.header.height, keys };
    } catch (e) {
      this.d.tree.releasePending();
      await store.discardStaged();
      throw e;
    }
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
