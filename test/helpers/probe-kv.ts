import type { KvIterateOptions, KvOp, KvSnapshot, KvStore } from '../../kernel/state/kv.js';
import { MemoryStore } from '../../kernel/store/level-store.js';

/** Counts reads and batches, and can fail writes, around another KvStore. */
export class ProbeKv implements KvStore {
  gets = 0;
  /** Batches written: a block's commit is one. */
  writes = 0;
  failWrites = false;

  constructor(readonly inner: KvStore = new MemoryStore()) {}

  async get(key: Uint8Array): Promise<Uint8Array | undefined> {
    this.gets++;
    return this.inner.get(key);
  }

  iterate(options: KvIterateOptions): AsyncIterable<[Uint8Array, Uint8Array]> {
    return this.inner.iterate(options);
  }

  snapshot(): KvSnapshot {
    return this.inner.snapshot();
  }

  async write(ops: readonly KvOp[], sync: boolean): Promise<void> {
    if (this.failWrites) throw new Error('write failed: no space left on device');
    await this.inner.write(ops, sync);
    this.writes++;
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
