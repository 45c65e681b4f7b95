import type { ShardView } from '../crypto/shard.js';
import { AsyncLocalStorage } from 'node:async_hooks';
import { notFound } from '../errors.js';
import type { NetworkEnv, QueryContext } from '../context/contexts.js';
import type { Hooks } from '../host/hooks.js';
import type { ParamRegistry } from '../state/params.js';
import type { StateSource } from '../state/overlay.js';
import { readContext } from '../chain/contexts.js';
import { scopeFor } from '../host/scoping.js';
import type { PluginBoundary } from '../host/plugin-boundary.js';

/** A past state a proven read pins queries to: it tells the keys read (kernel/chain/past-state.ts). */
export interface ProvableState extends StateSource {
  readonly keysRead?: ReadonlySet<string>;
}

/** What the query service reads: committed state and the height it is at. */
export interface CommittedState {
  readonly state: StateSource;
  height(): number;
}

/**
 * Reads of committed state pinned to one height (ABCI's height-addressed Query): a read that a
 * commit overtook while it awaited the store is run again, so its answer never mixes two heights.
 * Plugins read through this, never through the chain object.
 */
export class QueryService {
  /**
   * The past state a proven read pins every query of its handler to (proven-reads.ts), and the
   * keys it proves besides the route's declared ones (`provingReads`).
   */
  private readonly pinned = new AsyncLocalStorage<{ readonly state: ProvableState; readonly height: number; readonly proven?: Set<string> }>();

  /** The contexts' env: the hooks ride along, so `ctx.recipients` works in routes. */
  private readonly e: { env: NetworkEnv; params: ParamRegistry; boundary?: PluginBoundary; hooks: Hooks; shards?: ShardView };

  constructor(
    private readonly committed: CommittedState,
    private readonly hooks: Hooks,
    env: { env: NetworkEnv; params: ParamRegistry; boundary?: PluginBoundary; shards?: ShardView },
  ) {
    this.e = { ...env, hooks };
  }

  /** Runs `fn` with a read-only context of `plugin` at the last committed height. */
  async run<T>(plugin: string, fn: (ctx: QueryContext) => Promise<T>): Promise<T> {
    const pinned = this.pinned.getStore();
    // Inside a proven read: that height's state, which a commit cannot move (PastState fails a read the commit overtook).
    if (pinned) return fn(scopeFor(readContext({ ...this.e, hooks: this.hooks }, pinned.state, pinned.height), plugin) as QueryContext);
    for (let attempt = 0; ; attempt++) {
      const height = this.committed.height();
      const ctx = scopeFor(readContext({ ...this.e, hooks: this.hooks }, this.committed.state, height), plugin) as QueryContext;
      const result = await fn(ctx);
      // Three overtakes in a row means blocks come faster than the read: the last answer is
      // still one height's as far as the keys it read before the last commit go.
      if (this.committed.height() === height || attempt === 2) return result;
    }
  }

  /**
   * Runs `fn` (a route handler) with every `run` it makes reading `state` at `height` instead of
   * the head: how a proven read answers from the state its proof is of, whatever the handler.
   */
  pinnedTo<T>(state: ProvableState, height: number, fn: () => T, proven?: Set<string>): T {
    return this.pinned.run({ state, height, ...(proven ? { proven } : {}) }, fn);
  }

  /**
   * Runs `fn`, which must read alone (nothing else of the handler reading meanwhile): inside a
   * proven read, every state key it reads is proven beside the route's declared keys. For what
   * picked the record a route answers when the route cannot name its key: the record of a name
   * resolved to the account answered (decisions.md §84, "one entry per state key the answer was
   * read from"). Outside a proven read it only runs `fn`.
   */
  async provingReads<T>(fn: () => Promise<T>): Promise<T> {
    const pinned = this.pinned.getStore();
    const read = pinned?.state.keysRead;
    if (pinned?.proven === undefined || read === undefined) return fn();
    const before = new Set(read);
    const out = await fn();
    for (const k of read) if (!before.has(k)) pinned.proven.add(k);
    return out;
  }

  /** Dispatches a named query a plugin taps on `query` (for other plugins, the gateway, the assistant tool server). */
  async call(name: string, params: Record<string, unknown>): Promise<unknown> {
    const hook = this.hooks.query.get(name);
    if (!hook?.isUsed()) throw notFound(`no query named "${name}" on this node`);
    return this.run('kernel', (ctx) => hook.promise(ctx, params));
  }
}
