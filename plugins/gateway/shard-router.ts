import { ConfigError, shardOf } from '../../kernel/sdk.js';

/**
 * Which node(s) serve which shard. A transaction goes to a node of its sender's shard
 * (FNV-1a(from) mod n, the rule every node uses for ownership), so the node that receives it is
 * one that can execute it. Several nodes per shard are tried in order (failover).
 */
export class ShardRouter {
  private constructor(private readonly shards: ReadonlyArray<readonly string[]>) {}

  /** Without a shard map every request goes to NODE_RPC_URL: one shard, one node. */
  static fromConfig(nodeRpcUrl: string, shardNodes: string | undefined, shardNodeUrls: string | undefined): ShardRouter {
    if (shardNodes !== undefined) return new ShardRouter(parsePairs(shardNodes));
    if (shardNodeUrls !== undefined) return new ShardRouter(parsePositional(shardNodeUrls));
    return new ShardRouter([[nodeRpcUrl]]);
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

function checkUrl(variable: string, url: string): string {
  if (!/^https?:\/\/\S+$/.test(url)) throw new ConfigError(`${variable}: "${url}" is not an http(s) URL`);
  return url.replace(/\/+$/, '');
}

/** "0=http://a,1=http://b,0=http://a2" — a repeated shard adds a failover node. */
function parsePairs(text: string): string[][] {
  const byShard = new Map<number, string[]>();
  for (const item of text.split(',').map((s) => s.trim()).filter(Boolean)) {
    const m = /^(\d+)\s*=\s*(.+)$/.exec(item);
    if (!m) throw new ConfigError(`CHAIN_SHARD_NODES: "${item}" is not shard=url`);
    const shard = Number(m[1]);
    const list = byShard.get(shard) ?? [];
    for (const url of m[2]!.split('|')) list.push(checkUrl('CHAIN_SHARD_NODES', url.trim()));
    byShard.set(shard, list);
  }
  const n = byShard.size;
  if (n === 0) throw new ConfigError('CHAIN_SHARD_NODES: no shard=url pairs');
  const out: string[][] = [];
  for (let s = 0; s < n; s++) {
    const list = byShard.get(s);
    // Shards are numbered 0..n-1 by the routing rule; a gap would send some senders nowhere.
    if (!list) throw new ConfigError(`CHAIN_SHARD_NODES: shard ${s} has no node (shards must be numbered 0..${n - 1})`);
    out.push(list);
  }
  return out;
}

/** "urlShard0,urlShard1"; "a|b" lists failover nodes of one shard. */
function parsePositional(text: string): string[][] {
  const out = text.split(',').map((s) => s.trim()).filter(Boolean).map((entry) => entry.split('|').map((u) => checkUrl('SHARD_NODE_URLS', u.trim())));
  if (out.length === 0) throw new ConfigError('SHARD_NODE_URLS: no URLs');
  return out;
}
