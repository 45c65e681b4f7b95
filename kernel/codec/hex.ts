import { bytesToHex, hexToBytes } from '@noble/hashes/utils.js';

const HEX_RE = /^[0-9a-f]*$/;

/** Lowercase hex without `0x` (signatures and public keys on the wire, decisions.md §2). */
export function toHex(bytes: Uint8Array): string {
  return bytesToHex(bytes);
}

/** `0x`-prefixed lowercase hex (hashes and roots on the wire). */
export function toHex0x(bytes: Uint8Array): string {
  return '0x' + bytesToHex(bytes);
}

/** Strict decode: lowercase or uppercase hex, even length, optional `0x`. Returns null on any defect. */
export function parseHex(text: string, expectedBytes?: number): Uint8Array | null {
  const body = text.startsWith('0x') ? text.slice(2) : text;
  if (body.length % 2 !== 0) return null;
  const lower = body.toLowerCase();
  if (!HEX_RE.test(lower)) return null;
  if (expectedBytes !== undefined && lower.length !== expectedBytes * 2) return null;
  return hexToBytes(lower);
}

export function isHash0x(text: unknown): text is string {
  return typeof text === 'string' && /^0x[0-9a-f]{64}$/.test(text);
}
