import type { IndexWrite } from '../state/index-stage.js';
import type { ScanOptions } from '../state/overlay.js';
import { readonlyStore, type ReadonlyStore } from '../state/prefixed-store.js';
import type { KvOp, KvStore } from '../state/kv.js';
import { PREFIX, pluginIndexKey, prefixEnd } from './keys.js';

/**
 * What a plugin's routes read of the node-local index its consensus taps wrote (`ctx.index`):
 * the reads of its state namespace, bounded scans included. It describes exactly the blocks this
 * node committed: each block's index writes went into that block's batch.
 */
export type IndexReader = ReadonlyStore;

const decoder = new TextDecoder();

export function pluginIndexReader(kv: KvStore, namespace: string): IndexReader {
  /** Full index keys (`<namespace>/<key>`) under `prefix`. */
  const scan = async (prefix: string, options: ScanOptions = {}): Promise<Array<[string, Uint8Array]>> => {
    const start = pluginIndexKey(prefix);
    const out: Array<[string, Uint8Array]> = [];
    for await (const [k, v] of kv.iterate({ gte: start, lt: prefixEnd(start), ...options })) out.push([decoder.decode(k).slice(PREFIX.pluginIndex.length), v]);
    return out;
  };
  return readonlyStore({ get: (key) => kv.get(pluginIndexKey(key)), scan }, namespace);
}

/** Staged index writes as operations of the batch that commits their block. */
export function indexWriteOps(writes: readonly IndexWrite[]): KvOp[] {
  return writes.map(([key, value]) => (value === null ? { type: 'del', key: pluginIndexKey(key) } : { type: 'put', key: pluginIndexKey(key), value }));
}
