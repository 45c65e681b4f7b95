import { unauthorized } from '../errors.js';
import { parseHex } from '../codec/hex.js';
import { deriveAddress } from '../crypto/address.js';
import { ML_DSA65_PUBLIC_KEY_BYTES } from '../crypto/provider.js';
import type { PresentedKey } from '../state/key-set.js';

/**
 * Parsed keys by the transaction body they came with: admission parses and hashes the 1 952-byte
 * key once, and the block that carries the same transaction object reuses it.
 */
const memo = new WeakMap<object, PresentedKey>();

/** The public key a body presents, parsed (401 when malformed) with the address it derives. */
export function presentedKey(body: object, hex: string): PresentedKey {
  const known = memo.get(body);
  if (known !== undefined && known.hex === hex) return known;
  const bytes = parseHex(hex, ML_DSA65_PUBLIC_KEY_BYTES);
  if (!bytes) throw unauthorized(`public_key must be ${ML_DSA65_PUBLIC_KEY_BYTES * 2} hex characters (ML-DSA-65)`);
  // Lower-cased only when needed: it copies the 3.9 KB of hex.
  const lower = /[A-F]/.test(hex) ? hex.toLowerCase() : hex;
  const key: PresentedKey = { hex: lower, bytes, derived: deriveAddress(bytes) };
  memo.set(body, key);
  return key;
}
