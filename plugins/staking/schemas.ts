import { Type } from '@sinclair/typebox';

/**
 * The wire forms of staking's answers (ucoin integers with `*_human` beside each amount,
 * decisions.md §21): the read routes' response schemas, which other code (clients, the assistant
 * tool server) reuses through public.ts.
 */
const Ucoin = (description: string) => Type.Integer({ minimum: 0, description: `${description}, in ucoin` });
const Human = Type.String({ description: 'the amount before it in COIN' });
const Height = Type.Integer({ minimum: 0 });

export const NodeView = Type.Object({
  address: Type.String({ description: 'the .node' }),
  owner: Type.String({ description: 'the account that acts for it (decisions.md §19)' }),
  commission_bps: Type.Integer({ minimum: 0, maximum: 10_000, description: 'commission on delegators\' rewards, in basis points' }),
  consensus_public_key: Type.String({ description: 'hex ML-DSA-65 key it signs blocks with; empty until set' }),
  stake: Ucoin('its self-stake'),
  stake_human: Human,
  description: Type.String(),
  website: Type.String(),
  p2p_endpoint: Type.String(),
  rpc_endpoint: Type.String(),
  registered_height: Height,
  jailed: Type.Boolean({ description: 'jailed at the height read' }),
  jailed_until: Type.Integer({ minimum: 0, description: 'the height its jail ends (0: never jailed or unjailed)' }),
});

export const DelegationView = Type.Object({
  validator: Type.String(),
  delegator: Type.String(),
  amount: Ucoin('the delegation'),
  amount_human: Human,
  unlock_height: Type.Integer({ minimum: 0, description: 'the first height it may be undelegated at' }),
});

export const RewardView = Type.Object({
  height: Height,
  source: Type.Union([Type.Literal('stake'), Type.Literal('delegation'), Type.Literal('commission')]),
  staker: Type.String(),
  counterparty: Type.String({ description: 'the validator of a delegation, the delegator of a commission, the staker itself for self-stake' }),
  paid_to: Type.String(),
  amount: Ucoin('the payout'),
  amount_human: Human,
});

export const SlashView = Type.Object({
  height: Type.Integer({ minimum: 0, description: 'the block that applied the evidence' }),
  validator: Type.String(),
  evidence: Type.String({ description: 'the evidence hash' }),
  kind: Type.String(),
  offence_height: Height,
  offence_round: Height,
  amount: Ucoin('taken from the self-stake'),
  amount_human: Human,
  reporter: Type.String(),
  reporter_reward: Ucoin("the reporter's share"),
  reporter_reward_human: Human,
  burned: Ucoin('the rest, burned'),
  burned_human: Human,
  jailed_until: Height,
});

export const StakingInfo = Type.Object({
  address: Type.String(),
  stake: Ucoin('self-stake'),
  stake_human: Human,
  unlock_height: Type.Integer({ minimum: 0, description: 'the first height the self-stake may be unstaked at (0: none)' }),
  delegations_out: Ucoin('delegated by the address'),
  delegations_out_human: Human,
  rewards_total: Ucoin('every reward paid to it so far'),
  rewards_total_human: Human,
  jailed: Type.Boolean(),
  jailed_until: Type.Integer({ minimum: 0 }),
});
