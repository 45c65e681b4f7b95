import type { ReadContext, WriteContext } from './contexts.js';

/**
 * Methods one plugin offers the others, as a Lisk SDK module offers its `method` (the token
 * module's `transfer`, `getAvailableBalance`): staking offers self-stake to governance, an assets
 * ledger offers transfers to a DEX. The offering plugin declares them once with `defineMethods`
 * and exports the declaration; a caller imports it and calls `ctx.methods.of(declaration)` with
 * the context it was given, so parameter and result types come from the declaration
 * (kernel/host/method-calls.ts makes the calls).
 *
 * A method's first parameter is the context the kernel gives it, always scoped to the offering
 * plugin: its own `store`, in the caller's consensus context. A read method gets a read-only
 * context; a write method gets the caller's write context (same overlay, block, events and index
 * stage), so what it writes rolls back with the caller's transaction. Methods are async: state
 * reads are.
 */
export type ReadMethod = (ctx: ReadContext, ...args: never[]) => Promise<unknown>;
export type WriteMethod = (ctx: WriteContext, ...args: never[]) => Promise<unknown>;

export type ReadMethodTable = Readonly<Record<string, ReadMethod>>;
export type WriteMethodTable = Readonly<Record<string, WriteMethod>>;

/** What `defineMethods` returns: the offering plugin's name and its two tables, typed as written. */
export interface PluginMethods<Name extends string = string, R extends ReadMethodTable = ReadMethodTable, W extends WriteMethodTable = WriteMethodTable> {
  readonly plugin: Name;
  readonly read: R;
  readonly write: W;
}

const METHOD_NAME = /^[a-zA-Z][a-zA-Z0-9_]{0,63}$/;

/**
 * Declares the methods of the plugin named `plugin` (the host refuses the declaration at boot
 * when the plugin carrying it has another name). Export the result and put it in the plugin's
 * definition (`methods`); callers pass the same object to `ctx.methods.of`.
 */
export function defineMethods<const Name extends string, R extends Record<string, ReadMethod>, W extends Record<string, WriteMethod>>(
  plugin: Name,
  methods: { readonly read?: R; readonly write?: W },
): PluginMethods<Name, R, W> {
  const read = methods.read ?? ({} as R);
  const write = methods.write ?? ({} as W);
  for (const name of [...Object.keys(read), ...Object.keys(write)]) {
    if (!METHOD_NAME.test(name)) throw new Error(`methods of "${plugin}": "${name}" is not a method name (a letter, then letters, digits or _)`);
    // One name, one meaning: a caller's view merges both tables.
    if (Object.hasOwn(read, name) && Object.hasOwn(write, name)) throw new Error(`methods of "${plugin}": "${name}" is declared both read and write`);
  }
  return Object.freeze({ plugin, read: Object.freeze({ ...read }), write: Object.freeze({ ...write }) });
}

/** A method as the caller sees it: the kernel supplies the context. */
type Bound<F> = F extends (ctx: never, ...args: infer A) => infer Result ? (...args: A) => Result : never;
/**
 * A table a declaration left out is inferred as the wide `Record`: no method may be reached
 * through it.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- "no methods" is the empty object type
type BoundTable<T> = string extends keyof T ? {} : { readonly [K in keyof T]: Bound<T[K]> };

export type ReadMethodsOf<D extends PluginMethods> = BoundTable<D['read']>;
export type WriteMethodsOf<D extends PluginMethods> = BoundTable<D['read']> & BoundTable<D['write']>;

/** `ctx.methods` in a read-only context: the read methods of any plugin. */
export interface ReadMethodCalls {
  of<D extends PluginMethods>(methods: D): ReadMethodsOf<D>;
  /**
   * Whether the plugin offering `methods` is active at this context's height, so that its
   * methods may be called (a call otherwise fails with 403): a plugin that reads an optional one
   * (session asks identity, which a network may not run) asks first and does without.
   */
  active(methods: PluginMethods): Promise<boolean>;
}

/**
 * `ctx.methods` in a write context: the read methods of any plugin, and the write methods of a
 * plugin the caller lists in its `dependencies` (any other call of a write method fails, naming
 * both plugins).
 */
export interface WriteMethodCalls {
  of<D extends PluginMethods>(methods: D): WriteMethodsOf<D>;
  /** As in a read context: whether the offering plugin is active at this height. */
  active(methods: PluginMethods): Promise<boolean>;
}
