import type { StateOverlay, StateSource } from '../state/overlay.js';
import { bigintCodec } from '../state/record-codec.js';
import { AUTH_NAMESPACE } from '../state/key-set.js';

/**
 * The operation nonce of decisions.md §6 and §8: a millisecond timestamp strictly greater than the
 * last one accepted from the actor. Kept apart from the account's sequential transfer nonce, so
 * operations and transfers of one account never block each other.
 */
function key(actor: string): string {
  return `${AUTH_NAMESPACE}/nonce/${actor}`;
}

export async function lastOperationNonce(source: StateSource, actor: string): Promise<bigint> {
  const raw = await source.get(key(actor));
  return raw === undefined ? 0n : bigintCodec.decode(raw);
}

export function recordOperationNonce(overlay: StateOverlay, actor: string, nonce: bigint): void {
  overlay.set(key(actor), bigintCodec.encode(nonce));
}
