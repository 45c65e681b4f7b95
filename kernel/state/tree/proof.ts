import { toHex0x, isHash0x, parseHex } from '../../codec/hex.js';
import { badRequest } from '../../errors.js';
import { HASH_BYTES, KEY_BITS, bitAt, emptyHash, equalHash, hashKey, hashValue, internalHash, isEmptyHash, leafHash, samePrefix } from './hashing.js';

/**
 * A membership or non-membership proof, in the JSON form it is served in (REST, light clients,
 * IBC). Every hash is `0x` + 64 lowercase hex.
 *
 *   {
 *     "leaf": null | { "keyHash": "0x…", "valueHash": "0x…" },
 *     "siblings": ["0x…", …]
 *   }
 *
 * `siblings[i]` is the hash of the sibling of the path node at depth i+1 (siblings[0] is the
 * other child of the root), 0 to 256 of them; an empty sibling is 32 zero bytes. Following the
 * key hash's bits from the root for `siblings.length` steps reaches:
 *   - `leaf` = that key's leaf: membership; `valueHash` must equal SHA3-256(value);
 *   - `leaf` = another key's leaf (same path prefix, different key hash): non-membership;
 *   - `leaf` = null, an empty subtree: non-membership.
 * Verification rehashes from that node up to the root with the rules in hashing.ts.
 */
export interface StateProofLeaf {
  readonly keyHash: string;
  readonly valueHash: string;
}

export interface StateProof {
  readonly leaf: StateProofLeaf | null;
  readonly siblings: readonly string[];
}

interface DecodedProof {
  readonly leaf: { readonly keyHash: Uint8Array; readonly valueHash: Uint8Array } | null;
  readonly siblings: readonly Uint8Array[];
}

export function toProofHash(hash: Uint8Array): string {
  return toHex0x(hash);
}

/**
 * Whether `proof` shows that under `root` the key `key` holds `value` (membership) or, when
 * `value` is null, that `key` is absent. Never throws: anything malformed is simply false.
 */
export function verifyProof(root: Uint8Array, key: Uint8Array, value: Uint8Array | null, proof: StateProof): boolean {
  if (!(root instanceof Uint8Array) || root.length !== HASH_BYTES || !(key instanceof Uint8Array)) return false;
  if (value !== null && !(value instanceof Uint8Array)) return false;
  const decoded = decodeProof(proof);
  if (typeof decoded === 'string') return false;
  const keyHash = hashKey(key);
  const { siblings } = decoded;
  const depth = siblings.length;
  // The prover stops at the first leaf or empty subtree; in a canonical tree that node's sibling
  // is never empty (a lone leaf would sit one level up, two empty children would be one empty
  // subtree). Rejecting such proofs leaves one valid proof per (root, key).
  if (depth > 0 && isEmptyHash(siblings[depth - 1]!)) return false;
  let current: Uint8Array;
  if (decoded.leaf === null) {
    if (value !== null) return false;
    current = emptyHash();
  } else {
    const leaf = decoded.leaf;
    // The leaf must be one that could sit on this key's path at this depth.
    if (!samePrefix(leaf.keyHash, keyHash, depth)) return false;
    if (value !== null) {
      if (!equalHash(leaf.keyHash, keyHash) || !equalHash(leaf.valueHash, hashValue(value))) return false;
    } else if (equalHash(leaf.keyHash, keyHash)) {
      return false;
    }
    current = leafHash(leaf.keyHash, leaf.valueHash);
  }
  for (let d = depth - 1; d >= 0; d--) {
    const sibling = siblings[d]!;
    current = bitAt(keyHash, d) === 0 ? internalHash(current, sibling) : internalHash(sibling, current);
  }
  return equalHash(current, root);
}

/** Checks an already-parsed JSON value is a well-formed proof; throws a 400 ChainError if not. */
export function parseStateProof(value: unknown): StateProof {
  const decoded = decodeProof(value);
  if (typeof decoded === 'string') throw badRequest(`malformed state proof: ${decoded}`);
  // Rebuilt rather than returned as is, so no extra properties or prototypes ride along.
  const source = value as StateProof;
  return {
    leaf: source.leaf === null ? null : { keyHash: source.leaf.keyHash, valueHash: source.leaf.valueHash },
    siblings: [...source.siblings],
  };
}

export function stateProofFromJson(text: string): StateProof {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw badRequest('malformed state proof: not JSON');
  }
  return parseStateProof(parsed);
}

export function stateProofToJson(proof: StateProof): string {
  return JSON.stringify(parseStateProof(proof));
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Exactly these keys: a proof with extra fields is not the documented shape, so it is refused. */
function hasExactKeys(value: Record<string, unknown>, keys: readonly string[]): boolean {
  const own = Object.keys(value);
  return own.length === keys.length && keys.every((k) => Object.prototype.hasOwnProperty.call(value, k));
}

function decodeHash(text: unknown): Uint8Array | null {
  // isHash0x demands lowercase, so each hash has one spelling and proofs compare byte for byte.
  return isHash0x(text) ? parseHex(text, HASH_BYTES) : null;
}

/** The proof's bytes, or a description of what is wrong with it. */
function decodeProof(value: unknown): DecodedProof | string {
  if (!isPlainObject(value)) return 'expected an object';
  if (!hasExactKeys(value, ['leaf', 'siblings'])) return 'expected exactly the fields "leaf" and "siblings"';
  const rawSiblings = value['siblings'];
  if (!Array.isArray(rawSiblings)) return '"siblings" must be an array';
  if (rawSiblings.length > KEY_BITS) return `more than ${KEY_BITS} siblings`;
  const siblings: Uint8Array[] = [];
  for (let i = 0; i < rawSiblings.length; i++) {
    const hash = decodeHash(rawSiblings[i]);
    if (hash === null) return `siblings[${i}] is not 0x + 64 lowercase hex`;
    siblings.push(hash);
  }
  const rawLeaf = value['leaf'];
  if (rawLeaf === null) return { leaf: null, siblings };
  if (!isPlainObject(rawLeaf) || !hasExactKeys(rawLeaf, ['keyHash', 'valueHash'])) {
    return '"leaf" must be null or an object with exactly "keyHash" and "valueHash"';
  }
  const keyHash = decodeHash(rawLeaf['keyHash']);
  const valueHash = decodeHash(rawLeaf['valueHash']);
  if (keyHash === null || valueHash === null) return 'leaf hashes must be 0x + 64 lowercase hex';
  return { leaf: { keyHash, valueHash }, siblings };
}
