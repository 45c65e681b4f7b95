import { formatCoin } from '../../kernel/sdk.js';
import type { DelegationRecord, NodeRecord, RewardRecord, StakeRecord } from './store.js';

/** Jailed at committed height `height`: the block at `jailed_until` already put the node back in the set. */
export const isJailed = (n: NodeRecord, height: number): boolean => n.jailed_until > height;

/** Wire forms: ucoin integers with `*_human` beside each amount (decisions.md §21). */
export function nodeView(n: NodeRecord, stake: StakeRecord | undefined, height: number): Record<string, unknown> {
  const amount = stake?.amount ?? 0n;
  return {
    address: n.address,
    owner: n.owner,
    commission_bps: n.commission_bps,
    consensus_public_key: n.consensus_public_key,
    stake: amount,
    stake_human: formatCoin(amount),
    description: n.description,
    website: n.website,
    p2p_endpoint: n.p2p_endpoint,
    rpc_endpoint: n.rpc_endpoint,
    registered_height: n.registered_height,
    jailed: isJailed(n, height),
    jailed_until: n.jailed_until,
  };
}

export function delegationView(validator: string, delegator: string, d: DelegationRecord): Record<string, unknown> {
  return { validator, delegator, amount: d.amount, amount_human: formatCoin(d.amount), unlock_height: d.unlock_height };
}

export function rewardView(r: RewardRecord): Record<string, unknown> {
  return { height: r.height, source: r.source, staker: r.staker, counterparty: r.counterparty, paid_to: r.paid_to, amount: r.amount, amount_human: formatCoin(r.amount) };
}
