import { hash as oneShotHash } from 'node:crypto';
import { SmallChunks } from './small-chunks.js';

/**
 * The hashing rules of the state tree, the part a light client must reimplement bit for bit.
 *
 *   keyHash      = SHA3-256(key)                       position of the key in the tree
 *   leafHash     = SHA3-256(0x00 || keyHash || SHA3-256(value))
 *   internalHash = SHA3-256(0x01 || leftHash || rightHash)
 *   empty        = 32 zero bytes                       (never hashed, never stored)
 *
 * The one-byte tags keep a leaf preimage from ever parsing as an internal-node preimage (both
 * are 65 bytes), so nobody can pass a leaf off as an internal node or the other way round.
 * The empty constant is not a SHA3 output anyone can find, so "absent" can't be faked either.
 */

export const HASH_BYTES = 32;
/** Key hashes are 256 bits, so no leaf is deeper than 256 and no internal node is at depth 256. */
export const KEY_BITS = 256;

const LEAF_TAG = 0x00;
const INTERNAL_TAG = 0x01;

/**
 * Root of the empty tree (32 zero bytes). Exported as its own array: a caller who mutates it can't
 * change what the tree itself treats as empty, because the tree tests emptiness by content.
 */
export const EMPTY_ROOT: Uint8Array = new Uint8Array(HASH_BYTES);

/** A fresh copy of the empty-subtree hash, for callers that hand the result onward. */
export function emptyHash(): Uint8Array {
  return new Uint8Array(HASH_BYTES);
}

export function isEmptyHash(hash: Uint8Array): boolean {
  if (hash.length !== HASH_BYTES) return false;
  for (let i = 0; i < HASH_BYTES; i++) if (hash[i] !== 0) return false;
  return true;
}

export function hashKey(key: Uint8Array): Uint8Array {
  return treeSha3(key);
}

export function hashValue(value: Uint8Array): Uint8Array {
  return treeSha3(value);
}

export function leafHash(keyHash: Uint8Array, valueHash: Uint8Array): Uint8Array {
  return taggedPairHash(LEAF_TAG, keyHash, valueHash);
}

export function internalHash(left: Uint8Array, right: Uint8Array): Uint8Array {
  return taggedPairHash(INTERNAL_TAG, left, right);
}

// One contiguous 65-byte preimage hashes measurably faster than sha3Concat's incremental updates,
// and node hashing is most of an update's cost. The scratch buffer is safe to share: the hash is
// synchronous and does not keep its input.
const scratch = new Uint8Array(1 + 2 * HASH_BYTES);
function taggedPairHash(tag: number, a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length !== HASH_BYTES || b.length !== HASH_BYTES) throw new RangeError('tree hashes are 32 bytes');
  scratch[0] = tag;
  scratch.set(a, 1);
  scratch.set(b, 1 + HASH_BYTES);
  return treeSha3(scratch);
}

/**
 * Tree hashes are views of chunks of 16: a chunk lives as long as any hash in it (a node in the
 * LRU can pin one), so at most 16× the bytes of the hashes that pin it.
 */
const hashChunks = new SmallChunks(16 * HASH_BYTES);

/**
 * SHA3-256 (node:crypto's one-shot call) into a view of a shared chunk. The hash comes back as a
 * 'binary' (latin1) string (one char per byte, exact) rather than a Buffer: a Buffer made in C++ is an
 * ArrayBuffer of its own with memory outside the JS heap, which the GC tracks one by one, and the
 * tree keeps tens of thousands of its hashes alive at a time (pending nodes, the LRU). With 50,000
 * hashes kept live, 65-byte inputs (/tmp micro-bench, 10:05 UTC): 2.3–3.0 µs a hash as a Buffer,
 * 0.95 µs as a string copied into a chunk. Nothing writes into a hash once made, so views of one
 * chunk never interfere.
 */
function treeSha3(data: Uint8Array): Uint8Array {
  const digest = oneShotHash('sha3-256', data, 'binary');
  const out = hashChunks.take(HASH_BYTES);
  for (let i = 0; i < HASH_BYTES; i++) out[i] = digest.charCodeAt(i);
  return out;
}

/** Bit `depth` of a key hash, most significant bit of byte 0 first; 0 = left, 1 = right. */
export function bitAt(keyHash: Uint8Array, depth: number): 0 | 1 {
  return (((keyHash[depth >>> 3] ?? 0) >>> (7 - (depth & 7))) & 1) as 0 | 1;
}

export function equalHash(a: Uint8Array, b: Uint8Array): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Whether `a` and `b` agree on their first `bits` bits. */
export function samePrefix(a: Uint8Array, b: Uint8Array, bits: number): boolean {
  const whole = bits >>> 3;
  for (let i = 0; i < whole; i++) if (a[i] !== b[i]) return false;
  const rest = bits & 7;
  if (rest === 0) return true;
  const mask = (0xff << (8 - rest)) & 0xff;
  return (((a[whole] ?? 0) ^ (b[whole] ?? 0)) & mask) === 0;
}

/**
 * Map key for a hash. Buffer's native hex is much faster than a JS loop, and lowercase hex sorts
 * in the same order as the bytes, which `update` relies on to sort changes by key hash.
 */
export function hashKeyString(hash: Uint8Array): string {
  return Buffer.from(hash.buffer, hash.byteOffset, hash.byteLength).toString('hex');
}
