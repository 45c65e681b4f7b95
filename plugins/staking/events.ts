import { Type } from '@sinclair/typebox';
import { defineEvent } from '../../kernel/sdk.js';

const Ucoin = Type.BigInt({ minimum: 0n, description: 'ucoin' });
const Height = Type.Integer({ minimum: 0 });

export const nodeRegistered = defineEvent({
  type: 'node_registered',
  description: 'a .node was registered and bonded min_stake',
  data: Type.Object({ address: Type.String(), owner: Type.String(), stake: Ucoin }),
});
export const staked = defineEvent({
  type: 'staked',
  description: 'self-stake was added; the whole stake is locked until unlock_height',
  data: Type.Object({ address: Type.String(), amount: Ucoin, unlock_height: Height }),
});
export const unstaked = defineEvent({
  type: 'unstaked',
  description: 'a whole self-stake was returned',
  data: Type.Object({ address: Type.String(), amount: Ucoin, paid_to: Type.String({ description: 'who received it: the staker, or a .node\'s owner' }) }),
});
export const delegated = defineEvent({
  type: 'delegated',
  description: 'a delegation was added',
  data: Type.Object({ delegator: Type.String(), validator: Type.String(), amount: Ucoin, unlock_height: Height }),
});
export const undelegated = defineEvent({
  type: 'undelegated',
  description: 'a whole delegation was returned',
  data: Type.Object({ delegator: Type.String(), validator: Type.String(), amount: Ucoin, paid_to: Type.String() }),
});
/** Relayed to socket clients (the gateway turns the kernel's `validator_update` into its own event). */
export const validatorSlashed = defineEvent({
  type: 'validator_slashed',
  description: 'a validator was slashed for double-sign evidence and jailed',
  data: Type.Object({ validator: Type.String(), amount: Ucoin, reporter: Type.String(), reporter_reward: Ucoin, burned: Ucoin, jailed_until: Height, evidence: Type.String({ description: 'the evidence hash' }) }),
  socket: true,
});
export const rewardPaid = defineEvent({
  type: 'reward_paid',
  description: 'a staking reward was paid (one event and one record per payout)',
  data: Type.Object({
    height: Height,
    source: Type.Union([Type.Literal('stake'), Type.Literal('delegation'), Type.Literal('commission')]),
    staker: Type.String(),
    counterparty: Type.String(),
    paid_to: Type.String(),
    amount: Ucoin,
  }),
});

export const STAKING_EVENTS = [nodeRegistered, staked, unstaked, delegated, undelegated, validatorSlashed, rewardPaid];
