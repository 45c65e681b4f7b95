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

/**
 * Classes, not object literals of closures: a block's transactions each run on their own child
 * overlay, so every plugin that touches its state builds a store per transaction; one small
 * object whose methods live on the prototype is what that costs.
 */
class PrefixedReadonlyStore implements ReadonlyStore {
  constructor(
    protected readonly source: StateSource,
    readonly namespace: string,
  ) {}

  protected full(key: string): string {
    return `${this.namespace}/${key}`;
  }

  get(key: string): Promise<Uint8Array | undefined> {
    return this.source.get(this.full(key));
  }

  async getRecord<T>(key: string, codec: RecordCodec<T> = jsonRecord<T>()): Promise<T | undefined> {
    const bytes = await this.source.get(this.full(key));
    return bytes === undefined ? undefined : codec.decode(bytes);
  }

  async scan(prefix = '', options?: ScanOptions): Promise<Array<[string, Uint8Array]>> {
    const cut = this.namespace.length + 1;
    return (await this.source.scan(this.full(prefix), options)).map(([k, v]) => [k.slice(cut), v] as [string, Uint8Array]);
  }
}

class PrefixedStore extends PrefixedReadonlyStore implements Store {
  constructor(
    private readonly overlay: StateOverlay,
    namespace: string,
  ) {
    super(overlay, namespace);
  }

  set(key: string, value: Uint8Array): void {
    this.overlay.set(this.full(key), value);
  }

  setRecord<T>(key: string, value: T, codec: RecordCodec<T> = jsonRecord<T>()): void {
    this.overlay.set(this.full(key), codec.encode(value));
  }

  delete(key: string): void {
    this.overlay.delete(this.full(key));
  }
}

export function readonlyStore(source: StateSource, namespace: string): ReadonlyStore {
  assertNamespace(namespace);
  return new PrefixedReadonlyStore(source, namespace);
}

export function writableStore(overlay: StateOverlay, namespace: string): Store {
  assertNamespace(namespace);
  return new PrefixedStore(overlay, namespace);
}
