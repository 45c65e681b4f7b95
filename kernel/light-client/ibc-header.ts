/**
 * The IBC commit header's signed text (decisions.md §64, part 1 "Inter-chain transfers" 1). The
 * validators of the set that committed `height` sign it with their consensus keys; the signing
 * node, the header routes and the counterparty's on-chain light client (§65) build it here, once.
 */
export const IBC_HEADER_TAG = 'ch-pq-lc-v1';

export function ibcHeaderMessage(chainId: string, height: number, blockHash: string, stateRoot: string): string {
  return `${IBC_HEADER_TAG}|${chainId}|${height}|${blockHash}|${stateRoot}`;
}

/** The state key holding the set a header's `validators` must equal (decisions.md §66). */
export const IBC_VALSET_KEY = 'ibc/valset';

/** A member of a commit header's `validators` (decisions.md §64): its consensus key and power. */
export interface IbcValidator {
  /** Lowercase hex, no `0x`. */
  readonly public_key: string;
  readonly power: bigint;
}

/**
 * The set ascending by public key, as `validators` lists it and `ibc/valset` holds it. Lowercase
 * hex keys of one length sort as their bytes do.
 */
export function sortByPublicKey<T extends { readonly public_key: string }>(set: readonly T[]): T[] {
  return [...set].sort((a, b) => (a.public_key < b.public_key ? -1 : a.public_key > b.public_key ? 1 : 0));
}

/**
 * The value of `ibc/valset` (decisions.md §66): one line `<public_key>|<power>` per validator of
 * positive power, ascending by public key, joined by `\n`, no final newline. The chain writes it
 * whenever its set changes; a counterparty proves a header's `validators` against it.
 */
export function ibcValsetText(set: readonly IbcValidator[]): string {
  return sortByPublicKey(set.filter((v) => v.power > 0n))
    .map((v) => `${v.public_key}|${v.power.toString(10)}`)
    .join('\n');
}
