import { ConfigError } from './env.js';

/**
 * The shard map of a process that talks to every shard (the gateway, `chain relay-shards`):
 * which node URLs serve which shard, from `CHAIN_SHARD_NODES` ("0=http://a|http://a2,1=http://b";
 * a repeated shard adds failover nodes) or else `SHARD_NODE_URLS` (positional
 * "urlShard0,urlShard1"; "a|b" lists failover nodes of one shard). Index s of the answer lists
 * shard s's nodes in failover order; undefined when neither variable is set. One parser, so both
 * processes read the same text the same way.
 */
export function parseShardMap(shardNodes: string | undefined, shardNodeUrls: string | undefined): string[][] | undefined {
  if (shardNodes !== undefined) return parsePairs(shardNodes);
  if (shardNodeUrls !== undefined) return parsePositional(shardNodeUrls);
  return undefined;
}

function checkUrl(variable: string, url: string): string {
  if (!/^https?:\/\/\S+$/.test(url)) throw new ConfigError(`${variable}: "${url}" is not an http(s) URL`);
  return url.replace(/\/+$/, '');
}

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

function parsePositional(text: string): string[][] {
  const out = text.split(',').map((s) => s.trim()).filter(Boolean).map((entry) => entry.split('|').map((u) => checkUrl('SHARD_NODE_URLS', u.trim())));
  if (out.length === 0) throw new ConfigError('SHARD_NODE_URLS: no URLs');
  return out;
}
