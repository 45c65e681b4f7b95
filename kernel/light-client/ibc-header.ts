/**
 * The IBC commit header's signed text (decisions.md §64, part 1 "Inter-chain transfers"). The
 * validators of the set that committed `height` sign it with their consensus keys; the signing
 * node, the header routes and the counterparty's on-chain light client (§65) build it here, once.
 */
export const IBC_HEADER_TAG = 'ch-pq-lc-v1';

export function ibcHeaderMessage(chainId: string, height: number, blockHash: string, stateRoot: string): string {
  return `${IBC_HEADER_TAG}|${chainId}|${height}|${blockHash}|${stateRoot}`;
}
