import avvio from 'avvio';
import { Value } from '@sinclair/typebox/value';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { CONSENSUS_HOOKS, type Hooks } from './hooks.js';
import type { NodeConfig, PluginEntry } from '../config/schema.js';
import { ConfigError } from '../config/env.js';
import type { ParamRegistry } from '../state/params.js';
import type { AddressKindSpec, CrossShardTransferSpec, PluginApi, PluginDefinition, SystemAddressSpec } from './plugin.js';
import { scopeFor } from './scoping.js';
import type { ChainError } from '../errors.js';
import type { OperationRegistry } from '../ops/registry.js';
import { KERNEL_NAMESPACES } from './kernel-namespaces.js';
import { inactivePluginProblem, pluginState, type PluginScheduleEntry, type PluginState } from '../context/schedule.js';
import { declaredEvents } from './plugin-events.js';
import { MethodDirectory } from './method-calls.js';
import { PluginBoundary } from './plugin-boundary.js';
import { RouteTable } from './route-table.js';

type AnyPlugin = PluginDefinition<any, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- catalogue holds plugins of every option type; each checks its own

interface Loaded {
  readonly def: AnyPlugin;
  readonly entry: PluginEntry;
  readonly order: number;
  /**
   * Which load of the plugin this is: a service plugin unloaded and loaded again registers anew,
   * and the taps of its earlier loads (tapable cannot untap) no longer run.
   */
  readonly generation: number;
}

/** A close handler (`api.onClose`), run last-in first-out when its plugin unloads or the host closes. */
interface Closer {
  readonly plugin: string;
  readonly fn: () => Promise<void> | void;
  done: boolean;
}

/** Where each consensus hook carries its context, and what a gated (inactive) tap returns. */
const CONTEXT_ARG: Record<string, { ctx: number; passThrough: boolean }> = {
  initGenesis: { ctx: 0, passThrough: false },
  checkTx: { ctx: 0, passThrough: false },
  prepareProposal: { ctx: 1, passThrough: true },
  processProposal: { ctx: 0, passThrough: false },
  beginBlock: { ctx: 0, passThrough: false },
  executeTx: { ctx: 0, passThrough: false },
  endBlock: { ctx: 1, passThrough: true },
  evidence: { ctx: 0, passThrough: false },
  resolveSigner: { ctx: 0, passThrough: false },
  ownerOf: { ctx: 0, passThrough: false },
  recordExists: { ctx: 0, passThrough: false },
  resolveName: { ctx: 0, passThrough: false },
  accountName: { ctx: 0, passThrough: false },
  feePayer: { ctx: 0, passThrough: false },
  beforeTransfer: { ctx: 0, passThrough: false },
  committed: { ctx: -1, passThrough: false },
  routes: { ctx: -1, passThrough: false },
  rpcMethods: { ctx: -1, passThrough: false },
  query: { ctx: 0, passThrough: false },
};

const CONSENSUS = new Set<string>(CONSENSUS_HOOKS);

export interface HostOptions<Services> {
  readonly config: NodeConfig;
  readonly hooks: Hooks;
  readonly catalogue: ReadonlyMap<string, AnyPlugin>;
  readonly params: ParamRegistry;
  readonly log: Logger;
  readonly metrics: Registry;
  readonly services: Services;
  /** A gateway process boots service plugins only. */
  readonly profile: 'node' | 'gateway';
  /** Where the operations state plugins declare are registered (a node's; absent in a gateway). */
  readonly operations?: OperationRegistry;
  /** Where the plugins' declared stores and events are held (made here when not given). */
  readonly boundary?: PluginBoundary;
}

/**
 * Boots the network's ordered plugin list with avvio (dependency order, close in reverse), and
 * guards every hook with an interceptor that (1) pins tap order to the plugin list, (2) refuses
 * consensus taps from service plugins, (3) refuses taps after boot except from a service plugin
 * being loaded at runtime, (4) gives each tap a context scoped to its plugin, (5) skips a state
 * plugin's taps outside its active span, and (6) runs a service plugin's taps only while the load
 * that made them is current (unloaded plugins' taps stay in tapable but no longer run).
 */
export class PluginHost<Services> {
  private readonly loaded = new Map<string, Loaded>();
  private readonly systemAddrs = new Map<string, SystemAddressSpec & { plugin: string }>();
  private readonly kinds = new Map<string, AddressKindSpec & { plugin: string }>();
  private readonly systemTxTypes = new Map<string, string>();
  private readonly systemTxGas = new Map<string, number>();
  private crossShardSpec: (CrossShardTransferSpec & { plugin: string }) | undefined;
  /**
   * When each state plugin runs. Seeded from the network config for genesis, then replaced by
   * what committed state says (`applySchedule`), so a change made in consensus takes effect on
   * every node at the same height whatever its config file says.
   */
  private schedule = new Map<string, PluginScheduleEntry>();
  private registering: string | null = null;
  private booted = false;
  private generations = 0;
  private readonly closers: Closer[] = [];
  /** While set, only this plugin's non-consensus taps run (a service plugin loaded at runtime mounting its routes). */
  private onlyTapsOf: string | null = null;
  private readonly serviceListeners: Array<(name: string) => void> = [];
  /** The methods plugins offer one another; write contexts carry it. */
  readonly methods = new MethodDirectory();
  /** What converted plugins declared (stores, indexes, events); every context checks against it. */
  readonly boundary: PluginBoundary;
  private readonly app = avvio({}, { autostart: false, timeout: 0 });

  constructor(private readonly opts: HostOptions<Services>) {
    this.boundary = opts.boundary ?? new PluginBoundary();
    this.installInterceptors();
  }

  /** Plugins loaded in this process (every listed state plugin, scheduled or not; enabled service plugins), in list order. */
  enabled(): readonly Loaded[] {
    return [...this.loaded.values()].sort((a, b) => (a.order - b.order));
  }

  isLoaded(name: string): boolean {
    return this.loaded.has(name);
  }

  /** Whether a plugin's taps run at `height`: a service plugin whenever loaded, a state plugin by the schedule in state. */
  isActive(name: string, height: number): boolean {
    const l = this.loaded.get(name);
    if (!l) return false;
    if (l.def.kind === 'service') return true;
    return pluginState(this.schedule.get(name), height) === 'active';
  }

  /** A plugin's state at `height` (decisions.md §26, §37). */
  stateOf(name: string, height: number): PluginState {
    const l = this.loaded.get(name);
    if (l?.def.kind === 'service') return 'active';
    return pluginState(this.schedule.get(name), height);
  }

  /** 403 naming the plugin and its state when it is not active at `height` (decisions.md §37). */
  inactiveProblem(name: string, height: number): ChainError | undefined {
    return inactivePluginProblem(name, this.stateOf(name, height), this.schedule.get(name), height);
  }

  /** The schedule written into genesis state: every loaded state plugin, in list order. */
  genesisSchedule(): PluginScheduleEntry[] {
    return this.enabled()
      .filter((l) => l.def.kind === 'state')
      .map((l) => ({ name: l.def.name, activation_height: l.entry.enabled ? l.entry.activation_height : null, retire_height: l.entry.enabled ? (l.entry.retire_height ?? null) : null }));
  }

  /** Replaces the schedule with committed state's; entries of plugins this build does not load are kept for listing. */
  applySchedule(entries: readonly PluginScheduleEntry[]): void {
    this.schedule = new Map(entries.map((e) => [e.name, e]));
  }

  scheduleEntries(): PluginScheduleEntry[] {
    return [...this.schedule.values()];
  }

  /** The governance parameter naming the shard that serves a plugin's operations (`PluginDefinition.shardParam`), if it has one. */
  shardParamOf(name: string): string | undefined {
    return this.loaded.get(name)?.def.shardParam;
  }

  /**
   * A route a loaded plugin lists in its definition's `routes` but does not serve (the gateway
   * would proxy a path no node answers), as a start-up refusal; undefined when every one is served.
   */
  unservedListedRoute(table: RouteTable): string | undefined {
    const served = table.list();
    for (const l of this.enabled()) {
      for (const r of l.def.routes ?? []) {
        if (!served.some((e) => e.method === r.method && e.path === r.path)) return `plugins: "${l.def.name}" lists the route ${r.method} ${r.path} in its definition but does not serve it`;
      }
    }
    return undefined;
  }

  /** The plugin that declares a system transaction type, if any. */
  systemTransactionPlugin(type: string): string | undefined {
    return this.systemTxTypes.get(type);
  }

  systemAddress(address: string): (SystemAddressSpec & { plugin: string }) | undefined {
    return this.systemAddrs.get(address);
  }

  /** The plugin that takes transfers to other shards' addresses (decisions.md §74), if one is enabled. */
  crossShard(): (CrossShardTransferSpec & { plugin: string }) | undefined {
    return this.crossShardSpec;
  }

  /** Gas a declared system transaction counts against `max_block_gas` (`systemTransactionGas`), 0 when it declares none. */
  systemTransactionGas(type: string): number {
    return this.systemTxGas.get(type) ?? 0;
  }

  /** Every declared system transaction's gas, by type (the gas estimate lists them under `operations`). */
  systemTransactionGasList(): ReadonlyArray<readonly [string, number]> {
    return [...this.systemTxGas];
  }

  /** The plugin that claims an address kind, if any. */
  addressKind(kind: string): (AddressKindSpec & { plugin: string }) | undefined {
    return this.kinds.get(kind);
  }

  /** A context re-scoped to a plugin's namespace, as the plugin's own taps receive it. */
  scoped<C>(ctx: C, plugin: string): C {
    return scopeFor(ctx, plugin);
  }

  async boot(): Promise<void> {
    // A listed state plugin is loaded even when not enabled: its code is registered on every node,
    // so a change made in consensus can switch it on at an agreed height (decisions.md §26).
    const entries = this.opts.config.plugins.filter((e) => e.enabled || (this.opts.profile === 'node' && this.opts.catalogue.get(e.name)?.kind === 'state'));
    entries.forEach((entry, order) => {
      const def = this.opts.catalogue.get(entry.name);
      if (!def) throw new ConfigError(`plugins: unknown plugin "${entry.name}" (known: ${[...this.opts.catalogue.keys()].sort().join(', ')})`);
      if (KERNEL_NAMESPACES.includes(def.name)) throw new ConfigError(`plugins: "${def.name}" is a kernel state namespace (${KERNEL_NAMESPACES.join(', ')}); a plugin may not take that name`);
      if (this.opts.profile === 'gateway' && def.kind !== 'service') return;
      this.loaded.set(def.name, { def, entry, order, generation: ++this.generations });
    });
    for (const { def } of this.enabled()) {
      for (const dep of def.dependencies ?? []) {
        const d = this.loaded.get(dep);
        if (!d) throw new ConfigError(`plugins: "${def.name}" depends on "${dep}", which is not enabled in configs/${this.opts.config.network}.json`);
        if (d.order > this.loaded.get(def.name)!.order) throw new ConfigError(`plugins: "${def.name}" depends on "${dep}", so "${dep}" must be listed before it`);
      }
      for (const p of def.params ?? []) this.opts.params.declare(def.name, p);
      if (def.shardParam !== undefined && !(def.params ?? []).some((p) => p.key === def.shardParam)) throw new ConfigError(`plugins: "${def.name}" names shardParam "${def.shardParam}", which is not one of its parameters`);
      for (const s of def.systemAddresses ?? []) {
        const prev = this.systemAddrs.get(s.address);
        if (prev) throw new ConfigError(`plugins: system address ${s.address} is claimed by both "${prev.plugin}" and "${def.name}"`);
        this.systemAddrs.set(s.address, { ...s, plugin: def.name });
      }
      for (const type of def.systemTransactions ?? []) {
        if (!/^[a-z][a-z0-9_]{0,47}$/.test(type)) throw new ConfigError(`plugins: "${def.name}" declares system transaction type "${type}": types are lower_snake_case (never a transfer, an address kind, an operation or a system address)`);
        const prev = this.systemTxTypes.get(type);
        if (prev) throw new ConfigError(`plugins: system transaction type ${type} is declared by both "${prev}" and "${def.name}"`);
        this.systemTxTypes.set(type, def.name);
      }
      for (const [type, gas] of Object.entries(def.systemTransactionGas ?? {})) {
        if (this.systemTxTypes.get(type) !== def.name) throw new ConfigError(`plugins: "${def.name}" declares gas for system transaction type ${type}, which it does not declare`);
        if (!Number.isSafeInteger(gas) || gas < 0) throw new ConfigError(`plugins: "${def.name}" declares gas ${gas} for ${type}: not a whole number`);
        this.systemTxGas.set(type, gas);
      }
      if (def.crossShardTransfers !== undefined) {
        if (this.crossShardSpec) throw new ConfigError(`plugins: transfers to other shards are claimed by both "${this.crossShardSpec.plugin}" and "${def.name}"`);
        this.crossShardSpec = { ...def.crossShardTransfers, plugin: def.name };
      }
      for (const k of def.addressKinds ?? []) {
        const prev = this.kinds.get(k.kind);
        if (prev) throw new ConfigError(`plugins: address kind .${k.kind} is claimed by both "${prev.plugin}" and "${def.name}"`);
        this.kinds.set(k.kind, { ...k, plugin: def.name });
      }
      if (def.kind !== 'state' && (def.operations?.length ?? 0) > 0) throw new ConfigError(`plugins: "${def.name}" is a service plugin and may not declare operations (they change state)`);
      for (const op of def.operations ?? []) this.opts.operations?.add(def.name, op);
      this.methods.load(def);
      this.boundary.load(def);
    }
    this.applySchedule(this.genesisSchedule());
    declaredEvents(this.enabled().map((l) => l.def));
    for (const l of this.enabled()) {
      const options = this.validateOptions(l);
      this.app.use(async () => {
        this.registering = l.def.name;
        try {
          await l.def.register(this.apiFor(l, options));
        } finally {
          this.registering = null;
        }
      });
    }
    await this.app.ready();
    this.booted = true;
    this.opts.log.info({ plugins: this.enabled().map((l) => `${l.def.name}@${l.entry.activation_height}`) }, 'plugins booted');
  }

  async close(): Promise<void> {
    await this.runClosers(() => true);
    await new Promise<void>((resolve, reject) => this.app.close((err?: Error) => (err ? reject(err) : resolve())));
  }

  /** Runs the pending close handlers that `which` selects, last registered first; a failing one is logged and the rest still run. */
  private async runClosers(which: (c: Closer) => boolean): Promise<void> {
    for (let i = this.closers.length - 1; i >= 0; i--) {
      const c = this.closers[i]!;
      if (c.done || !which(c)) continue;
      c.done = true;
      try {
        await c.fn();
      } catch (err) {
        this.opts.log.error({ err, plugin: c.plugin }, 'a close handler failed');
      }
    }
  }

  /** Called with the name of each service plugin loaded after boot, once its register() has run (the node mounts its routes). */
  onServiceLoaded(fn: (name: string) => void): void {
    this.serviceListeners.push(fn);
  }

  /** Runs `fn` (a hook call) with only `plugin`'s non-consensus taps active. */
  tapsOnlyOf<T>(plugin: string, fn: () => T): T {
    this.onlyTapsOf = plugin;
    try {
      return fn();
    } finally {
      this.onlyTapsOf = null;
    }
  }

  /** The routes one plugin's `routes` taps add, in a table of their own (a service plugin loaded at runtime). */
  routesOf(plugin: string): RouteTable {
    const table = new RouteTable();
    this.tapsOnlyOf(plugin, () => this.opts.hooks.routes.call(table));
    return table;
  }

  /** Whether a route registered by `owner` is served: always, unless the owner is a service plugin that is not loaded now. */
  servesRoutesOf(owner: string): boolean {
    return this.opts.catalogue.get(owner)?.kind !== 'service' || this.loaded.has(owner);
  }

  /** The kind of a plugin of the catalogue, undefined for one this build does not know. */
  kindOf(name: string): AnyPlugin['kind'] | undefined {
    return this.opts.catalogue.get(name)?.kind;
  }

  /** Whether this host runs a node's plugins or a gateway's (service plugins only). */
  get profile(): HostOptions<Services>['profile'] {
    return this.opts.profile;
  }

  /** The service plugins loaded now, in list order, with the options they were loaded with. */
  loadedServices(): Array<{ readonly name: string; readonly options: Record<string, unknown> }> {
    return this.enabled()
      .filter((l) => l.def.kind === 'service')
      .map((l) => ({ name: l.def.name, options: l.entry.options }));
  }

  /** Unloads a service plugin after boot (a config reload, host/service-reload.ts), running its close handlers last first. */
  async unloadService(name: string): Promise<void> {
    this.loaded.delete(name);
    await this.runClosers((c) => c.plugin === name);
    this.opts.log.info({ plugin: name }, 'service plugin unloaded');
  }

  /** Loads one service plugin after boot (a config reload, host/service-reload.ts); the reason it could not, or undefined. */
  async loadService(entry: PluginEntry, position: number): Promise<string | undefined> {
    const def = this.opts.catalogue.get(entry.name);
    if (!def) return `unknown plugin "${entry.name}" (known: ${[...this.opts.catalogue.keys()].sort().join(', ')})`;
    for (const dep of def.dependencies ?? []) if (!this.loaded.has(dep)) return `depends on "${dep}", which is not loaded`;
    // Parameters are chain state, declared once at boot on every node alike.
    if ((def.params?.length ?? 0) > 0) return 'declares protocol parameters, which only a plugin listed at start may do';
    const order = Math.max(position, ...this.enabled().map((l) => l.order + 1));
    try {
      this.boundary.load(def);
    } catch (err) {
      return err instanceof Error ? err.message : String(err);
    }
    const l: Loaded = { def, entry, order, generation: ++this.generations };
    try {
      const options = this.validateOptions(l);
      this.loaded.set(def.name, l);
      this.registering = def.name;
      try {
        await def.register(this.apiFor(l, options));
      } finally {
        this.registering = null;
      }
    } catch (err) {
      this.loaded.delete(def.name);
      await this.runClosers((c) => c.plugin === def.name);
      const reason = err instanceof Error ? err.message : String(err);
      this.opts.log.error({ plugin: def.name, reason }, 'service plugin failed to load; the process keeps running without it');
      return reason;
    }
    for (const fn of this.serviceListeners) fn(def.name);
    this.opts.log.info({ plugin: def.name }, 'service plugin loaded');
    return undefined;
  }

  private validateOptions(l: Loaded): Record<string, unknown> {
    const schema = l.def.optionsSchema;
    if (!schema) return l.entry.options;
    const value = Value.Default(schema, Value.Clone(l.entry.options)) as Record<string, unknown>;
    const first = Value.Errors(schema, value).First();
    if (first) {
      const field = first.path.replace(/^\//, '').replace(/\//g, '.');
      throw new ConfigError(`plugins.${l.def.name}.options${field ? '.' + field : ''}: ${first.message}`);
    }
    return value;
  }

  private apiFor(l: Loaded, options: Record<string, unknown>): PluginApi<any, Services> { // eslint-disable-line @typescript-eslint/no-explicit-any
    const name = l.def.name;
    return {
      name,
      kind: l.def.kind,
      options,
      config: this.opts.config,
      hooks: this.opts.hooks,
      log: this.opts.log.child({ plugin: name }),
      metrics: this.opts.metrics,
      services: this.opts.services,
      onClose: (fn) => {
        this.closers.push({ plugin: name, fn, done: false });
      },
      runtime: {
        servesRoutesOf: (owner) => this.servesRoutesOf(owner),
        onServiceLoaded: (fn) => this.onServiceLoaded(fn),
        routesOf: (plugin) => this.routesOf(plugin),
      },
    };
  }

  private installInterceptors(): void {
    const hooks = this.opts.hooks as unknown as Record<string, unknown>;
    for (const [hookName, hook] of Object.entries(hooks)) {
      if (isHookMap(hook)) {
        hook.intercept({
          factory: (_key: unknown, created: TapableLike) => {
            created.intercept({ register: (tap: FullTapLike) => this.onRegister(hookName, tap, created) });
            return created;
          },
        });
      } else {
        const h = hook as TapableLike;
        h.intercept({ register: (tap: FullTapLike) => this.onRegister(hookName, tap, h) });
      }
    }
  }

  private onRegister(hookName: string, tap: FullTapLike, hook: TapableLike): FullTapLike {
    // After boot only a service plugin being loaded at runtime (reconcileServices) registers.
    if (this.booted && this.registering !== tap.name) throw new Error(`hook ${hookName}: registration is closed after boot ("${tap.name}" tried to tap it)`);
    const l = this.loaded.get(tap.name);
    if (!l) throw new Error(`hook ${hookName}: tap name "${tap.name}" is not an enabled plugin (tap with your plugin's name)`);
    if (this.registering !== tap.name) throw new Error(`hook ${hookName}: "${tap.name}" may only tap while its own register() runs`);
    if (CONSENSUS.has(hookName) && l.def.kind !== 'state') throw new Error(`hook ${hookName}: "${tap.name}" is a service plugin and may tap only committed, routes, rpcMethods and query`);
    if (tap.type === 'async') throw new Error(`hook ${hookName}: "${tap.name}" must use tap or tapPromise (callback taps are not supported)`);
    if (hookName === 'executeTx' && hook.taps.length > 0) throw new Error(`hook ${hook.name ?? hookName}: already handled by "${hook.taps[0]!.name}"; "${tap.name}" cannot add a second handler`);
    const place = CONTEXT_ARG[hookName];
    const plugin = tap.name;
    const tapped = tap.fn as (...args: unknown[]) => unknown;
    // Routes a plugin adds are its own (a route of an unloaded service plugin stops answering).
    const inner = hookName === 'routes' ? (table: unknown) => (table as { withOwner<T>(o: string, f: () => T): T }).withOwner(plugin, () => tapped(table)) : tapped;
    const generation = l.generation;
    const consensus = CONSENSUS.has(hookName);
    const scopedFn =
      place && place.ctx >= 0
        ? (...args: unknown[]) => {
            const ctx = args[place.ctx] as { height?: number };
            if (consensus && !this.isActive(plugin, ctx.height ?? 0)) return passResult(tap.type, place.passThrough ? args[0] : undefined);
            const scoped = [...args];
            scoped[place.ctx] = scopeFor(ctx, plugin);
            return inner(...scoped);
          }
        : inner;
    // A service plugin's taps run while this load of it is the loaded one (not after an unload,
    // nor those of an earlier load), and, while one plugin mounts its routes, only that plugin's.
    const fn =
      l.def.kind === 'service'
        ? (...args: unknown[]) => {
            const now = this.loaded.get(plugin);
            if (now?.generation !== generation || (this.onlyTapsOf !== null && this.onlyTapsOf !== plugin)) return passResult(tap.type, place?.passThrough ? args[0] : undefined);
            return scopedFn(...args);
          }
        : consensus
          ? scopedFn
          : (...args: unknown[]) => (this.onlyTapsOf !== null ? passResult(tap.type, place?.passThrough ? args[0] : undefined) : scopedFn(...args));
    // Ordering is a consensus rule: stage = position in the network's plugin list, never load order.
    return { ...tap, stage: l.order, fn };
  }
}

function passResult(type: string, value: unknown): unknown {
  return type === 'promise' ? Promise.resolve(value) : value;
}

interface FullTapLike {
  name: string;
  type: 'sync' | 'async' | 'promise';
  fn: Function; // eslint-disable-line @typescript-eslint/no-unsafe-function-type -- tapable's own type
  stage?: number;
}

interface TapableLike {
  name: string | undefined;
  taps: FullTapLike[];
  intercept(i: { register: (tap: FullTapLike) => FullTapLike }): void;
}

interface HookMapLike {
  intercept(i: { factory: (key: unknown, hook: TapableLike) => TapableLike }): void;
  for(key: unknown): unknown;
}

function isHookMap(h: unknown): h is HookMapLike {
  return typeof h === 'object' && h !== null && typeof (h as HookMapLike).for === 'function';
}
