import type { ParamSpec } from '../state/params.js';
import { EVIDENCE_WINDOW_PARAM } from './evidence-window.js';
import { STATE_GROWTH_PARAMS } from './state-growth.js';

/**
 * Blocks between the light-client commit headers the validators sign (decisions.md §64): the ibc
 * plugin declares it (plugins/ibc/params.ts); a network without that plugin signs one every
 * DEFAULT_IBC_HEADER_INTERVAL blocks (part 1, Inter-chain transfers 1).
 */
export const IBC_HEADER_INTERVAL_PARAM = 'ibc_header_interval';
export const DEFAULT_IBC_HEADER_INTERVAL = 1_000n;

/** Parameters the kernel itself reads (part 2, "Protocol parameters"; decisions.md §9, §11). */
export const KERNEL_PARAMS: readonly ParamSpec[] = [
  { key: 'base_fee', default: 1n, min: 1n, max: 1_000_000_000n, description: 'ucoin per gas unit burned from every fee; gas_price must be at least this' },
  { key: 'max_block_gas', default: 10_000n, min: 1n, max: 1_000_000_000n, description: 'upper bound of the summed gas of one block' },
  // Bounded below the P2P frame limit (4 MiB) with room for the proposal's framing: a block that
  // cannot be sent can never be decided, and every round would fail on it.
  { key: 'max_block_bytes', default: 2_500_000n, min: 16_384n, max: 3_500_000n, description: 'upper bound of the summed canonical JSON size of one block\'s transactions, in bytes' },
  // The kernel judges evidence and keeps the validator set history by it (chain/evidence-window.ts).
  { key: EVIDENCE_WINDOW_PARAM, default: 10_000n, min: 1n, max: 1_000_000_000n, description: 'blocks back from the including block that double-sign evidence may name; older evidence is refused' },
  // The price of state growth (chain/state-growth.ts).
  ...STATE_GROWTH_PARAMS,
];

/** Gas of a plain transfer and of a contract call (part 1, Amounts §4). */
export const GAS_TRANSFER = 21;
export const GAS_CONTRACT_CALL = 50;
export const NFT_TRANSFER_FEE = 100n;
