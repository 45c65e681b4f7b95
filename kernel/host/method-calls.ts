import type { ReadContext, WriteContext } from '../context/contexts.js';
import type { StateSource } from '../state/overlay.js';
import { ConfigError } from '../config/env.js';
import type { ChainError } from '../errors.js';
import type { PluginMethods, ReadMethodCalls, ReadMethodsOf, WriteMethodCalls, WriteMethodsOf } from '../context/methods.js';
import type { PluginKind } from './plugin.js';
import { inactivePluginProblem, pluginState, type PluginScheduleEntry } from '../context/schedule.js';
import { readSchedule } from './schedule-state.js';

/**
 * The methods the loaded plugins offer, and who may call whose write methods. Filled at boot by
 * the host; write contexts carry it (ContextEnv) so that a write call can be checked against it.
 */
export class MethodDirectory {
  private readonly offered = new Map<string, PluginMethods>();
  private readonly dependencies = new Map<string, readonly string[]>();

  /** At boot, for every loaded plugin, in list order. */
  load(plugin: { readonly name: string; readonly kind: PluginKind; readonly dependencies?: readonly string[]; readonly methods?: PluginMethods }): void {
    this.dependencies.set(plugin.name, plugin.dependencies ?? []);
    const methods = plugin.methods;
    if (!methods) return;
    if (plugin.kind !== 'state') throw new ConfigError(`plugins: "${plugin.name}" is a service plugin and may not offer methods (they run in consensus contexts, gated by activation)`);
    if (methods.plugin !== plugin.name) throw new ConfigError(`plugins: "${plugin.name}" carries the methods declared for "${methods.plugin}" (defineMethods names the plugin that offers them)`);
    this.offered.set(plugin.name, methods);
  }

  /** Why `caller` may not call the write method `name` of `methods.plugin`, or undefined when it may. */
  writeRefusal(caller: string, methods: PluginMethods, name: string): string | undefined {
    const offering = methods.plugin;
    // The call runs on `offering`'s namespace with write access, so it must run the functions
    // that plugin registered, never a look-alike declaration under its name.
    if (this.offered.get(offering) !== methods) return `write method "${name}": the declaration passed is not the one plugin "${offering}" offers on this network (import it from that plugin)`;
    if (caller !== offering && !(this.dependencies.get(caller) ?? []).includes(offering)) {
      return `plugin "${caller}" may not call write method "${name}" of "${offering}": "${caller}" does not list "${offering}" in its dependencies`;
    }
    return undefined;
  }
}

/** Where a context's `methods` calls run: what the kernel's context classes (chain/contexts.ts) supply. */
export interface CallSite {
  /** The plugin whose context this is (its namespace): the caller. */
  readonly caller: string;
  readonly height: number;
  /** The state the context reads: the activation schedule is read from it. */
  readonly state: StateSource;
  /** A read-only context on the same state, scoped to `plugin`. */
  readScope(plugin: string): ReadContext;
}

export interface WriteCallSite extends CallSite {
  /** The same write context, scoped to `plugin`: same overlay, block, events and index stage. */
  writeScope(plugin: string): WriteContext;
  readonly directory: MethodDirectory | undefined;
}

type Bound = (...args: unknown[]) => Promise<unknown>;
type Method = (ctx: never, ...args: never[]) => Promise<unknown>;
/** Throws the 403 of a plugin that is not active at the context's height; `problem` says it instead. */
type Gate = ((plugin: string) => Promise<void>) & { readonly problem: (plugin: string) => Promise<ChainError | undefined> };

/** `ctx.methods` of a read-only context. */
export function readMethodCalls(site: CallSite): ReadMethodCalls {
  const gate = activationGate(site);
  return { of: <D extends PluginMethods>(methods: D): ReadMethodsOf<D> => readView(site, methods, gate) as unknown as ReadMethodsOf<D>, active: activeCheck(gate) };
}

/** `ctx.methods` of a write context: reads as above, writes checked against the directory at each call. */
export function writeMethodCalls(site: WriteCallSite): WriteMethodCalls {
  const gate = activationGate(site);
  return {
    of: <D extends PluginMethods>(methods: D): WriteMethodsOf<D> => {
      const view = readView(site, methods, gate);
      bind(view, methods.write, () => site.writeScope(methods.plugin), methods.plugin, gate, (name) => {
        if (!site.directory) return `write method "${name}" of "${methods.plugin}": this context carries no method directory`;
        return site.directory.writeRefusal(site.caller, methods, name);
      });
      return view as unknown as WriteMethodsOf<D>;
    },
    active: activeCheck(gate),
  };
}

/** `ctx.methods.active`: whether the gate lets a call through. */
function activeCheck(gate: Gate): (methods: PluginMethods) => Promise<boolean> {
  return async (methods) => (await gate.problem(methods.plugin)) === undefined;
}

function readView(site: CallSite, methods: PluginMethods, gate: Gate): Record<string, Bound> {
  const view: Record<string, Bound> = {};
  bind(view, methods.read, () => site.readScope(methods.plugin), methods.plugin, gate);
  return view;
}

/**
 * Wraps each method of a table so the kernel supplies its context. The scoped context is made
 * at the call, not when the view is, so a view taken and not used costs no context.
 */
function bind(view: Record<string, Bound>, table: Readonly<Record<string, Method>>, scope: () => unknown, plugin: string, gate: Gate, refusal?: (name: string) => string | undefined): void {
  for (const name of Object.keys(table)) {
    const fn = table[name] as (ctx: unknown, ...args: unknown[]) => Promise<unknown>;
    view[name] = async (...args: unknown[]): Promise<unknown> => {
      const refused = refusal?.(name);
      if (refused !== undefined) throw new Error(refused);
      await gate(plugin);
      return fn(scope(), ...args);
    };
  }
}

/**
 * Activation gates a call as it gates a tap, from the schedule in state. It is read from the
 * state the context reads rather than asked of the host, because contexts are also made where
 * the host is out of reach (a route's query); the host loads its own copy from the same key
 * after every commit that changes it, so both give one answer at one height on every node. The
 * schedule cannot change while a context lives (endBlock's changes apply after every hook has
 * run), so it is read once per context.
 */
function activationGate(site: CallSite): Gate {
  let schedule: Promise<readonly PluginScheduleEntry[]> | undefined;
  const problem = async (plugin: string): Promise<ChainError | undefined> => {
    const entries = await (schedule ??= readSchedule(site.state).then((e) => e ?? []));
    const entry = entries.find((e) => e.name === plugin);
    return inactivePluginProblem(plugin, pluginState(entry, site.height), entry, site.height);
  };
  const gate = async (plugin: string): Promise<void> => {
    const refused = await problem(plugin);
    if (refused) throw refused;
  };
  return Object.assign(gate, { problem });
}
