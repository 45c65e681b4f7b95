import { toHex } from '../codec/hex.js';
import { compareBytes } from '../codec/bytes.js';
import { utf8Bytes } from '../codec/utf8.js';

export { bytesEqual, compareBytes } from '../codec/bytes.js';

/**
 * Canonical address order is byte-wise over UTF-8, not JavaScript's UTF-16 string order: the two
 * differ for characters above U+FFFF, and every implementation must agree on the proposer.
 */
export function compareAddresses(a: string, b: string): number {
  if (a === b) return 0;
  return compareBytes(utf8Bytes(a), utf8Bytes(b));
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
