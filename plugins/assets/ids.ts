import { sha3Hex0x } from '../../kernel/sdk.js';

/** The Signs-for address of every asset and exchange operation (part 1 "Native assets and exchange"). */
export const TARGET = 'chain:system.assets';

/** An asset's id (§55): `0x` + SHA3-256 of `ch-asset|<from>|<symbol>|<issue_nonce>` of its first issue, fixed for life. */
export function assetId(from: string, symbol: string, issueNonce: number): string {
  return sha3Hex0x(`ch-asset|${from}|${symbol}|${issueNonce}`);
}

/** The ordered pair of a pool (§58): `asset_x` the lower id by UTF-16 code unit (an issued `0x…` id is below `ucoin`). */
export function orderedPair(a: string, b: string): readonly [string, string] {
  return a < b ? [a, b] : [b, a];
}

/** A pool's id (§58): `0x` + SHA3-256 of `ch-pool|<asset_x>|<asset_y>`. */
export function poolId(assetX: string, assetY: string): string {
  return sha3Hex0x(`ch-pool|${assetX}|${assetY}`);
}
