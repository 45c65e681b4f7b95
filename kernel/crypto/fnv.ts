import { utf8Bytes } from '../codec/utf8.js';

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** 32-bit FNV-1a over the UTF-8 bytes of `text`. Shard of an address = fnv1a32(address) mod n_shards. */
export function fnv1a32(text: string): number {
  let h = FNV_OFFSET;
  for (const b of utf8Bytes(text)) {
    h ^= b;
    h = Math.imul(h, FNV_PRIME) >>> 0;
  }
  return h >>> 0;
}

export function shardOf(address: string, nShards: number): number {
  if (!Number.isInteger(nShards) || nShards < 1) throw new Error(`n_shards must be a positive integer, got ${nShards}`);
  return fnv1a32(address) % nShards;
}
