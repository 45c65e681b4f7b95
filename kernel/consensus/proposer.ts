import { sha3Concat } from '../crypto/hash.js';
import { compareAddresses } from './bytes.js';

/**
 * Proposer selection (interface spec, Consensus item 3). Stake alone decides: no priority queue
 * and no state carried between heights, so any node (or a light client) can recompute the
 * proposer of any (height, round) from the validator set alone. See docs/proposer-selection.md for the domain tag and vectors.
 */

export const PROPOSER_DOMAIN_TAG = 'ch-proposer-v1';
const TAG_BYTES = new TextEncoder().encode(PROPOSER_DOMAIN_TAG);
const U64_MAX = (1n << 64n) - 1n;

export interface WeightedAddress {
  readonly address: string;
  readonly power: bigint;
}

/** Validators sorted by address, ascending, byte-wise over UTF-8: the order the walk uses. */
export function canonicalOrder<T extends { readonly address: string }>(items: readonly T[]): T[] {
  return [...items].sort((a, b) => compareAddresses(a.address, b.address));
}

export function u64be(value: number | bigint): Uint8Array {
  const v = BigInt(value);
  if (v < 0n || v > U64_MAX) throw new RangeError(`value ${v} does not fit an unsigned 64-bit integer`);
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigUint64(0, v, false);
  return out;
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a;
}

/** SHA3-256(tag || u64be(height) || u64be(round)) read as a big-endian unsigned integer. */
export function proposerDigest(height: number | bigint, round: number | bigint): bigint {
  const digest = sha3Concat(TAG_BYTES, u64be(height), u64be(round));
  let n = 0n;
  for (const byte of digest) n = (n << 8n) | BigInt(byte);
  return n;
}

/**
 * Index into `sorted` (which must already be in canonical order) of the proposer. Stakes are
 * divided by their gcd first, as the spec requires: the modulus changes with the scale, so
 * without it two sets with proportional stakes would pick differently.
 */
export function selectProposerIndex(sorted: readonly WeightedAddress[], height: number | bigint, round: number | bigint): number {
  const n = sorted.length;
  if (n === 0) throw new Error('cannot select a proposer from an empty validator set');
  let g = 0n;
  for (const v of sorted) {
    if (v.power < 0n) throw new RangeError(`negative power for ${v.address}`);
    g = gcd(g, v.power);
  }
  if (g === 0n) {
    // Nobody has stake: round-robin keeps the network able to propose (test networks).
    return Number((BigInt(height) + BigInt(round)) % BigInt(n));
  }
  let total = 0n;
  for (const v of sorted) total += v.power / g;
  const target = proposerDigest(height, round) % total;
  let cumulative = 0n;
  for (let i = 0; i < n; i++) {
    cumulative += (sorted[i] as WeightedAddress).power / g;
    // Range of validator i is [cumulative_before, cumulative): zero-stake validators own none.
    if (target < cumulative) return i;
  }
  throw new Error('unreachable: target below total weight');
}

/** The proposer for (height, round) among `validators` (any order; sorted canonically here). */
export function selectProposer<T extends WeightedAddress>(validators: readonly T[], height: number | bigint, round: number | bigint): T {
  const sorted = canonicalOrder(validators);
  return sorted[selectProposerIndex(sorted, height, round)] as T;
}
