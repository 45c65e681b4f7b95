import { canonicalJson } from '../codec/json.js';
import { isCanonicalJsonOf, type LongStringInText } from '../codec/canonical-match.js';
import { sha3Hex0x } from '../crypto/hash.js';

/**
 * A transaction's id together with the exact text it hashes: decisions.md §12, SHA3-256 over the
 * canonical JSON of every field the sender set, signature included. Computed once per body and
 * carried with the transaction, because proposals, the WAL and the store all move that text, and
 * re-deriving it per hop cost more than the rest of a transfer's handling.
 */
export interface TxIdentity {
  readonly canonical: string;
  readonly hash: string;
}

export function txIdentity(body: Readonly<Record<string, unknown>>): TxIdentity {
  const canonical = canonicalJson(body);
  return { canonical, hash: sha3Hex0x(canonical) };
}

/**
 * The identity of a body parsed from `text`: the text itself when it already is the canonical
 * form (what clients and peers send), so the 10 KB body is not serialised again; otherwise the
 * canonical form built from the body.
 */
export function txIdentityOfText(text: string | undefined, body: Record<string, unknown>): TxIdentity {
  return text !== undefined && isCanonicalTextOf(text, body) ? { canonical: text, hash: hashOfCanonical(text) } : txIdentity(body);
}

/**
 * Whether `text` is the canonical form of the `body` parsed from it. When it is, the body's long
 * strings (signature, public key: 10.5 KB of a transfer's 21) are replaced by equal slices of the
 * text, which the transaction keeps anyway: it then holds its text once instead of twice, and what
 * each young-generation collection copies, the pending transactions alive at that moment, is
 * about halved.
 */
export function isCanonicalTextOf(text: string, body: Record<string, unknown>): boolean {
  const longStrings: LongStringInText[] = [];
  if (!isCanonicalJsonOf(text, body, longStrings)) return false;
  for (const s of longStrings) s.holder[s.key] = text.substring(s.start, s.end);
  return true;
}

/** The id of a canonical text received from a peer or read from the store. */
export function hashOfCanonical(canonical: string): string {
  return sha3Hex0x(canonical);
}
