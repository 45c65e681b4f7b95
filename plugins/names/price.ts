import { badRequest, type ChainError } from '../../kernel/sdk.js';

/** decisions.md §38: the governance parameter every registered name's price is a multiple of. */
export const NAME_PRICE_PARAM = 'name_price_base';
export const NAME_PRICE_DEFAULT = 10_000_000n;
export const NAME_PRICE_MAX = 1_000_000_000_000n;

/** decisions.md §32: a bare label of 1–32 characters of a-z, 0-9 and -, not starting or ending with -. */
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])?$/;

/** The kinds registered under a chosen label (§38); each is its own namespace. */
export type NameKind = 'human' | 'agent' | 'vault' | 'app';

/**
 * Labels of exactly this many hex characters would shadow generated addresses (§38): 15 for a
 * key-derived `.human`, 10 for a deployed contract's `.app`.
 */
const SHADOWED_HEX: Partial<Record<NameKind, number>> = { human: 15, app: 10 };

/** Why `label` cannot be registered as a `kind` name (400 naming the rule), or undefined. */
export function labelProblem(label: string, kind: NameKind): ChainError | undefined {
  if (!LABEL.test(label)) return badRequest(`name "${label}" must be 1 to 32 characters of a-z, 0-9 and -, not starting or ending with - (decisions.md §32)`);
  const hex = SHADOWED_HEX[kind];
  if (hex !== undefined && label.length === hex && /^[0-9a-f]+$/.test(label)) {
    return badRequest(`name "${label}" is ${hex} hex characters, which would shadow a generated chain:<${hex} hex>.${kind} address: choose another label`);
  }
  return undefined;
}

/**
 * §38: `base × 2^(8 − len)` below 8 characters, `base` from 8 on. Integers only: with `base` at
 * its maximum (10^12) a 1-character name costs 1.28 × 10^14 ucoin, exactly.
 */
export function namePrice(length: number, base: bigint): bigint {
  if (!Number.isInteger(length) || length < 1) throw new RangeError(`a label has at least one character, not ${length}`);
  return length < 8 ? base << BigInt(8 - length) : base;
}

export const nameAddress = (label: string, kind: NameKind): string => `chain:${label}.${kind}`;
