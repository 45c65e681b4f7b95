import type { ParamSpec } from '../state/params.js';

/** Parameters the kernel itself reads (part 2, "Protocol parameters"; decisions.md §9, §11). */
export const KERNEL_PARAMS: readonly ParamSpec[] = [
  { key: 'base_fee', default: 1n, min: 1n, max: 1_000_000_000n, description: 'ucoin per gas unit burned from every fee; gas_price must be at least this' },
  { key: 'max_block_gas', default: 10_000n, min: 1n, max: 1_000_000_000n, description: 'upper bound of the summed gas of one block' },
];

/** Gas of a plain transfer and of a contract call (part 1, Amounts §4). */
export const GAS_TRANSFER = 21;
export const GAS_CONTRACT_CALL = 50;
export const NFT_TRANSFER_FEE = 100n;
