import { contractAddressOn, ONE_SHARD, type ShardView } from '../../kernel/sdk.js';

/**
 * decisions.md §27: `chain:` + the first 10 hex of SHA3-256 of `ch-app|<owner>|<deploy tx hash>` +
 * `.app`; in a sharded network §71's k-rule keeps it on the deployer's shard (`shard`, the
 * context's). The kernel's one rule (`contractAddressOn`), so clients and this plugin agree.
 */
export function contractAddress(owner: string, deployTxHash: string, shard: ShardView = ONE_SHARD): string {
  return contractAddressOn(shard, owner, deployTxHash);
}

const CONTRACT_ADDRESS = /^chain:[0-9a-f]{10}\.app$/;

/**
 * Whether `address` has the form `contractAddress` gives (§27): `chain:<10 hex>.app`. Such an
 * address is never an `.app` name (§38 refuses 10-hex `.app` labels), so it is the contract itself.
 */
export function isContractAddress(address: string): boolean {
  return CONTRACT_ADDRESS.test(address);
}
