import { assertNamespace } from '../state/prefixed-store.js';
import { jsonRecord, type RecordCodec } from '../state/record-codec.js';
import type { IndexWrite } from '../chain/index-stage.js';
import type { KvOp, KvStore } from './kv.js';
import { PREFIX, pluginIndexKey, prefixEnd } from './keys.js';

/**
 * What a plugin's routes read of the node-local index its consensus taps wrote (`ctx.index`).
 * It describes exactly the committed blocks this node stored: the writes of a block went into
 * that block's batch.
 */
export interface IndexReader {
  readonly namespace: string;
  get(key: string): Promise<Uint8Array | undefined>;
  getRecord<T>(key: string, codec?: RecordCodec<T>): Promise<T | undefined>;
  /** Keys (without the namespace) and values under `prefix`, ascending unless `reverse`. */
  scan(prefix?: string, options?: { reverse?: boolean; limit?: number }): Promise<Array<[string, Uint8Array]>>;
}

const decoder = new TextDecoder();

export function pluginIndexReader(kv: KvStore, namespace: string): IndexReader {
  assertNamespace(namespace);
  const full = (key: string): Uint8Array => pluginIndexKey(`${namespace}/${key}`);
  const cut = PREFIX.pluginIndex.length + namespace.length + 1;
  return {
    namespace,
    get: (key) => kv.get(full(key)),
    async getRecord<T>(key: string, codec: RecordCodec<T> = jsonRecord<T>()): Promise<T | undefined> {
      const bytes = await kv.get(full(key));
      return bytes === undefined ? undefined : codec.decode(bytes);
    },
    async scan(prefix = '', options = {}) {
      const start = full(prefix);
      const out: Array<[string, Uint8Array]> = [];
      for await (const [k, v] of kv.iterate({ gte: start, lt: prefixEnd(start), ...options })) out.push([decoder.decode(k).slice(cut), v]);
      return out;
    },
  };
}

/** Staged index writes as operations of the batch that commits their block. */
export function indexWriteOps(writes: readonly IndexWrite[]): KvOp[] {
  return writes.map(([key, value]) => (value === null ? { type: 'del', key: pluginIndexKey(key) } : { type: 'put', key: pluginIndexKey(key), value }));
}
