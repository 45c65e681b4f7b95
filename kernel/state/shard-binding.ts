import { utf8Bytes } from '../codec/utf8.js';
import type { StateOverlay, StateSource } from './overlay.js';

/** State key binding a sharded chain to its shard (decisions.md §71); absent on a one-shard network. */
export const SHARD_BINDING_KEY = 'kernel/shard';

export interface ShardBinding {
  readonly shard: number;
  readonly n_shards: number;
}

/** Written once, at genesis, by a shard of a sharded network: the shard is part of every state root after it. */
export function writeShardBinding(overlay: StateOverlay, b: ShardBinding): void {
  overlay.set(SHARD_BINDING_KEY, utf8Bytes(JSON.stringify({ shard: b.shard, n_shards: b.n_shards })));
}

/** The shard a chain's state was made for; null for a one-shard network. */
export async function readShardBinding(state: StateSource): Promise<ShardBinding | null> {
  const raw = await state.get(SHARD_BINDING_KEY);
  if (raw === undefined) return null;
  const v = JSON.parse(new TextDecoder().decode(raw)) as ShardBinding;
  return { shard: v.shard, n_shards: v.n_shards };
}
