import type { PluginEventSpec } from '../../kernel/sdk.js';

/** The events staking emits; `validator_slashed` is relayed to socket clients (the gateway turns the kernel's `validator_update` into its own event). */
export const STAKING_EVENTS: readonly PluginEventSpec[] = [
  { type: 'node_registered', description: 'a .node was registered and bonded min_stake', fields: ['address', 'owner', 'stake'] },
  { type: 'staked', description: 'self-stake was added; the whole stake is locked until unlock_height', fields: ['address', 'amount', 'unlock_height'] },
  { type: 'unstaked', description: 'a whole self-stake was returned', fields: ['address', 'amount', 'paid_to'] },
  { type: 'delegated', description: 'a delegation was added', fields: ['delegator', 'validator', 'amount', 'unlock_height'] },
  { type: 'undelegated', description: 'a whole delegation was returned', fields: ['delegator', 'validator', 'amount', 'paid_to'] },
  { type: 'validator_slashed', description: 'a validator was slashed for double-sign evidence and jailed', fields: ['validator', 'amount', 'reporter', 'reporter_reward', 'burned', 'jailed_until', 'evidence'], socket: true },
  { type: 'reward_paid', description: 'a staking reward was paid (one event and one record per payout)', fields: ['height', 'source', 'staker', 'counterparty', 'paid_to', 'amount'] },
];
