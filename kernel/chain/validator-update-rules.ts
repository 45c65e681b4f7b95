import { addressKind } from '../crypto/address.js';
import { ML_DSA65_PUBLIC_KEY_BYTES } from '../crypto/provider.js';
import type { Validator } from '../consensus/types.js';
import type { ValidatorUpdate } from '../context/contexts.js';

/**
 * The most validators a set may hold. Every validator's vote costs every other an ML-DSA-65
 * verification per step, and the commit certificate carries one 3.3 KB signature per signer, so
 * the bound keeps a height's work and a block's certificate finite.
 */
export const MAX_VALIDATORS = 150;

const KEY_HEX = new RegExp(`^[0-9a-f]{${ML_DSA65_PUBLIC_KEY_BYTES * 2}}$`);

/** Why a batch of updates is malformed (a bad address, key or power, an address twice), or null. */
export function validatorUpdateProblem(updates: readonly ValidatorUpdate[]): string | null {
  const seen = new Set<string>();
  for (const u of updates) {
    if (addressKind(u.address) !== 'node') return `validator update for ${JSON.stringify(u.address)}: a validator is a .node address`;
    if (seen.has(u.address)) return `validator update names ${u.address} twice`;
    seen.add(u.address);
    if (typeof u.power !== 'bigint' || u.power < 0n) return `validator update for ${u.address}: power must be a non-negative integer`;
    if (u.power > 0n && (typeof u.public_key !== 'string' || !KEY_HEX.test(u.public_key))) return `validator update for ${u.address}: public_key must be ${ML_DSA65_PUBLIC_KEY_BYTES * 2} lowercase hex characters (ML-DSA-65)`;
  }
  return null;
}

/** Why the set the updates would leave may not be (empty, too large), or null. */
export function resultingSetProblem(current: readonly Validator[], updates: readonly ValidatorUpdate[]): string | null {
  const next = new Map(current.map((v) => [v.address, v.power] as const));
  for (const u of updates) {
    if (u.power === 0n) next.delete(u.address);
    else next.set(u.address, u.power);
  }
  if (next.size === 0) return 'validator updates would leave the set empty, and nobody could sign a block again';
  if (next.size > MAX_VALIDATORS) return `validator updates would leave ${next.size} validators, more than ${MAX_VALIDATORS}`;
  return null;
}
