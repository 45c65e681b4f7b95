import { jsonRecord, type ReadonlyStore, type Store } from '../../kernel/sdk.js';

/**
 * The governance plugin's records, in its own namespace, keyed so that scans come back in a
 * deterministic (key) order:
 *   next_id                              the id the next proposal gets (ids start at 1, decisions.md §25)
 *   proposal/<id, 12 digits>             a proposal and its running tally
 *   vote/<id, 12 digits>/<voter>         one address's final vote on it
 *   ends/<height, 12 digits>/<id>        proposals whose window ends with that block (the tally's index)
 */
export type ProposalStatus = 'active' | 'passed' | 'rejected';
export type ProposalKind = 'text' | 'PARAM_CHANGE';

export interface ProposalRecord {
  id: number;
  proposer: string;
  title: string;
  description: string;
  kind: ProposalKind;
  /** `param_key` and `param_value` (strings) for a PARAM_CHANGE; what the proposer sent for a text proposal. */
  payload: Record<string, unknown>;
  voting_duration: number;
  created_height: number;
  /** created_height + voting_duration: the tally runs at the end of this block. */
  end_height: number;
  /** The rules in force when the proposal was created; the tally applies them. */
  quorum_bps: bigint;
  threshold_bps: bigint;
  status: ProposalStatus;
  yes_weight: bigint;
  no_weight: bigint;
  votes: number;
  /**
   * The total self-stake the quorum is measured against: the total when the creation block began
   * (decisions.md §98), recorded at creation. Null only on proposals stored before it was, which
   * the tally measures against the total at the tally as it used to.
   */
  total_stake: bigint | null;
  /** A passed PARAM_CHANGE: whether the change took effect, and why not (decisions.md §25, §36). */
  applied: boolean | null;
  apply_error: string | null;
  tx_hash: string;
}

export interface VoteRecord {
  voter: string;
  accept: boolean;
  /** Self-stake of the voter when the vote was applied (part 1, Governance 4). */
  weight: bigint;
  height: number;
  tx_hash: string;
}

const proposalCodec = jsonRecord<ProposalRecord>();
const voteCodec = jsonRecord<VoteRecord>();

const pad = (n: number): string => String(n).padStart(12, '0');
export const proposalKey = (id: number): string => `proposal/${pad(id)}`;
const voteKey = (id: number, voter: string): string => `vote/${pad(id)}/${voter}`;
const endsPrefix = (height: number): string => `ends/${pad(height)}/`;
/** One key per proposal under its current status, so a status's page is found without reading every proposal. */
const statusPrefix = (status: ProposalStatus): string => `by_status/${status}/`;

export async function nextProposalId(s: ReadonlyStore): Promise<number> {
  return (await s.getRecord<number>('next_id')) ?? 1;
}

export function writeNewProposal(s: Store, p: ProposalRecord): void {
  s.setRecord('next_id', p.id + 1);
  writeProposal(s, p);
  s.setRecord(`${endsPrefix(p.end_height)}${pad(p.id)}`, p.id);
  s.setRecord(`${statusPrefix(p.status)}${pad(p.id)}`, p.id);
}

/** Writes a proposal whose status changed (the tally), moving its status index entry. */
export function writeClosedProposal(s: Store, before: ProposalRecord, p: ProposalRecord): void {
  writeProposal(s, p);
  if (before.status === p.status) return;
  s.delete(`${statusPrefix(before.status)}${pad(p.id)}`);
  s.setRecord(`${statusPrefix(p.status)}${pad(p.id)}`, p.id);
}

export const readProposal = (s: ReadonlyStore, id: number): Promise<ProposalRecord | undefined> => s.getRecord(proposalKey(id), proposalCodec);
export const writeProposal = (s: Store, p: ProposalRecord): void => s.setRecord(proposalKey(p.id), p, proposalCodec);
export const readVote = (s: ReadonlyStore, id: number, voter: string): Promise<VoteRecord | undefined> => s.getRecord(voteKey(id, voter), voteCodec);
export const writeVote = (s: Store, id: number, v: VoteRecord): void => s.setRecord(voteKey(id, v.voter), v, voteCodec);

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
    const prefix = statusPrefix(status);
    const keys = await s.scan(prefix);
    total = keys.length;
    ids = keys.slice(offset, offset + limit).map(([k]) => Number(k.slice(prefix.length)));
  }
  const rows = await Promise.all(ids.map((id) => readProposal(s, id)));
  return { rows: rows.filter((p): p is ProposalRecord => p !== undefined), total };
}

/** Every vote on a proposal, by voter address. */
export async function votesOn(s: ReadonlyStore, id: number): Promise<VoteRecord[]> {
  return (await s.scan(`vote/${pad(id)}/`)).map(([, v]) => voteCodec.decode(v));
}

/** Ids of the proposals whose window ends with block `height`, by id. */
export async function endingAt(s: Store, height: number): Promise<number[]> {
  const prefix = endsPrefix(height);
  const rows = await s.scan(prefix);
  for (const [k] of rows) s.delete(k);
  return rows.map(([k]) => Number(k.slice(prefix.length)));
}
