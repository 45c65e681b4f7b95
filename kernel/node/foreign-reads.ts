import { foreignReadError, isShardOwned, type ShardView } from '../crypto/shard.js';
import type { RouteEntry, RpcHandler } from '../host/route-table.js';

/** Path parameters that name an account or record address on the node's routes. */
const ADDRESS_PARAMS = ['address', 'addr', 'owner', 'validator', 'account', 'vault'] as const;

/** Whether a route's path names an address the shard guard judges (so it may answer §73's 404). */
export function namesGuardedAddress(path: string): boolean {
  return ADDRESS_PARAMS.some((p) => path.includes(`:${p}`));
}

/**
 * decisions.md §73: a read naming an address another shard owns (`/accounts/:address` and its
 * sub-paths, `/staking/info/:address`, `/nodes/:address`, …) is answered 404 with `shard`, by
 * one rule for every plugin's routes rather than each plugin's own. Only GET routes: writes are
 * judged by their actor (§73's 400). `homeShardPlugin`: a plugin that keeps its records on one
 * shard (`shardParam`, the exchange) answers for every address there, so it is left alone. A
 * one-shard network owns every address: the handler is returned as it is.
 */
export function guardForeignReads(shards: ShardView, entry: RouteEntry, handler: RpcHandler, homeShardPlugin: (owner: string) => boolean): RpcHandler {
  if (shards.count === 1 || entry.method !== 'GET' || homeShardPlugin(entry.owner)) return handler;
  const named = ADDRESS_PARAMS.filter((p) => entry.path.includes(`:${p}`));
  if (named.length === 0) return handler;
  return (req) => {
    for (const p of named) {
      const address = req.params[p];
      if (address !== undefined && isShardOwned(address) && !shards.owns(address)) throw foreignReadError(shards, address);
    }
    return handler(req);
  };
}
