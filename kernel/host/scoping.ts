/**
 * Hook contexts are created once per call by the kernel and re-scoped per plugin: a context
 * object carries a function under this symbol that returns the same context with `store` bound
 * to the given plugin's namespace. The host's tap wrapper calls it, so a plugin only ever holds
 * a handle to its own state.
 */
export const SCOPE: unique symbol = Symbol('chain.scope');

export interface Scopable {
  [SCOPE]?: (plugin: string) => unknown;
}

export function scopeFor<T>(ctx: T, plugin: string): T {
  const fn = (ctx as Scopable | null | undefined)?.[SCOPE];
  return fn ? (fn.call(ctx, plugin) as T) : ctx;
}
