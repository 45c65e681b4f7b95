import { errorMessageOf, isObject, type NodeAnswer } from './node-client.js';
import type { NodeReads } from './node-reads.js';
import type { ShardRouter } from './shard-router.js';

export const SHARDS_PATH = '/api/v1/shards';

/**
 * GET /api/v1/shards through the gateway (part 1: per-shard heights and roots). A node lists only
 * the shard it serves, so with a shard map the gateway asks a node of every shard and lists each
 * shard as its own nodes report it; a shard none of whose nodes answers is listed with
 * `reachable: false` and the reason, so one dead shard does not hide the others. Without a map
 * there is one node to ask, and its answer is passed through as it is.
 */
export async function shardsOverview(reads: NodeReads, router: ShardRouter): Promise<NodeAnswer> {
  if (router.shardCount === 1) return reads.get(SHARDS_PATH);
  const shards = await Promise.all(Array.from({ length: router.shardCount }, (_, shard) => shardEntry(reads, shard)));
  return { status: 200, body: { n_shards: router.shardCount, shards } };
}

export async function shardEntry(reads: NodeReads, shard: number): Promise<Record<string, unknown>> {
  let answer: NodeAnswer;
  try {
    answer = await reads.getOnShard(shard, SHARDS_PATH);
  } catch (e: unknown) {
    return { shard, reachable: false, error: e instanceof Error ? e.message : String(e) };
  }
  if (answer.status !== 200) return { shard, reachable: false, error: errorMessageOf(answer) };
  const listed = isObject(answer.body) && Array.isArray(answer.body.shards) ? answer.body.shards.filter(isObject) : [];
  const own = listed.find((e) => e.shard === shard);
  // A node mapped to this shard that serves another: the map is wrong, and saying so beats a wrong height.
  if (!own) return { shard, reachable: true, error: `the node mapped to shard ${shard} does not serve it (CHAIN_SHARD_NODES / SHARD_NODE_URLS vs its CHAIN_SHARD_ID)` };
  return { ...own, reachable: true };
}
