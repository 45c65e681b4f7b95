import type { ParamSpec } from '../../kernel/sdk.js';

/** Part 2, "Protocol parameters": the governance rows, defaults and ranges as listed. */
export const GOVERNANCE_PARAMS: readonly ParamSpec[] = [
  { key: 'quorum_bps', default: 2_000n, min: 1n, max: 10_000n, description: 'share of total self-stake that must vote (yes + no) for a proposal to pass, in basis points' },
  { key: 'threshold_bps', default: 5_000n, min: 1n, max: 10_000n, description: 'share of the weight cast that yes must exceed for a proposal to pass, in basis points' },
  // "No range shown beyond the 100-block minimum window": the least it may be is the minimum window.
  { key: 'max_voting_duration_blocks', default: 1_000_000n, min: 100n, description: 'longest voting window a proposal may ask for, in blocks' },
];

/** Part 1, Governance 3 and part 2, "Other constants". */
export const MIN_VOTING_DURATION = 100;
export const DEFAULT_VOTING_DURATION = 1_000;
export const MAX_TITLE_CHARS = 200;
export const MAX_DESCRIPTION_CHARS = 5_000;
export const MAX_PAYLOAD_BYTES = 10 * 1024;

/** `propose`'s base gas, the estimate's `operations.propose`: a proposal's checks and record, before its text. */
export const PROPOSE_BASE_GAS = 100;
/**
 * A proposal's text beyond the allowance pays 1 gas per this many bytes on top of the base (issue
 * 29: 15 KB filed for 100 gas), so block space follows bytes; the largest text the rules allow
 * (about 31 KB) stays within a default block (10 000 gas). The state it grows pays
 * `storage_byte_price` besides.
 */
export const PROPOSAL_BYTES_PER_GAS = 10;
/**
 * Text bytes the base gas covers: a proposal of ordinary size costs exactly the estimate's
 * `operations.propose`, as decisions.md §18 tells clients of parts 1–2 (the same reason as the
 * kernel's `storage_free_bytes`).
 */
export const PROPOSAL_FREE_TEXT_BYTES = 2_048;

export const GOVERNANCE_TARGET = 'chain:system.governance';
