import type { ChainEvent } from '../model/types.js';
import type { IndexWriter } from '../state/index-stage.js';
import { ConfigError } from '../config/env.js';
import type { KeyLayout } from '../state/key-layout.js';
import type { DeclaredIndex, DeclaredStore } from '../state/declared-store.js';
import type { ReadonlyStore, Store } from '../state/prefixed-store.js';
import type { RecordCodec } from '../state/record-codec.js';
import type { PluginDefinition, PluginEventSpec } from './plugin.js';
import { TypedEvent } from './typed-event.js';

/**
 * A plugin stepped outside what it declared: a key no declared store holds, another plugin's
 * namespace read directly, an event it does not declare or whose data its schema refuses. Thrown
 * from the context call that did it, so a transaction fails and a route answers 500 the same way
 * on every node: the declarations are code, equal everywhere.
 */
export class PluginBoundaryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PluginBoundaryError';
  }
}

interface Declarations {
  readonly state: KeyGate;
  readonly index: KeyGate;
  readonly events: ReadonlyMap<string, PluginEventSpec>;
}

type StoreHandle = DeclaredStore | DeclaredIndex;

/**
 * What each converted plugin declared (a plugin is converted when its definition lists `stores`,
 * an empty list for one that keeps none), and the checks the kernel's contexts run against it
 * (kernel/chain/contexts.ts): every key its `ctx.store` and `ctx.index` read or write lies in a
 * declared store, `ctx.read(other)` is refused (another plugin's state is read through its
 * methods, the validator set through `ctx.validators`), and `ctx.emit` carries a declared type
 * whose schema, when it has one, accepts the data. Plugins not converted yet keep the raw API.
 */
export class PluginBoundary {
  private readonly declared = new Map<string, Declarations>();
  private readonly partyStores: DeclaredStore[] = [];

  /** At boot, for every loaded plugin: checks its declarations and records them. */
  load(def: Pick<PluginDefinition<never, never>, 'name' | 'kind' | 'stores' | 'indexes' | 'events'>): void {
    if (def.stores === undefined) {
      if (def.indexes !== undefined) throw new ConfigError(`plugins: "${def.name}" declares indexes but no stores (declare stores: [] when it keeps no state)`);
      return;
    }
    if (def.kind === 'service' && (def.stores.length > 0 || (def.indexes?.length ?? 0) > 0)) throw new ConfigError(`plugins: "${def.name}" is a service plugin: it keeps no chain state and writes no index (stores: [])`);
    const state = layoutsOf(def.name, 'stores', def.stores);
    const index = layoutsOf(def.name, 'indexes', def.indexes ?? []);
    this.declared.set(def.name, { state: new KeyGate(def.name, 'state', state), index: new KeyGate(def.name, 'index', index), events: new Map((def.events ?? []).map((e) => [e.type, e])) });
    for (const s of def.stores) if (s.readAhead !== undefined) this.partyStores.push(s);
  }

  /**
   * The loaded plugins' stores that declare a read-ahead by party (`StoreSpec.readAhead`), in load
   * order: the kernel reads their records with a batch's accounts (kernel/chain/read-ahead.ts).
   * A plugin switched off at some height keeps its entries: a record read ahead and not read is
   * a wasted read, never a different result.
   */
  get readAheadStores(): readonly DeclaredStore[] {
    return this.partyStores;
  }

  /** Whether `plugin` declares its stores (and is held to them). */
  holds(plugin: string): boolean {
    return this.declared.has(plugin);
  }

  /** `ctx.store` of a read-only context, checked against the plugin's stores. */
  readonlyStore(plugin: string, store: ReadonlyStore): ReadonlyStore {
    const d = this.declared.get(plugin);
    return d ? new GuardedReadonly(d.state, store) : store;
  }

  /** `ctx.store` of a write context. */
  store(plugin: string, store: Store): Store {
    const d = this.declared.get(plugin);
    return d ? new GuardedStore(d.state, store) : store;
  }

  /** What a route reads of the plugin's index (`api.services.index(name)`), checked like `ctx.index`. */
  indexReader<R extends ReadonlyStore>(plugin: string, reader: R): R {
    const d = this.declared.get(plugin);
    if (!d) return reader;
    const guarded = new GuardedReadonly(d.index, reader);
    return { ...reader, namespace: guarded.namespace, get: (key) => guarded.get(key), getRecord: (key, codec) => guarded.getRecord(key, codec), scan: (prefix, options) => guarded.scan(prefix, options) };
  }

  /** `ctx.index`, checked against the plugin's index stores. */
  index(plugin: string, writer: IndexWriter): IndexWriter {
    const d = this.declared.get(plugin);
    if (!d) return writer;
    const gate = d.index;
    return {
      namespace: writer.namespace,
      put: (key, value) => (gate.check(key, 'write'), writer.put(key, value)),
      putRecord<T>(key: string, value: T, codec?: RecordCodec<T>) {
        gate.check(key, 'write');
        writer.putRecord(key, value, codec);
      },
      delete: (key) => (gate.check(key, 'delete'), writer.delete(key)),
    };
  }

  /** `ctx.read(other)`: refused to a converted plugin for any namespace but its own. */
  read(plugin: string, other: string): void {
    if (other === plugin || !this.declared.has(plugin)) return;
    throw new PluginBoundaryError(`plugin "${plugin}" read the namespace "${other}" directly: read another plugin through the methods it offers (ctx.methods.of), the validator set through ctx.validators`);
  }

  /** `ctx.emit`: a converted plugin emits only the events it declares, with data their schema accepts. */
  emit(plugin: string, event: ChainEvent): void {
    const d = this.declared.get(plugin);
    if (!d) return;
    const spec = d.events.get(event.type);
    if (!spec) throw new PluginBoundaryError(`plugin "${plugin}" emitted the event "${event.type}", which it does not declare (declared: ${[...d.events.keys()].join(', ') || 'none'})`);
    if (spec instanceof TypedEvent && !spec.matches(event.data)) throw new PluginBoundaryError(`plugin "${plugin}" emitted "${event.type}" with data its schema refuses: ${spec.problem(event.data)}`);
  }
}

function layoutsOf(plugin: string, field: 'stores' | 'indexes', handles: readonly StoreHandle[]): KeyLayout[] {
  const names = new Set<string>();
  const layouts: KeyLayout[] = [];
  for (const h of handles) {
    if (h.plugin !== plugin) throw new ConfigError(`plugins: "${plugin}" lists in ${field} the store "${h.name}" declared for "${h.plugin}"`);
    if ((field === 'stores') !== (h.where === 'state')) throw new ConfigError(`plugins: "${plugin}" lists the ${h.where} store "${h.name}" in ${field}`);
    if (names.has(h.name)) throw new ConfigError(`plugins: "${plugin}" declares two ${field} named "${h.name}"`);
    names.add(h.name);
    const clash = layouts.find((l) => l.overlaps(h.layout));
    if (clash) throw new ConfigError(`plugins: "${plugin}": the key layouts ${clash.text} and ${h.layout.text} can name the same key`);
    layouts.push(h.layout);
  }
  return layouts;
}

/** Most accepted keys a gate remembers before it starts over (a bound on its memory). */
const ACCEPTED_KEYS = 4_096;
/** Longest key a gate remembers (characters): past it a key is checked every time. */
const ACCEPTED_KEY_CHARS = 256;

/**
 * One plugin's declared layouts of state or of index, and the check every key it reads or writes
 * passes. Whether a layout holds a key depends on the key alone (the declarations are fixed at
 * load), so keys already accepted are remembered: a plugin reads and writes the same keys
 * transaction after transaction (an account's record), and checking one again split it and
 * re-validated its address parts right after its declared store built it from them.
 */
class KeyGate {
  // Private to the class for real (#): a plugin that reaches its store's gate cannot add keys to it.
  readonly #accepted = new Set<string>();

  constructor(
    readonly plugin: string,
    readonly where: 'state' | 'index',
    readonly layouts: readonly KeyLayout[],
  ) {}

  /** Throws unless one of the layouts holds `key`. */
  check(key: string, how: 'read' | 'write' | 'delete'): void {
    if (this.#accepted.has(key)) return;
    for (const l of this.layouts) {
      if (!l.holds(key)) continue;
      // Only short keys: a contract's storage key may be as long as its memory, and 4 096 of those
      // would hold gigabytes.
      if (key.length <= ACCEPTED_KEY_CHARS) {
        if (this.#accepted.size >= ACCEPTED_KEYS) this.#accepted.clear();
        this.#accepted.add(key);
      }
      return;
    }
    throw new PluginBoundaryError(`plugin "${this.plugin}" tried to ${how} the ${this.where} key "${key.slice(0, 200)}", which none of its declared ${this.described()} holds (${this.layoutTexts()})`);
  }

  /** Throws unless a scan of `prefix` stays inside one of the layouts. */
  checkScan(prefix: string): void {
    if (this.layouts.some((l) => l.containsScan(prefix))) return;
    throw new PluginBoundaryError(`plugin "${this.plugin}" tried to scan the ${this.where} prefix "${prefix.slice(0, 200)}", which is not inside one of its declared ${this.described()} (${this.layoutTexts()})`);
  }

  private described(): string {
    return this.where === 'state' ? 'stores' : 'indexes';
  }

  private layoutTexts(): string {
    return this.layouts.map((l) => l.text).join(', ') || 'it declares none';
  }
}

/**
 * A plugin's store held to its declared layouts. A class rather than closures: a block builds
 * one per plugin per transaction (each runs on its own overlay), so it should cost one object.
 */
class GuardedReadonly implements ReadonlyStore {
  constructor(
    protected readonly gate: KeyGate,
    private readonly inner: ReadonlyStore,
  ) {}

  get namespace(): string {
    return this.inner.namespace;
  }

  get(key: string): Promise<Uint8Array | undefined> {
    this.gate.check(key, 'read');
    return this.inner.get(key);
  }

  getRecord<T>(key: string, codec?: RecordCodec<T>): Promise<T | undefined> {
    this.gate.check(key, 'read');
    return this.inner.getRecord(key, codec);
  }

  // Forwarded whole: the kernel's scan options (bounds) pass through untouched.
  scan(...args: Parameters<ReadonlyStore['scan']>): ReturnType<ReadonlyStore['scan']> {
    this.gate.checkScan(args[0] ?? '');
    return this.inner.scan(...args);
  }
}

class GuardedStore extends GuardedReadonly implements Store {
  constructor(
    gate: KeyGate,
    private readonly writable: Store,
  ) {
    super(gate, writable);
  }

  set(key: string, value: Uint8Array): void {
    this.gate.check(key, 'write');
    this.writable.set(key, value);
  }

  setRecord<T>(key: string, value: T, codec?: RecordCodec<T>): void {
    this.gate.check(key, 'write');
    this.writable.setRecord(key, value, codec);
  }

  delete(key: string): void {
    this.gate.check(key, 'delete');
    this.writable.delete(key);
  }
}
