import { ConfigError } from './env.js';
import { shardView, type ShardView } from '../crypto/shard.js';
import type { NodeConfig } from './schema.js';

/**
 * The shard a node serves, from `CHAIN_SHARDS`/`CHAIN_SHARD_ID` and the genesis (decisions.md
 * §71). Start-up is refused, naming the variable, when `CHAIN_SHARD_ID` ≥ `CHAIN_SHARDS` or
 * `CHAIN_SHARDS` differs from the genesis `n_shards`. Without `CHAIN_SHARD_ID` the node is shard
 * 0 of a one-shard network and `CHAIN_SHARDS` is ignored (`ignoredShards` says so, for the log).
 */
export function resolveSharding(sharding: NodeConfig['sharding'], genesisShards: number, genesisFile: string): { readonly view: ShardView; readonly ignoredShards: boolean } {
  const id = sharding.shard_id;
  if (id === undefined) {
    if (genesisShards !== 1) throw new ConfigError(`CHAIN_SHARD_ID is not set, so this node runs a one-shard network, but the genesis ${genesisFile} has n_shards ${genesisShards}: set CHAIN_SHARD_ID (and CHAIN_SHARDS=${genesisShards})`);
    return { view: shardView(0, 1), ignoredShards: sharding.shards !== 1 };
  }
  if (id >= sharding.shards) throw new ConfigError(`CHAIN_SHARD_ID ${id} is not below CHAIN_SHARDS ${sharding.shards}: shards are numbered 0 to n_shards - 1`);
  if (sharding.shards !== genesisShards) throw new ConfigError(`CHAIN_SHARDS ${sharding.shards} differs from n_shards ${genesisShards} of the genesis ${genesisFile}`);
  return { view: shardView(id, sharding.shards), ignoredShards: false };
}
