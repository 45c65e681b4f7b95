import { formatCoin } from '../../kernel/sdk.js';
import type { ProposalRecord, VoteRecord } from './store.js';

/** A proposal on the wire (part 1, "Governance proposal"; decisions.md §25): weights in ucoin with `*_human`. */
export function proposalView(p: ProposalRecord): Record<string, unknown> {
  return {
    id: p.id,
    proposer: p.proposer,
    title: p.title,
    description: p.description,
    kind: p.kind,
    payload: p.payload,
    voting_duration: p.voting_duration,
    created_height: p.created_height,
    end_height: p.end_height,
    status: p.status,
    quorum_bps: p.quorum_bps,
    threshold_bps: p.threshold_bps,
    yes_weight: p.yes_weight,
    yes_weight_human: formatCoin(p.yes_weight),
    no_weight: p.no_weight,
    no_weight_human: formatCoin(p.no_weight),
    votes_count: p.votes,
    total_stake: p.total_stake,
    // null exactly when `total_stake` is (a proposal stored before it was recorded at creation).
    total_stake_human: p.total_stake === null ? null : formatCoin(p.total_stake),
    ...(p.kind === 'PARAM_CHANGE' && p.status === 'passed' ? { applied: p.applied, apply_error: p.apply_error } : {}),
    tx_hash: p.tx_hash,
  };
}

export function voteView(v: VoteRecord): Record<string, unknown> {
  return { voter: v.voter, accept: v.accept, weight: v.weight, weight_human: formatCoin(v.weight), height: v.height, tx_hash: v.tx_hash };
}
