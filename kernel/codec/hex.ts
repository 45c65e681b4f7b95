/*
 * Hex through Node's native codec: signatures (3309 bytes) and public keys (1952 bytes) are
 * decoded on every admission and encoded on every read, and a JavaScript loop over them showed in
 * the node's profile under load.
 */

/** Lowercase hex without `0x` (signatures and public keys on the wire, decisions.md §2). */
export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

/** `0x`-prefixed lowercase hex (hashes and roots on the wire). */
export function toHex0x(bytes: Uint8Array): string {
  return '0x' + toHex(bytes);
}

/** Strict decode: lowercase or uppercase hex, even length, optional `0x`. Returns null on any defect. */
export function parseHex(text: string, expectedBytes?: number): Uint8Array | null {
  const body = text.startsWith('0x') ? text.slice(2) : text;
  if (body.length % 2 !== 0) return null;
  if (expectedBytes !== undefined && body.length !== expectedBytes * 2) return null;
  // Buffer's decoder stops at the first pair that is not hex, so a short result means a defect.
  const buf = Buffer.from(body, 'hex');
  if (buf.length * 2 !== body.length) return null;
  // A plain Uint8Array (not a Buffer) so callers compare and serialise it like any other bytes.
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.length);
}

export function isHash0x(text: unknown): text is string {
  return typeof text === 'string' && /^0x[0-9a-f]{64}$/.test(text);
}
