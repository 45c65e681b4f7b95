import type { Static, TSchema } from '@sinclair/typebox';
import type { IndexWriter } from './index-stage.js';
import type { KeyPrefix, KeySegment, KeyValues } from './key-parts.js';
import { KeyLayout } from './key-layout.js';
import type { ReadonlyStore, Store } from './prefixed-store.js';
import { RecordSchema, type ValueEncoding } from './record-schema.js';

/**
 * Stores declared once, read and written through their declaration (Lisk SDK's `BaseStore`,
 * with the key layout declared too): a plugin lists each store it keeps with its key layout and
 * value schema, and every read and write goes through it, typed from the declaration and checked
 * against it. The declaration is the plugin's state layout: the metadata route lists it, the
 * README's table is checked against it, and the host refuses (kernel/host/plugin-boundary.ts) a
 * raw key of the plugin's that no declared store holds.
 *
 * Keys and bytes are those a plugin wrote by hand before (`<prefix>/<part>/…`, the kernel's
 * canonical JSON), so a plugin that converts keeps its state root.
 */
export interface StoreSpec<S extends readonly KeySegment[], V extends TSchema> {
  /** The store's name in the metadata (`delegations`); unique in the plugin. */
  readonly name: string;
  readonly description: string;
  /** The key layout: a fixed first segment, then fixed segments and typed parts (`keyPart`). */
  readonly key: S;
  /** The value's schema (TypeBox); `Type.BigInt()` for bigints, which `record` stores exactly. */
  readonly value: V;
  /** How values are written (`record` by default). */
  readonly encoding?: ValueEncoding;
  /**
   * For a record a plugin reads for most transactions, keyed by their parties (whom a sponsor
   * pays for, by sender; a sender's recent transfers): the party that fills each typed key part,
   * in order, every part an address. The kernel then reads these records together with the
   * transactions' accounts, in one LevelDB call before a relay batch's admissions and before a
   * block executes (kernel/chain/read-ahead.ts), instead of one awaited read each when the plugin
   * asks. Only a cache fill: what the plugin reads is the same with or without it. State stores
   * only (an index is never read in consensus).
   */
  readonly readAhead?: readonly Party[];
}

/** Who a transaction names: its signer (`from`) and, for a transfer, its recipient (`to`). */
export type Party = 'sender' | 'recipient';

/** One record a scan found: its key's values and its value. */
export interface StoreEntry<K, V> {
  readonly key: K;
  readonly value: V;
}

/**
 * A bounded scan: the records whose key starts with `prefix` (the whole store for none), in key
 * order (reversed with `reverse`), only those strictly after the key `after` in that order (the
 * last key of the previous page), at most `limit` of them.
 */
export interface ScanRange<K extends readonly unknown[]> {
  readonly prefix?: KeyPrefix<K>;
  readonly after?: K;
  readonly limit?: number;
  readonly reverse?: boolean;
}

/** What a declared store reads and writes through: `ctx.store`, `ctx.index`, an index reader. */
interface Namespaced {
  readonly namespace: string;
}

/** A state scan told its bounds (the kernel's `ScanOptions`; older sources ignore them, and `rowsIn` applies them again). */
type BoundedScan = (prefix?: string, options?: { readonly reverse?: boolean; readonly limit?: number }) => Promise<Array<[string, Uint8Array]>>;

const byKey = (a: readonly [string, unknown], b: readonly [string, unknown]): number => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);

/** What state stores and index stores share: the plugin, the layout, the value. */
abstract class Declared<S extends readonly KeySegment[], V extends TSchema> {
  readonly layout: KeyLayout<S>;
  readonly record: RecordSchema<V>;
  readonly name: string;
  readonly description: string;

  constructor(
    readonly plugin: string,
    readonly where: 'state' | 'index',
    spec: StoreSpec<S, V>,
  ) {
    const owner = `${where === 'state' ? 'store' : 'index'} ${plugin}.${spec.name}`;
    if (!/^[a-z][a-zA-Z0-9_]{0,47}$/.test(spec.name)) throw new Error(`${owner}: store names are a letter, then letters, digits or _`);
    this.name = spec.name;
    this.description = spec.description;
    this.layout = new KeyLayout(owner, spec.key);
    this.record = new RecordSchema(owner, spec.value, spec.encoding ?? 'record');
    if (spec.readAhead !== undefined) {
      if (where !== 'state') throw new Error(`${owner}: readAhead is for state stores (an index is not read in consensus)`);
      const parts = this.layout.keyParts;
      if (parts.length === 0 || spec.readAhead.length !== parts.length || parts.some((p) => p.kind !== 'address')) {
        throw new Error(`${owner}: readAhead names the party of each typed key part, and each must be an address (${this.layout.text} has ${parts.map((p) => `<${p.name}>: ${p.kind}`).join(', ') || 'none'})`);
      }
      for (const party of spec.readAhead) if (party !== 'sender' && party !== 'recipient') throw new Error(`${owner}: readAhead parties are 'sender' or 'recipient', not ${JSON.stringify(party)}`);
    }
  }

  get value(): V {
    return this.record.schema;
  }

  /** The key of a record inside the plugin's namespace (what `ctx.store.get` takes). */
  key(...values: KeyValues<S>): string {
    return this.layout.key(values);
  }

  protected own(handle: Namespaced): void {
    // Another plugin's handle (ctx.read) would read its bytes under this declaration.
    if (handle.namespace !== this.plugin) throw new Error(`${this.where === 'state' ? 'store' : 'index'} ${this.plugin}.${this.name} was handed the namespace "${handle.namespace}": pass this plugin's own ctx.store / ctx.index`);
  }

  /** The key and checked bytes of a write: the key's values first, then the value. */
  protected entry(handle: Namespaced, keyAndValue: readonly unknown[]): [string, Uint8Array] {
    this.own(handle);
    const key = this.layout.key(keyAndValue.slice(0, -1) as unknown as KeyValues<S>);
    return [key, this.record.encode(keyAndValue[keyAndValue.length - 1] as Static<V>, key)];
  }

  protected async readOne(store: ReadonlyStore, values: KeyValues<S>): Promise<Static<V> | undefined> {
    this.own(store);
    const key = this.layout.key(values);
    const bytes = await store.get(key);
    return bytes === undefined ? undefined : this.record.decode(bytes, key);
  }

  protected async rowsIn(store: ReadonlyStore, range: ScanRange<KeyValues<S>>): Promise<Array<StoreEntry<KeyValues<S>, Static<V>>>> {
    this.own(store);
    const prefix = this.layout.scanPrefix((range.prefix ?? []) as readonly unknown[]);
    const after = range.after === undefined ? undefined : this.layout.key(range.after);
    const reverse = range.reverse === true;
    if (range.limit !== undefined && (!Number.isSafeInteger(range.limit) || range.limit < 0)) throw new Error(`${this.plugin}.${this.name}: scan limit must be a non-negative integer`);
    const scan: BoundedScan = store.scan.bind(store);
    // Without `after` the source stops at the limit; with it, the rows past the key are counted here.
    let rows = await scan(prefix, after === undefined ? { reverse, ...(range.limit !== undefined ? { limit: range.limit } : {}) } : { reverse });
    rows = [...rows].sort(byKey);
    if (reverse) rows.reverse();
    if (after !== undefined) rows = rows.filter(([k]) => (reverse ? k < after : k > after));
    if (range.limit !== undefined) rows = rows.slice(0, range.limit);
    return rows.map(([k, v]) => {
      const key = this.layout.parse(k);
      if (key === undefined) throw new Error(`${this.plugin}.${this.name}: the key ${k} under ${prefix} is not of the layout ${this.layout.text}`);
      return { key, value: this.record.decode(v, k) };
    });
  }
}

/** A store of the plugin's chain state (`ctx.store`): in the state root, read and written in consensus. */
export class DeclaredStore<S extends readonly KeySegment[] = readonly KeySegment[], V extends TSchema = TSchema> extends Declared<S, V> {
  /** The parties whose records of this store a transaction reads (`StoreSpec.readAhead`), if declared. */
  readonly readAhead: readonly Party[] | undefined;

  constructor(plugin: string, spec: StoreSpec<S, V>) {
    super(plugin, 'state', spec);
    this.readAhead = spec.readAhead === undefined ? undefined : [...spec.readAhead];
  }

  /**
   * The full state key of the record a transaction with these parties reads, by `readAhead`;
   * undefined without a declaration, or when a party it names is absent or not an address (a
   * relayed body is read ahead before it is checked).
   */
  readAheadKey(parties: { readonly sender?: unknown; readonly recipient?: unknown }): string | undefined {
    if (this.readAhead === undefined) return undefined;
    const values: unknown[] = [];
    for (const party of this.readAhead) {
      const value = parties[party];
      if (typeof value !== 'string' || !this.layout.keyParts[values.length]!.accepts(value)) return undefined;
      values.push(value);
    }
    return `${this.plugin}/${this.layout.key(values as unknown as KeyValues<S>)}`;
  }

  /**
   * The records whose first key part, an integer height, is `height`, in key order: what
   * `scan(store, { prefix: [height] })` answers, for a store of what falls due at a height
   * (`['ends', keyPart.integer('height'), keyPart.integer('id')]`) that a hook reads at every one.
   * It asks for the store's first record first. That scan's prefix is the same at every height,
   * so the kernel keeps its answer until a record of the store is written or deleted
   * (kernel/store/state-scan-cache.ts), and while nothing falls due until a later height none is
   * answered without reading the height's own range, a new prefix at every height that nothing
   * keeps. A record left below `height` only costs that range's read again, never another answer.
   */
  async dueAt(store: ReadonlyStore, height: number): Promise<Array<StoreEntry<KeyValues<S>, Static<V>>>> {
    const first = this.layout.keyParts[0];
    if (first === undefined || first.kind !== 'integer') {
      throw new Error(`store ${this.plugin}.${this.name}: dueAt reads a store whose first key part is an integer height, and ${this.layout.text} is not one`);
    }
    this.own(store);
    // A height the key part cannot hold throws here, as the height's own scan would.
    this.layout.scanPrefix([height]);
    const scan: BoundedScan = store.scan.bind(store);
    const [head] = await scan(this.layout.scanPrefix([]), { limit: 1 });
    if (head === undefined) return [];
    // Another store of the plugin may share the prefix with fewer segments (`ends/<height>`): its key
    // (which `parse` refuses) says nothing about this store's records, so the height is read.
    const key = this.layout.parse(head[0]);
    if (key !== undefined && (key[0] as number) > height) return [];
    return this.rowsIn(store, { prefix: [height] as unknown as KeyPrefix<KeyValues<S>> });
  }

  /** The full state key (`<plugin>/<key>`): what a proven read declares (`proves`). */
  stateKey(...values: KeyValues<S>): string {
    return `${this.plugin}/${this.layout.key(values)}`;
  }

  get(store: ReadonlyStore, ...key: KeyValues<S>): Promise<Static<V> | undefined> {
    return this.readOne(store, key);
  }

  async has(store: ReadonlyStore, ...key: KeyValues<S>): Promise<boolean> {
    this.own(store);
    return (await store.get(this.layout.key(key))) !== undefined;
  }

  /** Writes the record at the key (its values first, then the value), checked against the schema. */
  set(store: Store, ...keyAndValue: [...KeyValues<S>, Static<V>]): void {
    store.set(...this.entry(store, keyAndValue));
  }

  delete(store: Store, ...key: KeyValues<S>): void {
    this.own(store);
    store.delete(this.layout.key(key));
  }

  scan(store: ReadonlyStore, range: ScanRange<KeyValues<S>> = {}): Promise<Array<StoreEntry<KeyValues<S>, Static<V>>>> {
    return this.rowsIn(store, range);
  }
}

/**
 * A store of the plugin's node-local index (`ctx.index` in consensus hooks, written with the
 * block; `api.services.index(name)` in routes): outside the state root, never read in consensus.
 */
export class DeclaredIndex<S extends readonly KeySegment[] = readonly KeySegment[], V extends TSchema = TSchema> extends Declared<S, V> {
  constructor(plugin: string, spec: StoreSpec<S, V>) {
    super(plugin, 'index', spec);
  }

  get(reader: ReadonlyStore, ...key: KeyValues<S>): Promise<Static<V> | undefined> {
    return this.readOne(reader, key);
  }

  set(index: IndexWriter, ...keyAndValue: [...KeyValues<S>, Static<V>]): void {
    index.put(...this.entry(index, keyAndValue));
  }

  delete(index: IndexWriter, ...key: KeyValues<S>): void {
    this.own(index);
    index.delete(this.layout.key(key));
  }

  scan(reader: ReadonlyStore, range: ScanRange<KeyValues<S>> = {}): Promise<Array<StoreEntry<KeyValues<S>, Static<V>>>> {
    return this.rowsIn(reader, range);
  }
}

/**
 * Declares a store of `plugin`'s state. Export it from the plugin's `store.ts` and list it in the
 * definition's `stores` (the host refuses a declaration naming another plugin).
 */
export function defineStore<const S extends readonly KeySegment[], V extends TSchema>(plugin: string, spec: StoreSpec<S, V>): DeclaredStore<S, V> {
  return new DeclaredStore(plugin, spec);
}

/** Declares a store of `plugin`'s node-local index; list it in the definition's `indexes`. */
export function defineIndex<const S extends readonly KeySegment[], V extends TSchema>(plugin: string, spec: StoreSpec<S, V>): DeclaredIndex<S, V> {
  return new DeclaredIndex(plugin, spec);
}
