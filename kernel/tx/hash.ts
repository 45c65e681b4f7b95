import { canonicalJson } from '../codec/json.js';
import { sha3Hex0x } from '../crypto/hash.js';

/** decisions.md §12: SHA3-256 over the canonical JSON of every field the sender set, signature included. */
export function txHash(body: Readonly<Record<string, unknown>>): string {
  return sha3Hex0x(canonicalJson(body));
}
