import { sha3Hex0x } from '../../kernel/sdk.js';

/**
 * Main keys that rotation or recovery removed, kept in the identity plugin's store: other
 * plugins read them (`ctx.read('identity')`) to end what those keys authorised. The session
 * plugin ends every session key a removed key granted, for good: a key added back later does not
 * revive them, because the record says from which height the key stopped counting.
 * - `removed/<account>/<key id>`: one key, removed by a rotation;
 * - `reset/<account>`: every key the account had, replaced by a completed recovery (the derived
 *   key of an address need not be known to be ended this way).
 */
export interface RemovedKey {
  readonly height: number;
}

export const IDENTITY_NAMESPACE = 'identity';

/** Short, fixed-length id of a public key for state keys (a key's hex is 3 904 characters). */
export function keyId(publicKeyHex: string): string {
  return sha3Hex0x(publicKeyHex).slice(2, 34);
}

export function removedKeyPath(account: string, publicKeyHex: string): string {
  return `removed/${account}/${keyId(publicKeyHex)}`;
}

export function resetPath(account: string): string {
  return `reset/${account}`;
}
