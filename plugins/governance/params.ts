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

export const GOVERNANCE_TARGET = 'chain:system.governance';
