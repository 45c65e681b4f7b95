import { assertNamespace } from './prefixed-store.js';
import { jsonRecord, type RecordCodec } from './record-codec.js';

/**
 * A plugin's writes to its own node-local index (`ctx.index`), staged while a block executes and
 * written by the kernel in that block's atomic batch: an index can never describe a block the
 * store does not hold, nor miss one it does. Write-only on purpose: an index is outside the state
 * root (a node started from a snapshot has none of the history), so consensus must not depend on
 * it. The one allowed use in a block is as a cache of something the block could recompute and
 * that is equal on every node (contracts keep their instrumented code there: a miss meters again).
 */
export interface IndexWriter {
  readonly namespace: string;
  put(key: string, value: Uint8Array): void;
  putRecord<T>(key: string, value: T, codec?: RecordCodec<T>): void;
  delete(key: string): void;
}

/** `<namespace>/<key>` and its value, null to delete. */
export type IndexWrite = readonly [key: string, value: Uint8Array | null];

/**
 * The index writes of a block, in the order staged (a later write of a key wins). A transaction
 * stages into a stage of its own whose writes join only if it succeeds, as its state writes and
 * events do.
 */
export class IndexStage {
  private readonly writes: IndexWrite[] = [];

  writer(namespace: string): IndexWriter {
    assertNamespace(namespace);
    const full = (key: string): string => {
      if (key.length === 0) throw new Error(`index ${namespace}: keys must not be empty`);
      return `${namespace}/${key}`;
    };
    const put = (key: string, value: Uint8Array): void => void this.writes.push([full(key), value]);
    return {
      namespace,
      put,
      putRecord: <T>(key: string, value: T, codec: RecordCodec<T> = jsonRecord<T>()) => put(key, codec.encode(value)),
      delete: (key) => void this.writes.push([full(key), null]),
    };
  }

  /** Appends a succeeded transaction's writes, staged apart in their own IndexStage. */
  absorb(writes: readonly IndexWrite[]): void {
    for (const w of writes) this.writes.push(w);
  }

  get staged(): readonly IndexWrite[] {
    return this.writes;
  }
}
