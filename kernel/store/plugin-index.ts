import type { IndexWrite } from '../chain/index-stage.js';
import { readonlyStore, type ReadonlyStore } from '../state/prefixed-store.js';
import type { KvOp, KvStore } from './kv.js';
import { PREFIX, pluginIndexKey, prefixEnd } from './keys.js';

export interface ScanOptions {
  readonly reverse?: boolean;
  readonly limit?: number;
}

/**
 * What a plugin's routes read of the node-local index its consensus taps wrote (`ctx.index`):
 * the reads of its state namespace, and scans that run backwards and stop early, since an index
 * is often a list read newest first a page at a time. It describes exactly the blocks this node
 * committed: each block's index writes went into that block's batch.
 */
export interface IndexReader extends ReadonlyStore {
  /** Keys (without the namespace) and values under `prefix`, ascending unless `reverse`. */
  scan(prefix?: string, options?: ScanOptions): Promise<Array<[string, Uint8Array]>>;
}

const decoder = new TextDecoder();

export function pluginIndexReader(kv: KvStore, namespace: string): IndexReader {
  /** Full index keys (`<namespace>/<key>`) under `prefix`. */
  const scan = async (prefix: string, options: ScanOptions = {}): Promise<Array<[string, Uint8Array]>> => {
    const start = pluginIndexKey(prefix);
    const out: Array<[string, Uint8Array]> = [];
    for await (const [k, v] of kv.iterate({ gte: start, lt: prefixEnd(start), ...options })) out.push([decoder.decode(k).slice(PREFIX.pluginIndex.length), v]);
    return out;
  };
  const store = readonlyStore({ get: (key) => kv.get(pluginIndexKey(key)), scan }, namespace);
  const cut = namespace.length + 1;
  return {
    ...store,
    scan: async (prefix = '', options = {}) => (await scan(`${namespace}/${prefix}`, options)).map(([k, v]) => [k.slice(cut), v] as [string, Uint8Array]),
  };
}

/** Staged index writes as operations of the batch that commits their block. */
export function indexWriteOps(writes: readonly IndexWrite[]): KvOp[] {
  return writes.map(([key, value]) => (value === null ? { type: 'del', key: pluginIndexKey(key) } : { type: 'put', key: pluginIndexKey(key), value }));
}
