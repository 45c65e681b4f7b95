import { compareUtf8, sha3Hex0x } from './bytes.js';
import { refuse } from './errors.js';

/**
 * A validator as a light client knows it (decisions.md §84): its `.node` address, its ML-DSA-65
 * consensus key (lowercase hex, no `0x`) and its power (self-stake in ucoin).
 */
export interface LightValidator {
  readonly address: string;
  readonly public_key: string;
  readonly power: bigint;
}

/** The domain tag of a validator-set hash. */
export const VALSET_TAG = 'ch-valset-v1';

const PUBLIC_KEY_RE = /^[0-9a-f]+$/;

/** The set in its canonical order: ascending by address, UTF-8 bytes (decisions.md §84). */
export function sortValidators<T extends { readonly address: string }>(set: readonly T[]): T[] {
  return [...set].sort((a, b) => compareUtf8(a.address, b.address));
}

/**
 * `0x` SHA3-256 of `ch-valset-v1|<count>|<address>|<power>|<public_key>|…` over `set` in the
 * order given (decisions.md §84): the header's `validators_hash` and `next_validators_hash`.
 * The kernel passes the set sorted; a verifier hashes the served list as served, so a list out of
 * order simply fails to match.
 */
export function validatorsHash(set: readonly LightValidator[]): string {
  return sha3Hex0x(validatorsHashText(set));
}

/** The text `validatorsHash` hashes: the kernel hashes the same text through OpenSSL (block-hash.ts). */
export function validatorsHashText(set: readonly LightValidator[]): string {
  const parts: string[] = [VALSET_TAG, String(set.length)];
  for (const v of set) parts.push(v.address, v.power.toString(10), v.public_key);
  return parts.join('|');
}

/** Sum of the set's power. */
export function totalPower(set: readonly LightValidator[]): bigint {
  let total = 0n;
  for (const v of set) total += v.power;
  return total;
}

/** A JSON integer (number or bigint, or base-10 digits) as a bigint; null when it is not a non-negative exact integer. */
export function integerOf(x: unknown): bigint | null {
  if (typeof x === 'bigint') return x >= 0n ? x : null;
  if (typeof x === 'number') return Number.isSafeInteger(x) && x >= 0 ? BigInt(x) : null;
  if (typeof x === 'string' && /^(0|[1-9][0-9]*)$/.test(x)) return BigInt(x);
  return null;
}

/**
 * A served validator list (`[{address, public_key, power}]`) as light validators. Refused
 * (`shape`) when an entry is malformed, an address repeats, or a power is not a positive integer:
 * a set with power 0 members or duplicates is not one the chain serves.
 */
export function parseValidators(raw: unknown, what = 'validators'): LightValidator[] {
  if (!Array.isArray(raw) || raw.length === 0) refuse('shape', `${what} must be a non-empty array`);
  const seen = new Set<string>();
  return raw.map((x: unknown, i) => {
    if (typeof x !== 'object' || x === null) refuse('shape', `${what}[${i}] is not an object`);
    const o = x as Record<string, unknown>;
    const address = o['address'];
    const publicKey = o['public_key'];
    const power = integerOf(o['power']);
    if (typeof address !== 'string' || address.length === 0 || address.includes('|')) refuse('shape', `${what}[${i}].address is not an address`);
    if (typeof publicKey !== 'string' || !PUBLIC_KEY_RE.test(publicKey)) refuse('shape', `${what}[${i}].public_key is not lowercase hex`);
    if (power === null || power === 0n) refuse('shape', `${what}[${i}].power is not a positive integer`);
    if (seen.has(address)) refuse('shape', `${what} lists ${address} twice`);
    seen.add(address);
    return { address, public_key: publicKey, power };
  });
}

/** The wire form of a set (`power` as a JSON integer where it is exact, else base-10 text). */
export function validatorsToJson(set: readonly LightValidator[]): Array<{ address: string; public_key: string; power: number | bigint }> {
  return set.map((v) => ({ address: v.address, public_key: v.public_key, power: v.power <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(v.power) : v.power }));
}
