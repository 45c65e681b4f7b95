import { toHex } from '../codec/hex.js';
import { utf8Bytes } from '../codec/utf8.js';

/** Lexicographic byte order; shorter prefix first. */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const d = (a[i] as number) - (b[i] as number);
    if (d !== 0) return d;
  }
  return a.length - b.length;
}

/**
 * Canonical address order is byte-wise over UTF-8, not JavaScript's UTF-16 string order: the two
 * differ for characters above U+FFFF, and every implementation must agree on the proposer.
 */
export function compareAddresses(a: string, b: string): number {
  if (a === b) return 0;
  return compareBytes(utf8Bytes(a), utf8Bytes(b));
}

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Map key for a vote target: lowercase hex of the block hash, or the literal `nil`. */
export type HashKey = string;
export const NIL_KEY: HashKey = 'nil';

export function hashKey(hash: Uint8Array | null): HashKey {
  return hash === null ? NIL_KEY : toHex(hash);
}

export function isSafeNonNegative(n: unknown): n is number {
  return typeof n === 'number' && Number.isSafeInteger(n) && n >= 0;
}
