import { canonicalJson } from '../codec/json.js';
import { isCanonicalJsonOf } from '../codec/canonical-match.js';
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
export function txIdentityOfText(text: string | undefined, body: Readonly<Record<string, unknown>>): TxIdentity {
  return text !== undefined && isCanonicalJsonOf(text, body) ? { canonical: text, hash: sha3Hex0x(text) } : txIdentity(body);
}

/** The id of a canonical text received from a peer or read from the store. */
export function hashOfCanonical(canonical: string): string {
  return sha3Hex0x(canonical);
}
