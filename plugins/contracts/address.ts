import { sha3Hex0x } from '../../kernel/sdk.js';

/** decisions.md §27: `chain:` + the first 10 hex of SHA3-256 of `ch-app|<owner>|<deploy tx hash>` + `.app`. */
export function contractAddress(owner: string, deployTxHash: string): string {
  return `chain:${sha3Hex0x(`ch-app|${owner}|${deployTxHash}`).slice(2, 12)}.app`;
}

const CONTRACT_ADDRESS = /^chain:[0-9a-f]{10}\.app$/;

/**
 * Whether `address` has the form `contractAddress` gives (§27): `chain:<10 hex>.app`. Such an
 * address is never an `.app` name (§38 refuses 10-hex `.app` labels), so it is the contract itself.
 */
export function isContractAddress(address: string): boolean {
  return CONTRACT_ADDRESS.test(address);
}
