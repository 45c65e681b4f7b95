import type { AdmissionContext, GenesisContext, NetworkEnv, ProposalContext, ReadContext, RecipientReader, TxContext, WriteContext } from '../context/contexts.js';
import type { Hooks } from '../host/hooks.js';
import type { ChainError } from '../errors.js';
import { addressKind } from '../crypto/address.js';
import { recipientProblem } from './recipient.js';
import { ownerOf } from '../auth/authorize.js';
import { SCOPE } from '../host/scoping.js';
import type { StateOverlay, StateSource } from '../state/overlay.js';
import type { ParamReader, ParamRegistry } from '../state/params.js';
import { readonlyStore, writableStore, type ReadonlyStore, type Store } from '../state/prefixed-store.js';
import { accountsReader, accountsWriter, type AccountsReader, type AccountsWriter } from '../state/accounts.js';
import type { GenesisDoc } from '../config/genesis.js';
import type { BlockEvent, BlockInfo, ChainEvent, Tx } from '../model/types.js';
import { checkEvent, type EventSink } from './block-events.js';
import type { IndexStage, IndexWriter } from '../state/index-stage.js';
import type { ValueMoves } from './value-moves.js';
import { readMethodCalls, writeMethodCalls, type MethodDirectory } from '../host/method-calls.js';
import type { PluginBoundary } from '../host/plugin-boundary.js';
import { validatorSetReader, type ValidatorSetReader } from '../state/validator-reader.js';
import { readSchedule } from '../host/schedule-state.js';
import type { PluginScheduleEntry } from '../context/schedule.js';
import type { ReadMethodCalls, WriteMethodCalls } from '../context/methods.js';
import { payeeOf, recipientReader } from './recipient.js';
import { ONE_SHARD, type ShardView } from '../crypto/shard.js';
import { LIGHT_CLIENT_HEADER_REQUESTED } from '../context/contexts.js';

/**
 * The contexts hooks receive. The kernel builds one unscoped context per call; the host re-scopes
 * it per plugin through SCOPE, so `store` is always the tapping plugin's own.
 *
 * Classes with lazily made members, not object literals: every transaction is checked and
 * executed with a context, re-scoped for each plugin that taps the hook, and most taps read one
 * member or none (a plugin whose checkTx only looks at `tx.target`); building each reader up
 * front cost several kilobytes per transaction.
 */
export interface ContextEnv {
  readonly env: NetworkEnv;
  readonly params: ParamRegistry;
  /** The host's, where write contexts are made: a write method call is checked against it. */
  readonly methods?: MethodDirectory;
  /** The host's: what converted plugins declared, which their `store`, `index`, `read` and `emit` are held to. */
  readonly boundary?: PluginBoundary;
  /** The kernel's hooks, which `recipients` asks (names, owners of record addresses). */
  readonly hooks?: Hooks;
  /** The shard of the chain (decisions.md §71); absent: a one-shard network. */
  readonly shards?: ShardView;
}

/**
 * A read context's `ctx.store` over one state source, made once per (boundary, source, namespace)
 * and handed to every context on that source: the wrappers keep no state of their own, and
 * building them (a prefixed store, then the boundary's guard) for each plugin each tap re-scopes
 * to cost every transaction a few kilobytes per plugin that reads its state (admission reads
 * committed state, one source for every transaction). Write contexts keep theirs in what the
 * context and its re-scopes share (`WriteShared`): their overlay is the transaction's own.
 */
const NO_BOUNDARY = {};
/** A store made for a namespace, and whether it was guarded (its plugin declared its stores then). */
type Made<S> = { readonly held: boolean; readonly store: S };
type StoreCache<S> = WeakMap<object, WeakMap<StateSource, Map<string, Made<S>>>>;
const readStores: StoreCache<ReadonlyStore> = new WeakMap();

function storeFor<S>(cache: StoreCache<S>, e: ContextEnv, source: StateSource, ns: string, make: () => S): S {
  const key = e.boundary ?? NO_BOUNDARY;
  let bySource = cache.get(key);
  if (bySource === undefined) cache.set(key, (bySource = new WeakMap()));
  let byNs = bySource.get(source);
  if (byNs === undefined) bySource.set(source, (byNs = new Map()));
  return madeFor(byNs, e, ns, make);
}

/** The store of `ns` in `byNs`, made when missing. */
function madeFor<S>(byNs: Map<string, Made<S>>, e: ContextEnv, ns: string, make: () => S): S {
  // A plugin whose declarations load after boot (a service plugin loaded at runtime) gets a guarded store from then on.
  const held = e.boundary?.holds(ns) === true;
  let made = byNs.get(ns);
  if (made === undefined || made.held !== held) byNs.set(ns, (made = { held, store: make() }));
  return made.store;
}

/**
 * The same for what does not depend on the namespace at all: a read context's `ctx.params` and
 * `ctx.accounts` over one source are one object for every context on it and every plugin's
 * re-scope, instead of one per tap that reads them.
 */
const paramReaders: WeakMap<object, WeakMap<StateSource, ParamReader>> = new WeakMap();
const accountReaders: WeakMap<StateSource, AccountsReader> = new WeakMap();

function paramsFor(e: ContextEnv, source: StateSource): ParamReader {
  let bySource = paramReaders.get(e.params);
  if (bySource === undefined) paramReaders.set(e.params, (bySource = new WeakMap()));
  let v = bySource.get(source);
  if (v === undefined) bySource.set(source, (v = e.params.reader(source)));
  return v;
}

function accountsReaderFor(source: StateSource): AccountsReader {
  let r = accountReaders.get(source);
  if (r === undefined) accountReaders.set(source, (r = accountsReader(source)));
  return r;
}

/** `ctx.recipients` over `source`: the hooks are asked with a kernel context on the same state. */
function recipientsOf(e: ContextEnv, source: StateSource, height: number): RecipientReader {
  const hooks = e.hooks;
  if (hooks === undefined) throw new Error('this context carries no hooks: recipients are not available here');
  return recipientReader(hooks, () => new ReadCtx(e, source, height, 'kernel'), source);
}

/** ReadContext.payee over `source`: the plain transfer's rule (chain/recipient.ts), and a `.node`'s owner (decisions.md §30). */
async function payeeIn(e: ContextEnv, source: StateSource, height: number, to: string): Promise<string | ChainError> {
  const hooks = e.hooks;
  if (hooks === undefined) throw new Error('ctx.payee: this context was built without the hooks it asks');
  const ctx = (): ReadContext => new ReadCtx(e, source, height, 'kernel');
  const refused = await recipientProblem(hooks, ctx, source, to);
  if (refused) return refused;
  // A registered name's current owner (decisions.md §39), a `.node`'s owner (§30), else `to`.
  return payeeOf(hooks, ctx, source, to);
}

class ReadCtx implements ReadContext {
  private paramsOf: ParamReader | undefined;
  private accountsOf: AccountsReader | undefined;
  private storeOf: ReadonlyStore | undefined;
  private methodsOf: ReadMethodCalls | undefined;

  constructor(
    protected readonly e: ContextEnv,
    protected readonly source: StateSource,
    readonly height: number,
    protected readonly ns: string,
  ) {}

  get env(): NetworkEnv {
    return this.e.env;
  }

  get shard(): ShardView {
    return this.e.shards ?? ONE_SHARD;
  }

  get params(): ParamReader {
    return (this.paramsOf ??= paramsFor(this.e, this.source));
  }

  get accounts(): AccountsReader {
    return (this.accountsOf ??= accountsReaderFor(this.source));
  }

  get store(): ReadonlyStore {
    return (this.storeOf ??= storeFor(readStores, this.e, this.source, this.ns, () => (this.e.boundary ? this.e.boundary.readonlyStore(this.ns, readonlyStore(this.source, this.ns)) : readonlyStore(this.source, this.ns))));
  }

  read(other: string): ReadonlyStore {
    this.e.boundary?.read(this.ns, other);
    return readonlyStore(this.source, other);
  }

  get validators(): ValidatorSetReader {
    return validatorSetReader(this.source);
  }

  get recipients(): RecipientReader {
    return recipientsOf(this.e, this.source, this.height);
  }

  async pluginSchedule(): Promise<PluginScheduleEntry[]> {
    return (await readSchedule(this.source)) ?? [];
  }

  payee(to: string): Promise<string | ChainError> {
    return payeeIn(this.e, this.source, this.height, to);
  }

  get methods(): ReadMethodCalls {
    return (this.methodsOf ??= readMethodCalls({ caller: this.ns, height: this.height, state: this.source, readScope: (plugin) => new ReadCtx(this.e, this.source, this.height, plugin) }));
  }

  [SCOPE](plugin: string): ReadContext {
    return new ReadCtx(this.e, this.source, this.height, plugin);
  }
}

class AdmissionCtx extends ReadCtx implements AdmissionContext {
  constructor(e: ContextEnv, source: StateSource, height: number, ns: string, readonly respond: (fields: Readonly<Record<string, unknown>>) => void) {
    super(e, source, height, ns);
  }

  override [SCOPE](plugin: string): AdmissionContext {
    return new AdmissionCtx(this.e, this.source, this.height, plugin, this.respond);
  }
}

class ProposalCtx extends ReadCtx implements ProposalContext {
  constructor(e: ContextEnv, source: StateSource, ns: string, readonly block: BlockInfo) {
    super(e, source, block.height, ns);
  }

  override [SCOPE](plugin: string): ProposalContext {
    return new ProposalCtx(this.e, this.source, plugin, this.block);
  }
}

/** Where a write context's output goes besides state: its events and its plugins' index writes. */
export interface WriteOutputs {
  readonly emit: EventSink;
  readonly index: IndexStage;
  /** The block's events so far (block-level phases only; a transaction's context has none). */
  readonly blockEvents?: () => readonly BlockEvent[];
  /** Counts ucoin a plugin burned (`ctx.burn`) into the block's `fees_burned`; absent where no block is built (genesis). */
  readonly burned?: (amount: bigint) => void;
  /** Counts bytes a plugin declared protocol-sized (`ctx.protocolSizedBytes`) for its transaction's storage fee; absent outside a transaction. */
  readonly protocolSized?: (bytes: number) => void;
}

/**
 * What a write context and all its plugins' re-scopes share, made on first use: one per kernel
 * context, so per transaction (each runs on its own child overlay, where a cache keyed by the
 * overlay would be a new entry every transaction and never hit again).
 */
interface WriteShared {
  params?: ParamReader;
  accounts?: AccountsWriter;
  stores?: Map<string, Made<Store>>;
}

class WriteCtx implements WriteContext {
  private paramsOf: ParamReader | undefined;
  protected accountsOf: AccountsWriter | undefined;
  private storeOf: Store | undefined;
  private indexOf: IndexWriter | undefined;
  private methodsOf: WriteMethodCalls | undefined;

  constructor(
    protected readonly e: ContextEnv,
    protected readonly overlay: StateOverlay,
    readonly block: BlockInfo,
    protected readonly out: WriteOutputs,
    protected readonly ns: string,
    protected readonly shared: WriteShared = {},
  ) {}

  get height(): number {
    return this.block.height;
  }

  get env(): NetworkEnv {
    return this.e.env;
  }

  get shard(): ShardView {
    return this.e.shards ?? ONE_SHARD;
  }

  get params(): ParamReader {
    return (this.paramsOf ??= this.shared.params ??= this.e.params.reader(this.overlay));
  }

  get accounts(): AccountsWriter {
    return (this.accountsOf ??= this.shared.accounts ??= accountsWriter(this.overlay));
  }

  get store(): Store {
    return (this.storeOf ??= madeFor((this.shared.stores ??= new Map()), this.e, this.ns, () => (this.e.boundary ? this.e.boundary.store(this.ns, writableStore(this.overlay, this.ns)) : writableStore(this.overlay, this.ns))));
  }

  get index(): IndexWriter {
    return (this.indexOf ??= this.e.boundary ? this.e.boundary.index(this.ns, this.out.index.writer(this.ns)) : this.out.index.writer(this.ns));
  }

  read(other: string): ReadonlyStore {
    this.e.boundary?.read(this.ns, other);
    return readonlyStore(this.overlay, other);
  }

  get validators(): ValidatorSetReader {
    return validatorSetReader(this.overlay);
  }

  get recipients(): RecipientReader {
    return recipientsOf(this.e, this.overlay, this.block.height);
  }

  async pluginSchedule(): Promise<PluginScheduleEntry[]> {
    return (await readSchedule(this.overlay)) ?? [];
  }

  payee(to: string): Promise<string | ChainError> {
    return payeeIn(this.e, this.overlay, this.block.height, to);
  }

  /** Read methods read this overlay, so they see what the caller wrote so far; write methods write it. */
  get methods(): WriteMethodCalls {
    return (this.methodsOf ??= writeMethodCalls({
      caller: this.ns,
      height: this.block.height,
      state: this.overlay,
      readScope: (plugin) => new ReadCtx(this.e, this.overlay, this.block.height, plugin),
      writeScope: (plugin) => this[SCOPE](plugin),
      directory: this.e.methods,
    }));
  }

  blockEvents(): readonly BlockEvent[] {
    return this.out.blockEvents?.() ?? [];
  }

  /** Takes `amount` ucoin from `address` out of the supply, counted in the block's `fees_burned` (context/contexts.ts). */
  async burn(address: string, amount: bigint): Promise<void> {
    if (amount < 0n) throw new RangeError(`burn of a negative amount (${amount}) from ${address}`);
    const count = this.out.burned;
    if (count === undefined) throw new Error('ctx.burn: no block is being built here (genesis), so nothing can count the burn');
    if (amount === 0n) return;
    // Through this context's accounts: in a transaction, a burn from its signing account is
    // counted as what the transaction took (a session key's cap).
    await this.accounts.debit(address, amount);
    count(amount);
  }

  /** Exempts `bytes` of this transaction's state growth from its storage fee (context/contexts.ts). */
  protocolSizedBytes(bytes: number): void {
    if (!Number.isSafeInteger(bytes) || bytes < 0) throw new RangeError(`protocolSizedBytes: ${bytes} is not a whole number of bytes`);
    this.out.protocolSized?.(bytes);
  }

  /** The kernel's event, not the plugin's: outside the plugin's declared events (context/contexts.ts). */
  requestLightClientHeader(): void {
    this.out.emit({ type: LIGHT_CLIENT_HEADER_REQUESTED, data: { plugin: this.ns } });
  }

  /** A property, not a method: handlers pass `ctx.emit` around on its own. */
  readonly emit = (event: ChainEvent): void => {
    checkEvent(event);
    this.e.boundary?.emit(this.ns, event);
    this.out.emit(event);
  };

  [SCOPE](plugin: string): WriteContext {
    return new WriteCtx(this.e, this.overlay, this.block, this.out, plugin, this.shared);
  }
}

class TxCtx extends WriteCtx implements TxContext {
  constructor(e: ContextEnv, overlay: StateOverlay, block: BlockInfo, out: WriteOutputs, ns: string, readonly tx: Tx, readonly gasLimit: number, private readonly moves: ValueMoves | undefined, shared?: WriteShared) {
    super(e, overlay, block, out, ns, shared);
  }

  /** Moves out of the signing account are shown to `beforeTransfer` and counted (value-moves.ts). */
  override get accounts(): AccountsWriter {
    return (this.accountsOf ??= this.shared.accounts ??= this.moves === undefined ? accountsWriter(this.overlay) : this.moves.wrap(accountsWriter(this.overlay)));
  }

  override [SCOPE](plugin: string): TxContext {
    return new TxCtx(this.e, this.overlay, this.block, this.out, plugin, this.tx, this.gasLimit, this.moves, this.shared);
  }
}

class GenesisCtx extends WriteCtx implements GenesisContext {
  constructor(
    e: ContextEnv,
    overlay: StateOverlay,
    block: BlockInfo,
    out: WriteOutputs,
    ns: string,
    readonly genesis: GenesisDoc,
    readonly networkGenesis: GenesisDoc,
    shared?: WriteShared,
  ) {
    super(e, overlay, block, out, ns, shared);
  }

  override [SCOPE](plugin: string): GenesisContext {
    return new GenesisCtx(this.e, this.overlay, this.block, this.out, plugin, this.genesis, this.networkGenesis, this.shared);
  }
}

export function readContext(e: ContextEnv, source: StateSource, height: number): ReadContext {
  return new ReadCtx(e, source, height, 'kernel');
}

/** checkTx's context: `respond` collects fields for the submission response (dropped when nobody is answered). */
export function admissionContext(e: ContextEnv, source: StateSource, height: number, respond: (fields: Readonly<Record<string, unknown>>) => void = () => undefined): AdmissionContext {
  return new AdmissionCtx(e, source, height, 'kernel', respond);
}

export function proposalContext(e: ContextEnv, source: StateSource, block: BlockInfo): ProposalContext {
  return new ProposalCtx(e, source, 'kernel', block);
}

export function writeContext(e: ContextEnv, overlay: StateOverlay, block: BlockInfo, out: WriteOutputs): WriteContext {
  return new WriteCtx(e, overlay, block, out, 'kernel');
}

/** A transaction's context; with `moves`, its accounts writer shows and counts coins leaving the signing account. */
export function txContext(e: ContextEnv, overlay: StateOverlay, block: BlockInfo, out: WriteOutputs, tx: Tx, gasLimit: number, moves?: ValueMoves): TxContext {
  return new TxCtx(e, overlay, block, out, 'kernel', tx, gasLimit, moves);
}

export function genesisContext(e: ContextEnv, overlay: StateOverlay, block: BlockInfo, genesis: GenesisDoc, out: WriteOutputs, networkGenesis: GenesisDoc = genesis): GenesisContext {
  return new GenesisCtx(e, overlay, block, out, 'kernel', genesis, networkGenesis);
}
