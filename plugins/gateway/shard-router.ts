import { parseShardMap, shardOf } from '../../kernel/sdk.js';

/**
 * Which node(s) serve which shard. A transaction goes to a node of its sender's shard
 * (FNV-1a(from) mod n, the rule every node uses for ownership), so the node that receives it is
 * one that can execute it. Several nodes per shard are tried in order (failover).
 */
export class ShardRouter {
  private constructor(private readonly shards: ReadonlyArray<readonly string[]>) {}

  /** Without a shard map every request goes to NODE_RPC_URL: one shard, one node. */
  static fromConfig(nodeRpcUrl: string, shardNodes: string | undefined, shardNodeUrls: string | undefined): ShardRouter {
    return new ShardRouter(parseShardMap(shardNodes, shardNodeUrls) ?? [[nodeRpcUrl]]);
  }

  get shardCount(): number {
    return this.shards.length;
  }

  shardOf(address: string): number {
    return shardOf(address, this.shards.length);
  }

  /** Nodes of the shard owning `address`, in failover order. */
  nodesFor(address: string): readonly string[] {
    return this.shards[this.shardOf(address)]!;
  }

  nodesOfShard(shard: number): readonly string[] {
    return this.shards[shard] ?? [];
  }
}
