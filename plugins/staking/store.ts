import { addressKind, jsonRecord, type ReadonlyStore, type Store } from '../../kernel/sdk.js';

/**
 * The staking plugin's records, all in its own namespace, keyed so that scans come back in a
 * deterministic (key) order. Every list a route pages and every total a route or the block
 * reads has its own key, so that no request and no block reads more than what it shows:
 *
 *   stake/<address>                          a self-stake
 *   delegation/<validator>/<delegator>       a delegation
 *   delegator/<delegator>/<validator>        the same delegation seen from the delegator (my-delegations)
 *   node/<address>                           a registered (or genesis) `.node`
 *   rank/<40-digit 10^40−1−stake>/<address>  a `.node` with its consensus key and self-stake, best first
 *                                            (stake descending, then address ascending: decisions.md §96)
 *   reward/<staker>/<source>/<seq, 12>       one reward payout (§97), `seq` counting the staker's payouts
 *   slash/<seq, 12>                          one slash, `seq` counting every slash
 *   offence/<validator>/<height, 12>/<round> the evidence a (validator, height, round) was slashed for (§98)
 *   sum/self_stake                           total self-stake, and what it was when the latest block that changed it began
 *   sum/nodes                                how many nodes there are
 *   sum/to/<validator>                       total and count of delegations to a validator
 *   sum/from/<delegator>                     total and count of delegations by a delegator
 *   sum/reward/<staker>                      a staker's reward total and payout counts (rewards_total = the records' sum)
 *   sum/slashes                              how many slashes there are
 */
export interface StakeRecord {
  amount: bigint;
  /** Height of the last addition + unbonding_blocks (decisions.md §33; at genesis, §96). */
  unlock_height: number;
  /** The height rewards were last paid up to (the bonding height before the first payout, §37). */
  paid_to: number;
  /** A genesis validator's self-stake earns genesis_apy_bps (part 1, Staking 5). */
  genesis: boolean;
  /**
   * Height the stake was first bonded (0 at genesis); additions keep it, an unstake ends the
   * record. Governance lets an address vote only on proposals created after it (part 1,
   * Governance 4). Records written before this field existed read as 0.
   */
  bonded_height?: number;
  /**
   * Height of the last addition (the first bond included): stake added at or after a proposal's
   * creation cannot vote on it (part 1, Governance 4), even when the address was bonded before.
   * Records written before this field existed read as their bonded_height.
   */
  added_height?: number;
}

export interface DelegationRecord {
  amount: bigint;
  unlock_height: number;
  paid_to: number;
}

export interface NodeRecord {
  address: string;
  owner: string;
  /** Hex ML-DSA-65 consensus key; empty until one is set (a node joins the set only with one). */
  consensus_public_key: string;
  commission_bps: bigint;
  description: string;
  website: string;
  p2p_endpoint: string;
  rpc_endpoint: string;
  registered_height: number;
  jailed_until: number;
}

/** A sum and how many records it adds up. */
export interface Tally {
  amount: bigint;
  count: number;
}

/**
 * The total self-stake, and `before`: what it was when block `height` began (the latest block
 * that changed it). Governance measures a proposal's quorum against the total when its creation
 * block began, which this answers in one read (decisions.md §98).
 */
export interface SelfStakeTotal {
  total: bigint;
  height: number;
  before: bigint;
}

const stakeCodec = jsonRecord<StakeRecord>();
const delegationCodec = jsonRecord<DelegationRecord>();
const nodeCodec = jsonRecord<NodeRecord>();
const tallyCodec = jsonRecord<Tally>();
const selfStakeCodec = jsonRecord<SelfStakeTotal>();
const MARK = new Uint8Array(0);

export const stakeKey = (address: string): string => `stake/${address}`;
export const delegationKey = (validator: string, delegator: string): string => `delegation/${validator}/${delegator}`;
const delegatorKey = (delegator: string, validator: string): string => `delegator/${delegator}/${validator}`;
export const nodeKey = (address: string): string => `node/${address}`;
const toKey = (validator: string): string => `sum/to/${validator}`;
const fromKey = (delegator: string): string => `sum/from/${delegator}`;
const SELF_STAKE_KEY = 'sum/self_stake';
const NODES_KEY = 'sum/nodes';

/** Zero-padded so that key order is numeric order. */
export const pad12 = (n: number): string => String(n).padStart(12, '0');

/** Digits of a rank key's stake: 10^40 ucoin is far beyond any supply, and a fixed width keeps key order numeric. */
const RANK_DIGITS = 40;
const RANK_TOP = 10n ** BigInt(RANK_DIGITS) - 1n;
export const RANK_PREFIX = 'rank/';

/** The rank key of a node with `stake`: ascending key order is stake descending, then address ascending. */
export function rankKey(address: string, stake: bigint): string {
  if (stake <= 0n || stake > RANK_TOP) throw new RangeError(`stake ${stake} of ${address} cannot be ranked`);
  return `${RANK_PREFIX}${(RANK_TOP - stake).toString().padStart(RANK_DIGITS, '0')}/${address}`;
}

/** The address and stake a rank key names. */
export function parseRankKey(key: string): { address: string; stake: bigint } {
  const digits = key.slice(RANK_PREFIX.length, RANK_PREFIX.length + RANK_DIGITS);
  return { address: key.slice(RANK_PREFIX.length + RANK_DIGITS + 1), stake: RANK_TOP - BigInt(digits) };
}

export const readStake = (s: ReadonlyStore, address: string): Promise<StakeRecord | undefined> => s.getRecord(stakeKey(address), stakeCodec);
export const readDelegation = (s: ReadonlyStore, validator: string, delegator: string): Promise<DelegationRecord | undefined> => s.getRecord(delegationKey(validator, delegator), delegationCodec);
export const readNode = (s: ReadonlyStore, address: string): Promise<NodeRecord | undefined> => s.getRecord(nodeKey(address), nodeCodec);

const readTally = async (s: ReadonlyStore, key: string): Promise<Tally> => (await s.getRecord(key, tallyCodec)) ?? { amount: 0n, count: 0 };
/** Total and count of delegations to `validator`. */
export const delegatedTo = (s: ReadonlyStore, validator: string): Promise<Tally> => readTally(s, toKey(validator));
/** Total and count of delegations `delegator` made. */
export const delegatedBy = (s: ReadonlyStore, delegator: string): Promise<Tally> => readTally(s, fromKey(delegator));
export const nodeCount = async (s: ReadonlyStore): Promise<number> => (await s.getRecord<number>(NODES_KEY)) ?? 0;
export const selfStakeTotal = async (s: ReadonlyStore): Promise<SelfStakeTotal> => (await s.getRecord(SELF_STAKE_KEY, selfStakeCodec)) ?? { total: 0n, height: 0, before: 0n };

/**
 * The total self-stake when block `height` began: the total as the latest change left it, or, if
 * block `height` itself changed it, what it was before (read by a block at `height`, or by
 * admission for the next one).
 */
export async function selfStakeAtStartOf(s: ReadonlyStore, height: number): Promise<bigint> {
  const t = await selfStakeTotal(s);
  return t.height === height ? t.before : t.total;
}

/**
 * Writes (or, with undefined, ends) a self-stake, keeping the total self-stake and the node's
 * rank entry in step with it. `height` is the block making the change.
 */
export async function putStake(s: Store, address: string, next: StakeRecord | undefined, height: number): Promise<void> {
  const prev = await readStake(s, address);
  const before = prev?.amount ?? 0n;
  const after = next?.amount ?? 0n;
  if (next) s.setRecord(stakeKey(address), next, stakeCodec);
  else s.delete(stakeKey(address));
  if (before === after) return;
  const t = await selfStakeTotal(s);
  s.setRecord(SELF_STAKE_KEY, { total: t.total - before + after, height, before: t.height === height ? t.before : t.total }, selfStakeCodec);
  if (addressKind(address) !== 'node') return;
  const node = await readNode(s, address);
  if (!node || node.consensus_public_key === '') return;
  if (before > 0n) s.delete(rankKey(address, before));
  if (after > 0n) s.set(rankKey(address, after), MARK);
}

/** Writes a node record; a node's first consensus key puts its stake in the ranking. */
export async function putNode(s: Store, node: NodeRecord): Promise<void> {
  const prev = await readNode(s, node.address);
  s.setRecord(nodeKey(node.address), node, nodeCodec);
  if (!prev) s.setRecord(NODES_KEY, (await nodeCount(s)) + 1);
  if ((prev?.consensus_public_key ?? '') === '' && node.consensus_public_key !== '') {
    const stake = await readStake(s, node.address);
    if (stake && stake.amount > 0n) s.set(rankKey(node.address, stake.amount), MARK);
  }
}

/** Writes (or, with undefined, ends) a delegation, keeping its reverse entry and both sums in step. */
export async function putDelegation(s: Store, validator: string, delegator: string, next: DelegationRecord | undefined): Promise<void> {
  const prev = await readDelegation(s, validator, delegator);
  const delta = (next?.amount ?? 0n) - (prev?.amount ?? 0n);
  const count = (next ? 1 : 0) - (prev ? 1 : 0);
  if (next) {
    s.setRecord(delegationKey(validator, delegator), next, delegationCodec);
    s.set(delegatorKey(delegator, validator), MARK);
  } else {
    s.delete(delegationKey(validator, delegator));
    s.delete(delegatorKey(delegator, validator));
  }
  if (delta === 0n && count === 0) return;
  for (const key of [toKey(validator), fromKey(delegator)]) {
    const t = await readTally(s, key);
    const updated = { amount: t.amount + delta, count: t.count + count };
    if (updated.count === 0) s.delete(key);
    else s.setRecord(key, updated, tallyCodec);
  }
}

/** Page of the delegations to `validator`, by delegator: `limit` rows after the first `offset`. */
export async function delegationsTo(s: ReadonlyStore, validator: string, limit: number, offset: number): Promise<Array<{ delegator: string; record: DelegationRecord }>> {
  const prefix = `delegation/${validator}/`;
  return (await s.scan(prefix, { limit: offset + limit })).slice(offset).map(([k, v]) => ({ delegator: k.slice(prefix.length), record: delegationCodec.decode(v) }));
}

/** Page of the validators `delegator` delegates to, by validator address, with each delegation. */
export async function delegationsBy(s: ReadonlyStore, delegator: string, limit: number, offset: number): Promise<Array<{ validator: string; record: DelegationRecord }>> {
  const prefix = `delegator/${delegator}/`;
  const rows = (await s.scan(prefix, { limit: offset + limit })).slice(offset);
  const out: Array<{ validator: string; record: DelegationRecord }> = [];
  for (const [k] of rows) {
    const validator = k.slice(prefix.length);
    const record = await readDelegation(s, validator, delegator);
    if (record) out.push({ validator, record });
  }
  return out;
}

/** Every delegation, with validator and delegator (key order): the reward payout walks them all. */
export async function allDelegations(s: ReadonlyStore): Promise<Array<{ validator: string; delegator: string; record: DelegationRecord }>> {
  return (await s.scan('delegation/')).map(([k, v]) => {
    const [, validator, delegator] = k.split('/') as [string, string, string];
    return { validator, delegator, record: delegationCodec.decode(v) };
  });
}

/** Every self-stake (key order): the reward payout walks them all. */
export async function allStakes(s: ReadonlyStore): Promise<Array<{ address: string; record: StakeRecord }>> {
  return (await s.scan('stake/')).map(([k, v]) => ({ address: k.slice('stake/'.length), record: stakeCodec.decode(v) }));
}

/** Page of the nodes, by address. */
export async function nodesPage(s: ReadonlyStore, limit: number, offset: number): Promise<NodeRecord[]> {
  return (await s.scan('node/', { limit: offset + limit })).slice(offset).map(([, v]) => nodeCodec.decode(v));
}

/** The first `limit` ranked nodes (stake descending, then address ascending). */
export async function rankedNodes(s: ReadonlyStore, limit: number): Promise<Array<{ address: string; stake: bigint }>> {
  return (await s.scan(RANK_PREFIX, { limit })).map(([k]) => parseRankKey(k));
}
