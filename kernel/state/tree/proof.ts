import { toHex0x } from '../../codec/hex.js';
import { badRequest } from '../../errors.js';
import { decodeStateProof, verifyStateProof, type StateProof } from '../../light-client/state-proof.js';

/*
 * The proof's JSON form and its verifier are the light client's (kernel/light-client/
 * state-proof.ts): one verifier for the tree's tests, the SDK, the browser module, IBC and
 * cross-shard transfers. The tree adds the node-side parsing that answers 400.
 */
export type { StateProof, StateProofLeaf } from '../../light-client/state-proof.js';

export function toProofHash(hash: Uint8Array): string {
  return toHex0x(hash);
}

/**
 * Whether `proof` shows that under `root` the key `key` holds `value` (membership) or, when
 * `value` is null, that `key` is absent. Never throws: anything malformed is simply false.
 */
export function verifyProof(root: Uint8Array, key: Uint8Array, value: Uint8Array | null, proof: StateProof): boolean {
  return verifyStateProof(root, key, value, proof);
}

/** Checks an already-parsed JSON value is a well-formed proof; throws a 400 ChainError if not. */
export function parseStateProof(value: unknown): StateProof {
  const decoded = decodeStateProof(value);
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
