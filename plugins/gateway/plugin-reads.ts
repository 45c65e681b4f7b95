import type { DeclaredRoute, PluginDefinition } from '../../kernel/sdk.js';
import type { ProtocolParams } from './protocol-params.js';
import type { ShardRouter } from './shard-router.js';

/**
 * A route a state plugin lists in its definition (`PluginDefinition.routes`): forwarded here under
 * its declaration, or, for one part 1 marks Node only (`nodeOnly`), answered 404 saying so.
 */
export interface ListedPluginRoute {
  readonly plugin: string;
  /** The plugin's own declaration: the gateway checks params and query with it and documents it as the node does. */
  readonly route: DeclaredRoute;
  /** The plugin's `shardParam`: its routes go to the shard that parameter names. */
  readonly shardParam: string | undefined;
}

/**
 * The routes the build's state plugins list. The gateway boots no state plugin, but it runs the
 * same build as the nodes, so their definitions say which routes exist and how they are declared
 * (part 1: served by both, unless marked Node only), as the operations they declare say which
 * submissions to forward (operation-routes.ts).
 */
export function listedPluginRoutes(catalogue: ReadonlyMap<string, PluginDefinition<unknown, unknown>>): ListedPluginRoute[] {
  const out: ListedPluginRoute[] = [];
  for (const def of catalogue.values()) {
    for (const route of def.routes ?? []) out.push({ plugin: def.name, route, shardParam: def.shardParam });
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
