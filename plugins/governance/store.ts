import { Type, type Static } from '@sinclair/typebox';
import { defineStore, keyPart, type ReadonlyStore, type Store } from '../../kernel/sdk.js';
import { PROPOSAL_STATUSES, ProposalFields } from './schemas.js';

/**
 * The governance plugin's records (its state layout; the README's table is generated from these
 * declarations). Ids and heights are 12-digit keys, so scans come back by number.
 */
export type ProposalStatus = (typeof PROPOSAL_STATUSES)[number];
export type ProposalKind = 'text' | 'PARAM_CHANGE';

const Proposal = Type.Object({
  ...ProposalFields,
  /** The rules in force when the proposal was created; the tally applies them. */
  quorum_bps: Type.BigInt(),
  threshold_bps: Type.BigInt(),
  yes_weight: Type.BigInt({ minimum: 0n }),
  no_weight: Type.BigInt({ minimum: 0n }),
  votes: Type.Integer({ minimum: 0 }),
  /**
   * The total self-stake the quorum is measured against: the total when the creation block began
   * (decisions.md §98), recorded at creation. Null only on proposals stored before it was, which
   * the tally measures against the total at the tally as it used to.
   */
  total_stake: Type.Union([Type.BigInt({ minimum: 0n }), Type.Null()]),
  /** A passed PARAM_CHANGE: whether the change took effect, and why not (decisions.md §25, §36). */
  applied: Type.Union([Type.Boolean(), Type.Null()]),
  apply_error: Type.Union([Type.String(), Type.Null()]),
  tx_hash: Type.String(),
});
export type ProposalRecord = Static<typeof Proposal>;

const Vote = Type.Object({
  voter: Type.String(),
  accept: Type.Boolean(),
  /** Self-stake of the voter when the vote was applied (part 1, Governance 4). */
  weight: Type.BigInt({ minimum: 0n }),
  height: Type.Integer({ minimum: 0 }),
  tx_hash: Type.String(),
});
export type VoteRecord = Static<typeof Vote>;

export const nextIdStore = defineStore('governance', {
  name: 'next_id',
  description: 'the id the next proposal gets (ids start at 1 and run without gaps, decisions.md §25)',
  key: ['next_id'],
  value: Type.Integer({ minimum: 1 }),
});

export const proposals = defineStore('governance', {
  name: 'proposals',
  description: 'a proposal and its running tally',
  key: ['proposal', keyPart.integer('id')],
  value: Proposal,
});

export const votes = defineStore('governance', {
  name: 'votes',
  description: "one address's final vote on a proposal",
  key: ['vote', keyPart.integer('id'), keyPart.address('voter')],
  value: Vote,
});

export const endings = defineStore('governance', {
  name: 'endings',
  description: "proposals whose window ends with a block (the tally's index, deleted as the tally reads it); the value is the id",
  key: ['ends', keyPart.integer('height'), keyPart.integer('id')],
  value: Type.Integer({ minimum: 1 }),
});

export const byStatus = defineStore('governance', {
  name: 'by_status',
  description: "one entry per proposal under its current status, so a status's page is read without reading every proposal; the value is the id",
  key: ['by_status', keyPart.string('status', { pattern: /^(active|passed|rejected)$/ }), keyPart.integer('id')],
  value: Type.Integer({ minimum: 1 }),
});

export const GOVERNANCE_STORES = [nextIdStore, proposals, votes, endings, byStatus];

export async function nextProposalId(s: ReadonlyStore): Promise<number> {
  return (await nextIdStore.get(s)) ?? 1;
}

export function writeNewProposal(s: Store, p: ProposalRecord): void {
  nextIdStore.set(s, p.id + 1);
  proposals.set(s, p.id, p);
  endings.set(s, p.end_height, p.id, p.id);
  byStatus.set(s, p.status, p.id, p.id);
}

/** Writes a proposal whose status changed (the tally), moving its status index entry. */
export function writeClosedProposal(s: Store, before: ProposalRecord, p: ProposalRecord): void {
  proposals.set(s, p.id, p);
  if (before.status === p.status) return;
  byStatus.delete(s, before.status, p.id);
  byStatus.set(s, p.status, p.id, p.id);
}

/**
 * One page of proposals by id, optionally of one status, with how many there are in all. Only the
 * page's proposals are read: ids run from 1 without gaps (`next_id`), and a status's ids come from
 * its small index entries.
 */
export async function proposalPage(s: ReadonlyStore, status: ProposalStatus | undefined, limit: number, offset: number): Promise<{ rows: ProposalRecord[]; total: number }> {
  let total: number;
  let ids: number[];
  if (status === undefined) {
    total = (await nextProposalId(s)) - 1;
    ids = [];
    for (let id = offset + 1; id <= Math.min(total, offset + limit); id++) ids.push(id);
  } else {
    const entries = await byStatus.scan(s, { prefix: [status] });
    total = entries.length;
    ids = entries.slice(offset, offset + limit).map((e) => e.value);
  }
  const rows = await Promise.all(ids.map((id) => proposals.get(s, id)));
  return { rows: rows.filter((p): p is ProposalRecord => p !== undefined), total };
}

/** Every vote on a proposal, by voter address. */
export async function votesOn(s: ReadonlyStore, id: number): Promise<VoteRecord[]> {
  return (await votes.scan(s, { prefix: [id] })).map((e) => e.value);
}

/** Ids of the proposals whose window ends with block `height`, by id; their index entries go. */
export async function endingAt(s: Store, height: number): Promise<number[]> {
  const rows = await endings.dueAt(s, height);
  for (const { key } of rows) endings.delete(s, ...key);
  return rows.map(({ key }) => key[1]);
}
