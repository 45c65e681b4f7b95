import { createHash } from 'node:crypto';
import { sha256 as nobleSha256 } from '@noble/hashes/sha2.js';
import { utf8ToBytes } from '@noble/hashes/utils.js';

export type Hash32 = Uint8Array;

/*
 * SHA3-256 through OpenSSL (node:crypto): about 2.4x faster than the pure-JS implementation on
 * the state tree's hot path, and byte-identical (crypto.test.ts checks both against each other).
 */
function sha3Raw(parts: ReadonlyArray<Uint8Array | string>): Hash32 {
  const h = createHash('sha3-256');
  // Strings go to OpenSSL as UTF-8 directly, without an intermediate copy in JavaScript.
  for (const p of parts) h.update(p);
  const d = h.digest();
  return new Uint8Array(d.buffer, d.byteOffset, d.byteLength);
}

export function sha3(data: Uint8Array | string): Hash32 {
  return sha3Raw([data]);
}

export function sha256(data: Uint8Array | string): Hash32 {
  return nobleSha256(typeof data === 'string' ? utf8ToBytes(data) : data);
}

/** `0x` + 64 lowercase hex: the wire form of every hash and root (decisions.md §2). */
export function sha3Hex0x(data: Uint8Array | string): string {
  return '0x' + createHash('sha3-256').update(data).digest('hex');
}

/** SHA3-256 over the concatenation of parts, without copying them into one buffer first. */
export function sha3Concat(...parts: Uint8Array[]): Hash32 {
  return sha3Raw(parts);
}
