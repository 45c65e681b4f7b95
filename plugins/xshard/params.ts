import type { ParamSpec } from '../../kernel/sdk.js';

/** decisions.md §74: blocks a lock waits for its commit before the destination writes an abort instead. */
export const RELAY_TIMEOUT_PARAM = 'relay_timeout_blocks';

export const XSHARD_PARAMS: readonly ParamSpec[] = [
  { key: RELAY_TIMEOUT_PARAM, default: 10n, min: 1n, max: 1_000_000n, description: "a cross-shard lock's deadline_height is its lock height plus this; a lock keeps the deadline it was created with (RELAY_TIMEOUT_BLOCKS seeds it on a new chain)" },
];
