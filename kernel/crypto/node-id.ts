import { toHex } from '../codec/hex.js';
import { sha3 } from './hash.js';

export const NODE_ID_BYTES = 20;

/**
 * A node's id (decisions.md §82): the first 20 bytes of SHA3-256(consensus public key), 40
 * lowercase hex. Short enough for logs and peer lists, long enough (160 bits) that nobody can grind
 * a second key onto an existing id. The P2P handshake, `p2p_endpoint`s and `/status` use it.
 */
export function nodeIdOf(publicKey: Uint8Array): string {
  return toHex(sha3(publicKey).subarray(0, NODE_ID_BYTES));
}

export function isNodeId(text: string): boolean {
  return /^[0-9a-f]{40}$/.test(text);
}
