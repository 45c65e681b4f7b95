import type { ParamSpec } from '../../kernel/sdk.js';

/** decisions.md §63: the IBC parameters, seeded at genesis from their variables, changed by governance. */
export const HEADER_INTERVAL_PARAM = 'ibc_header_interval';
export const TIMEOUT_BLOCKS_PARAM = 'ibc_timeout_blocks';
export const MAX_PACKET_PARAM = 'ibc_max_packet';
export const MAX_CHANNEL_ESCROW_PARAM = 'ibc_max_channel_escrow';

export const IBC_PARAMS: readonly ParamSpec[] = [
  { key: HEADER_INTERVAL_PARAM, default: 1_000n, min: 1n, max: 1_000_000_000n, description: 'a commit header is signed at every multiple of this height (besides heights that write a packet commitment or receipt, or change the set); CHAIN_IBC_HEADER_INTERVAL' },
  { key: TIMEOUT_BLOCKS_PARAM, default: 10n, min: 1n, max: 1_000_000_000n, description: 'an outbound packet times out at its send height plus this many blocks of this chain; CHAIN_IBC_TIMEOUT_BLOCKS' },
  { key: MAX_PACKET_PARAM, default: 0n, min: 0n, max: 1_000_000_000_000_000_000n, description: 'the largest amount of one transfer or redeem, ucoin; 0 = no limit; CHAIN_IBC_MAX_PACKET_UNRO', unit: 'ucoin' },
  { key: MAX_CHANNEL_ESCROW_PARAM, default: 0n, min: 0n, max: 1_000_000_000_000_000_000n, description: 'the most a channel may expose (escrow_balance + outstanding), ucoin; 0 = no limit; CHAIN_IBC_MAX_CHANNEL_ESCROW_UNRO', unit: 'ucoin' },
];
