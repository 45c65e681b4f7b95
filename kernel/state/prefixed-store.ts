import type { ScanOptions, StateOverlay, StateSource } from './overlay.js';
import type { RecordCodec } from './record-codec.js';
import { jsonRecord } from './record-codec.js';

/**
 * A plugin's own slice of state: every key is prefixed with `<namespace>/`, so no plugin can read
 * or write another's records by accident. Read-only contexts get `ReadonlyStore`, which has no
 * write methods at all (read-only by type, not by convention).
 */
export interface ReadonlyStore {
  readonly namespace: string;
  get(key: string): Promise<Uint8Array | undefined>;
  getRecord<T>(key: string, codec?: RecordCodec<T>): Promise<T | undefined>;
  /**
   * Keys (without the namespace) and values under `prefix`, ascending (descending with
   * `reverse`); with `limit`, only the first that many, read without touching the rest (a page
   * of a long list costs the page).
   */
  scan(prefix?: string, options?: ScanOptions): Promise<Array<[string, Uint8Array]>>;
}

export interface Store extends ReadonlyStore {
  set(key: string, value: Uint8Array): void;
  setRecord<T>(key: string, value: T, codec?: RecordCodec<T>): void;
  delete(key: string): void;
}

const NAMESPACE_RE = /^[a-z][a-z0-9-]{0,31}$/;

export function assertNamespace(namespace: string): void {
  if (!NAMESPACE_RE.test(namespace)) throw new Error(`invalid state namespace "${namespace}" (lowercase letters, digits, dashes)`);
}

export function readonlyStore(source: StateSource, namespace: string): ReadonlyStore {
  assertNamespace(namespace);
  const full = (key: string): string => `${namespace}/${key}`;
  return {
    namespace,
    get: (key) => source.get(full(key)),
    async getRecord<T>(key: string, codec: RecordCodec<T> = jsonRecord<T>()): Promise<T | undefined> {
      const bytes = await source.get(full(key));
      return bytes === undefined ? undefined : codec.decode(bytes);
    },
    async scan(prefix = '', options?: ScanOptions) {
      const cut = namespace.length + 1;
      return (await source.scan(full(prefix), options)).map(([k, v]) => [k.slice(cut), v] as [string, Uint8Array]);
    },
  };
}

export function writableStore(overlay: StateOverlay, namespace: string): Store {
  const ro = readonlyStore(overlay, namespace);
  const full = (key: string): string => `${namespace}/${key}`;
  return {
    ...ro,
    set: (key, value) => overlay.set(full(key), value),
    setRecord<T>(key: string, value: T, codec: RecordCodec<T> = jsonRecord<T>()) {
      overlay.set(full(key), codec.encode(value));
    },
    delete: (key) => overlay.delete(full(key)),
  };
}
