import { sha3, sha3Concat } from '../../crypto/hash.js';
import { WriteBatch } from '../kv.js';
import type { MemoryKv } from './memory-kv.js';
import type { StateChange, StateTree } from './state-tree.js';

/** Shared by the tree's tests: small helpers and an independent model of the tree's root. */

export const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);

export const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');

/** Runs one update, applies its batch to the store and returns the new root and batch size. */
export async function commit(tree: StateTree, kv: MemoryKv, root: Uint8Array, changes: ReadonlyArray<StateChange>): Promise<{ root: Uint8Array; puts: number }> {
  const batch = new WriteBatch();
  const next = await tree.update(root, changes, batch);
  kv.apply(batch);
  return { root: next, puts: batch.ops.length };
}

/**
 * The root computed straight from the definition over a whole key set, sharing no code with the
 * tree: the tree must agree with it whatever sequence of updates led to the set.
 */
export function modelRoot(state: ReadonlyMap<string, Uint8Array>): Uint8Array {
  const leaves = [...state.entries()].map(([key, value]) => {
    const keyHash = sha3(utf8(key));
    return { keyHash, hash: sha3Concat(Uint8Array.of(0), keyHash, sha3(value)) };
  });
  const bit = (h: Uint8Array, d: number): number => ((h[d >> 3] ?? 0) >> (7 - (d % 8))) & 1;
  const build = (items: typeof leaves, depth: number): Uint8Array => {
    if (items.length === 0) return new Uint8Array(32);
    if (items.length === 1) return items[0]!.hash;
    const left = items.filter((x) => bit(x.keyHash, depth) === 0);
    const right = items.filter((x) => bit(x.keyHash, depth) === 1);
    return sha3Concat(Uint8Array.of(1), build(left, depth + 1), build(right, depth + 1));
  };
  return build(leaves, 0);
}

export function toChanges(state: ReadonlyMap<string, Uint8Array | null>): StateChange[] {
  return [...state.entries()].map(([k, v]) => [utf8(k), v] as const);
}
