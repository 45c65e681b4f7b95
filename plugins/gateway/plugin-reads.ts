import type { PluginDefinition } from '../../kernel/sdk.js';
import type { ProtocolParams } from './protocol-params.js';
import type { ShardRouter } from './shard-router.js';

/** A read route a state plugin lists in its definition (`PluginDefinition.routes`), proxied here. */
export interface ProxiedPluginRead {
  readonly plugin: string;
  readonly path: string;
  /** The plugin's `shardParam`: its reads go to the shard that parameter names. */
  readonly shardParam: string | undefined;
}

/**
 * The GET routes the build's state plugins list. The gateway boots no state plugin, but it runs
 * the same build as the nodes, so their definitions say which reads exist (part 1: served by both),
 * as the operations they declare say which submissions to forward (operation-routes.ts).
 */
export function proxiedPluginReads(catalogue: ReadonlyMap<string, PluginDefinition<unknown, unknown>>): ProxiedPluginRead[] {
  const out: ProxiedPluginRead[] = [];
  for (const def of catalogue.values()) {
    for (const r of def.routes ?? []) if (r.method === 'GET') out.push({ plugin: def.name, path: r.path, shardParam: def.shardParam });
  }
  return out;
}

/**
 * The shard a plugin with a `shardParam` keeps its records on (decisions.md §54: `dex_shard`), as
 * the gateway last read the parameter (0 before the first read); undefined for a plugin served by
 * every shard. A shard the gateway has no node for falls back to shard 0 (unsharded networks).
 */
export function homeShard(shardParam: string | undefined, params: Pick<ProtocolParams, 'value'>, router: Pick<ShardRouter, 'shardCount'>): number | undefined {
  if (shardParam === undefined) return undefined;
  const shard = Number(params.value(shardParam) ?? 0n);
  return shard < router.shardCount ? shard : 0;
}
