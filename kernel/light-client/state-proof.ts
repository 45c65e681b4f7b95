import { HASH_BYTES, bytesOfHex, equalBytes, isHash0x, sha3 } from './bytes.js';

/**
 * Membership and non-membership proofs of the state tree (kernel/state/tree/, decisions.md §84),
 * verified from the proof alone. This is the one verifier: the tree re-exports it, and the SDK,
 * the browser module and the IBC and cross-shard plugins call it.
 *
 *   keyHash      = SHA3-256(UTF-8 key), read most significant bit first (0 = left)
 *   leaf         = SHA3-256(0x00 ‖ keyHash ‖ SHA3-256(value))
 *   internal     = SHA3-256(0x01 ‖ left ‖ right)
 *   empty        = 32 zero bytes
 *
 * Served as `{"leaf": null | {"keyHash", "valueHash"}, "siblings": ["0x…", …]}`: `siblings[i]` is
 * the sibling of the path node at depth i + 1, root side first (0 to 256 of them). Following the
 * key hash's bits for `siblings.length` steps reaches the key's leaf (membership), another key's
 * leaf on the same path prefix, or an empty subtree (`leaf` null): both absence.
 */
export interface StateProofLeaf {
  readonly keyHash: string;
  readonly valueHash: string;
}

export interface StateProof {
  readonly leaf: StateProofLeaf | null;
  readonly siblings: readonly string[];
}

export interface DecodedStateProof {
  readonly leaf: { readonly keyHash: Uint8Array; readonly valueHash: Uint8Array } | null;
  readonly siblings: readonly Uint8Array[];
}

/** Key hashes are 256 bits: no leaf is deeper than 256. */
export const KEY_BITS = 256;
const LEAF_TAG = 0x00;
const INTERNAL_TAG = 0x01;

function taggedPairHash(tag: number, a: Uint8Array, b: Uint8Array): Uint8Array {
  const preimage = new Uint8Array(1 + 2 * HASH_BYTES);
  preimage[0] = tag;
  preimage.set(a, 1);
  preimage.set(b, 1 + HASH_BYTES);
  return sha3(preimage);
}

function bitAt(keyHash: Uint8Array, depth: number): 0 | 1 {
  return (((keyHash[depth >>> 3] ?? 0) >>> (7 - (depth & 7))) & 1) as 0 | 1;
}

function samePrefix(a: Uint8Array, b: Uint8Array, bits: number): boolean {
  for (let d = 0; d < bits; d++) if (bitAt(a, d) !== bitAt(b, d)) return false;
  return true;
}

function isEmpty(hash: Uint8Array): boolean {
  return hash.every((b) => b === 0);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Exactly these keys: a proof with extra fields is not the documented shape. */
function hasExactKeys(value: Record<string, unknown>, keys: readonly string[]): boolean {
  const own = Object.keys(value);
  return own.length === keys.length && keys.every((k) => Object.prototype.hasOwnProperty.call(value, k));
}

function decodeHash(text: unknown): Uint8Array | null {
  // Lowercase only, so each hash has one spelling and proofs compare byte for byte.
  return isHash0x(text) ? bytesOfHex(text, HASH_BYTES) : null;
}

/** The proof's bytes, or what is wrong with its shape. */
export function decodeStateProof(value: unknown): DecodedStateProof | string {
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
  if (!isPlainObject(rawLeaf) || !hasExactKeys(rawLeaf, ['keyHash', 'valueHash'])) return '"leaf" must be null or an object with exactly "keyHash" and "valueHash"';
  const keyHash = decodeHash(rawLeaf['keyHash']);
  const valueHash = decodeHash(rawLeaf['valueHash']);
  if (keyHash === null || valueHash === null) return 'leaf hashes must be 0x + 64 lowercase hex';
  return { leaf: { keyHash, valueHash }, siblings };
}

/**
 * Whether `proof` shows that under `root` the key `key` holds `value` (membership) or, when
 * `value` is null, that `key` is absent. Never throws: anything malformed is simply false.
 */
export function verifyStateProof(root: Uint8Array, key: Uint8Array, value: Uint8Array | null, proof: unknown): boolean {
  if (!(root instanceof Uint8Array) || root.length !== HASH_BYTES || !(key instanceof Uint8Array)) return false;
  if (value !== null && !(value instanceof Uint8Array)) return false;
  const decoded = decodeStateProof(proof);
  if (typeof decoded === 'string') return false;
  const keyHash = sha3(key);
  const { siblings } = decoded;
  const depth = siblings.length;
  // The prover stops at the first leaf or empty subtree; in a canonical tree that node's sibling
  // is never empty (a lone leaf would sit one level up, two empty children would be one empty
  // subtree). Refusing such proofs leaves one valid proof per (root, key).
  if (depth > 0 && isEmpty(siblings[depth - 1]!)) return false;
  let current: Uint8Array;
  if (decoded.leaf === null) {
    if (value !== null) return false;
    current = new Uint8Array(HASH_BYTES);
  } else {
    const leaf = decoded.leaf;
    // The leaf must be one that could sit on this key's path at this depth.
    if (!samePrefix(leaf.keyHash, keyHash, depth)) return false;
    if (value !== null) {
      if (!equalBytes(leaf.keyHash, keyHash) || !equalBytes(leaf.valueHash, sha3(value))) return false;
    } else if (equalBytes(leaf.keyHash, keyHash)) {
      return false;
    }
    current = taggedPairHash(LEAF_TAG, leaf.keyHash, leaf.valueHash);
  }
  for (let d = depth - 1; d >= 0; d--) {
    const sibling = siblings[d]!;
    current = bitAt(keyHash, d) === 0 ? taggedPairHash(INTERNAL_TAG, current, sibling) : taggedPairHash(INTERNAL_TAG, sibling, current);
  }
  return equalBytes(current, root);
}
