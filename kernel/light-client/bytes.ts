import { sha3_256 } from '@noble/hashes/sha3.js';
import { compareBytes } from '../codec/bytes.js';
import { utf8Bytes } from '../codec/utf8.js';

/*
 * Byte helpers of the light client. Pure JavaScript on purpose (no Buffer, no node:crypto): the
 * module runs in a browser bundle as it runs in consensus code, and gives the same bytes in both.
 */

export const HASH_BYTES = 32;
const HEX_RE = /^[0-9a-f]*$/;

export function sha3(data: Uint8Array | string): Uint8Array {
  return sha3_256(typeof data === 'string' ? utf8Bytes(data) : data);
}

/** `0x` + 64 lowercase hex of SHA3-256 (decisions.md §2). */
export function sha3Hex0x(data: Uint8Array | string): string {
  return '0x' + hexOf(sha3(data));
}

const HEX_DIGITS = '0123456789abcdef';

export function hexOf(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    out += HEX_DIGITS[b >>> 4]! + HEX_DIGITS[b & 15]!;
  }
  return out;
}

/** Lowercase hex (optionally `0x`-prefixed) to bytes; null on any defect or a length other than `expectedBytes`. */
export function bytesOfHex(text: string, expectedBytes?: number): Uint8Array | null {
  const body = text.startsWith('0x') ? text.slice(2) : text;
  if (body.length % 2 !== 0 || !HEX_RE.test(body)) return null;
  if (expectedBytes !== undefined && body.length !== expectedBytes * 2) return null;
  const out = new Uint8Array(body.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(body.slice(2 * i, 2 * i + 2), 16);
  return out;
}

/** `0x` + 64 lowercase hex: the one spelling of a hash or root. */
export function isHash0x(text: unknown): text is string {
  return typeof text === 'string' && /^0x[0-9a-f]{64}$/.test(text);
}

export { bytesEqual as equalBytes, compareBytes } from '../codec/bytes.js';

/** Address order of validator sets: byte-wise over UTF-8 (decisions.md §84), not UTF-16 string order. */
export function compareUtf8(a: string, b: string): number {
  return a === b ? 0 : compareBytes(utf8Bytes(a), utf8Bytes(b));
}
