import { Type, type TObject, type TProperties } from '@sinclair/typebox';
import { defineRoute, type DeclaredRoute } from '../../kernel/sdk.js';
import { CROSS_SHARD_PATHS, EVERY_SHARD_READS } from './cross-shard.js';

/** decisions.md §73's `?shard=`, as the gateway documents and parses it; shardQuery (cross-shard.ts) holds it below n_shards. */
export const ShardQuery = Type.Optional(Type.Integer({ minimum: 0, description: 'the shard to ask (decisions.md §73): an integer below n_shards, default 0; a read that names an address goes to the shard that owns it' }));

/** The queue's `?shard=` (decisions.md §77): without it the gateway merges every shard's list. */
export const QueueShardQuery = Type.Optional(Type.Integer({ minimum: 0, description: 'the shard whose locks to list (decisions.md §77); without it every shard\'s, merged in shard order, total their sum' }));

/** Path parameters that hold an address (an account, a `.node`, a `.vault`, an owner): the owner's shard answers. */
const ADDRESS_PARAM = /:(address|addr|account|owner|validator|vault)\b/;

/**
 * Whether the gateway sends a forwarded read to the shard `?shard=` names (decisions.md §73: reads
 * that name no address, the cross-shard queue among them). Not the lookups asked of every shard,
 * not a path naming an address (its owner's shard answers).
 */
export function takesShardQuery(path: string): boolean {
  return !EVERY_SHARD_READS.has(path) && !ADDRESS_PARAM.test(path);
}

/**
 * A node route's declaration as the gateway serves it: the node's parameters plus `shard`, so the
 * gateway's API reference says what it accepts, and a `shard` that is no integer is refused with
 * the declaration's 400 before any node is asked.
 */
export function withShardQuery(route: DeclaredRoute): DeclaredRoute {
  const query = route.query as TObject | undefined;
  const { type: _type, properties, required: _required, ...options } = (query ?? {}) as Partial<TObject>;
  const props: TProperties = { ...(properties ?? {}), shard: route.path === CROSS_SHARD_PATHS.queue ? QueueShardQuery : ShardQuery };
  return defineRoute({ ...route, query: Type.Object(props, options) }) as unknown as DeclaredRoute;
}
