import { Type, type Static } from '@sinclair/typebox';
import { addressKind, defineStore, keyPart, type ReadonlyStore, type Store } from '../../kernel/sdk.js';

/**
 * The staking plugin's records (its state layout; the README's table is generated from these
 * declarations), keyed so that scans come back in a deterministic (key) order. Every list a
 * route pages and every total a route or the block reads has its own key, so that no request
 * and no block reads more than what it shows. Keys and bytes are those the plugin wrote before
 * its stores were declared (test/converted-state-bytes.test.ts).
 */

const StakeRecordSchema = Type.Object({
  amount: Type.BigInt({ minimum: 0n }),
  /** Height of the last addition + unbonding_blocks (decisions.md §33; at genesis, §96). */
  unlock_height: Type.Integer({ minimum: 0 }),
  /** The height rewards were last paid up to (the bonding height before the first payout, §37). */
  paid_to: Type.Integer({ minimum: 0 }),
  /** A genesis validator's self-stake earns genesis_apy_bps (part 1, Staking 5). */
  genesis: Type.Boolean(),
  /**
   * Height the stake was first bonded (0 at genesis); additions keep it, an unstake ends the
   * record. Governance lets an address vote only on proposals created after it (part 1,
   * Governance 4). Records written before this field existed read as 0.
   */
  bonded_height: Type.Optional(Type.Integer({ minimum: 0 })),
  /**
   * Height of the last addition (the first bond included): stake added at or after a proposal's
   * creation cannot vote on it (part 1, Governance 4), even when the address was bonded before.
   * Records written before this field existed read as their bonded_height.
   */
  added_height: Type.Optional(Type.Integer({ minimum: 0 })),
});
export type StakeRecord = Static<typeof StakeRecordSchema>;

const DelegationRecordSchema = Type.Object({
  amount: Type.BigInt({ minimum: 0n }),
  unlock_height: Type.Integer({ minimum: 0 }),
  paid_to: Type.Integer({ minimum: 0 }),
});
export type DelegationRecord = Static<typeof DelegationRecordSchema>;

const NodeRecordSchema = Type.Object({
  address: Type.String(),
  owner: Type.String(),
  /** Hex ML-DSA-65 consensus key; empty until one is set (a node joins the set only with one). */
  consensus_public_key: Type.String(),
  commission_bps: Type.BigInt({ minimum: 0n }),
  description: Type.String(),
  website: Type.String(),
  p2p_endpoint: Type.String(),
  rpc_endpoint: Type.String(),
  registered_height: Type.Integer({ minimum: 0 }),
  jailed_until: Type.Integer({ minimum: 0 }),
});
export type NodeRecord = Static<typeof NodeRecordSchema>;

/** A sum and how many records it adds up. */
const TallySchema = Type.Object({ amount: Type.BigInt(), count: Type.Integer({ minimum: 0 }) });
export type Tally = Static<typeof TallySchema>;

/**
 * The total self-stake, and `before`: what it was when block `height` began (the latest block
 * that changed it). Governance measures a proposal's quorum against the total when its creation
 * block began, which this answers in one read (decisions.md §98).
 */
const SelfStakeTotalSchema = Type.Object({ total: Type.BigInt(), height: Type.Integer({ minimum: 0 }), before: Type.BigInt() });
export type SelfStakeTotal = Static<typeof SelfStakeTotalSchema>;

export const REWARD_SOURCES = ['stake', 'delegation', 'commission'] as const;
export type RewardSource = (typeof REWARD_SOURCES)[number];

/**
 * One payout (decisions.md §33, §97): two payouts in one block to one staker from one source
 * (delegations to two validators, commission from two delegators) are two records, each naming
 * its `counterparty`: the validator of a delegation, the delegator of a commission, the staker
 * itself for self-stake.
 */
const RewardRecordSchema = Type.Object({
  height: Type.Integer({ minimum: 0 }),
  source: Type.Union(REWARD_SOURCES.map((s) => Type.Literal(s))),
  staker: Type.String(),
  counterparty: Type.String(),
  paid_to: Type.String(),
  amount: Type.BigInt({ minimum: 0n }),
});
export type RewardRecord = Static<typeof RewardRecordSchema>;

/** A staker's rewards in one read: the total (`rewards_total`, the records' sum) and how many records each source has. */
const RewardSummarySchema = Type.Object({
  total: Type.BigInt({ minimum: 0n }),
  /** Records written so far: the next record's sequence number. */
  count: Type.Integer({ minimum: 0 }),
  stake: Type.Integer({ minimum: 0 }),
  delegation: Type.Integer({ minimum: 0 }),
  commission: Type.Integer({ minimum: 0 }),
});
export type RewardSummary = Static<typeof RewardSummarySchema>;

/** A slash as recorded and listed by `GET /api/v1/slashing/history`. */
const SlashRecordSchema = Type.Object({
  height: Type.Integer({ minimum: 0 }),
  validator: Type.String(),
  evidence: Type.String(),
  kind: Type.String(),
  offence_height: Type.Integer({ minimum: 0 }),
  /** The round of the offence: with the validator and `offence_height`, what makes it one offence (decisions.md §98). */
  offence_round: Type.Integer({ minimum: 0 }),
  amount: Type.BigInt({ minimum: 0n }),
  reporter: Type.String(),
  reporter_reward: Type.BigInt({ minimum: 0n }),
  burned: Type.BigInt({ minimum: 0n }),
  jailed_until: Type.Integer({ minimum: 0 }),
});
export type SlashRecord = Static<typeof SlashRecordSchema>;

/** An entry whose key is all it says. */
const MarkSchema = Type.Uint8Array({ maxByteLength: 0 });
const MARK = new Uint8Array(0);

export const stakes = defineStore('staking', {
  name: 'stakes',
  description: 'a self-stake (of a .node, or of any address for governance weight)',
  key: ['stake', keyPart.address('address')],
  value: StakeRecordSchema,
});

export const delegations = defineStore('staking', {
  name: 'delegations',
  description: 'a delegation to a validator',
  key: ['delegation', keyPart.address('validator'), keyPart.address('delegator')],
  value: DelegationRecordSchema,
});

export const delegatorIndex = defineStore('staking', {
  name: 'delegator_index',
  description: 'the same delegation seen from the delegator (my-delegations reads it); empty value',
  key: ['delegator', keyPart.address('delegator'), keyPart.address('validator')],
  value: MarkSchema,
  encoding: 'bytes',
});

export const nodes = defineStore('staking', {
  name: 'nodes',
  description: 'a registered (or genesis) .node',
  key: ['node', keyPart.address('address')],
  value: NodeRecordSchema,
});

/** Digits of a rank key's stake: 10^40 ucoin is far beyond any supply, and a fixed width keeps key order numeric. */
const RANK_DIGITS = 40;
const RANK_TOP = 10n ** BigInt(RANK_DIGITS) - 1n;

export const ranks = defineStore('staking', {
  name: 'ranks',
  description: 'a .node with its consensus key and self-stake, best first: the key holds 10^40−1−stake in 40 digits, so key order is stake descending, then address ascending (decisions.md §96); empty value',
  key: ['rank', keyPart.string('inverse_stake', { maxLength: RANK_DIGITS, pattern: /^[0-9]{40}$/ }), keyPart.address('address')],
  value: MarkSchema,
  encoding: 'bytes',
});

export const rewards = defineStore('staking', {
  name: 'rewards',
  description: "one reward payout (decisions.md §97), `seq` counting the staker's payouts",
  key: ['reward', keyPart.address('staker'), keyPart.string('source', { pattern: /^(stake|delegation|commission)$/ }), keyPart.integer('seq')],
  value: RewardRecordSchema,
});

export const slashes = defineStore('staking', {
  name: 'slashes',
  description: 'one slash, `seq` counting every slash',
  key: ['slash', keyPart.integer('seq')],
  value: SlashRecordSchema,
});

export const offences = defineStore('staking', {
  name: 'offences',
  description: 'the evidence hash a (validator, height, round) was slashed for: one offence whatever the vote types (decisions.md §98)',
  key: ['offence', keyPart.address('validator'), keyPart.integer('height'), keyPart.decimal('round')],
  value: Type.String(),
});

export const selfStakeSum = defineStore('staking', {
  name: 'self_stake_total',
  description: 'total self-stake, and what it was when the latest block that changed it began',
  key: ['sum', 'self_stake'],
  value: SelfStakeTotalSchema,
});

export const nodeCountStore = defineStore('staking', {
  name: 'node_count',
  description: 'how many nodes there are',
  key: ['sum', 'nodes'],
  value: Type.Integer({ minimum: 0 }),
});

export const delegatedToSum = defineStore('staking', {
  name: 'delegated_to',
  description: 'total and count of delegations to a validator (absent when it has none)',
  key: ['sum', 'to', keyPart.address('validator')],
  value: TallySchema,
});

export const delegatedBySum = defineStore('staking', {
  name: 'delegated_by',
  description: 'total and count of delegations by a delegator (absent when it has none)',
  key: ['sum', 'from', keyPart.address('delegator')],
  value: TallySchema,
});

export const rewardSummaries = defineStore('staking', {
  name: 'reward_summaries',
  description: "a staker's reward total and payout counts (rewards_total = the records' sum)",
  key: ['sum', 'reward', keyPart.address('staker')],
  value: RewardSummarySchema,
});

export const slashCountStore = defineStore('staking', {
  name: 'slash_count',
  description: 'how many slashes there are',
  key: ['sum', 'slashes'],
  value: Type.Integer({ minimum: 0 }),
});

export const STAKING_STORES = [stakes, delegations, delegatorIndex, nodes, ranks, rewards, slashes, offences, selfStakeSum, nodeCountStore, delegatedToSum, delegatedBySum, rewardSummaries, slashCountStore];

/** The rank key's stake part for `stake`: ascending key order is stake descending. */
function inverseStake(address: string, stake: bigint): string {
  if (stake <= 0n || stake > RANK_TOP) throw new RangeError(`stake ${stake} of ${address} cannot be ranked`);
  return (RANK_TOP - stake).toString().padStart(RANK_DIGITS, '0');
}

/** The rank key of a node with `stake` (inside the namespace). */
export const rankKey = (address: string, stake: bigint): string => ranks.key(inverseStake(address, stake), address);

/** The address and stake a rank key names. */
export function parseRankKey(key: string): { address: string; stake: bigint } {
  const values = ranks.layout.parse(key);
  if (values === undefined) throw new Error(`${key} is not a rank key`);
  return { address: values[1], stake: RANK_TOP - BigInt(values[0]) };
}

const NO_TALLY: Tally = { amount: 0n, count: 0 };
/** Total and count of delegations to `validator`. */
export const delegatedTo = async (s: ReadonlyStore, validator: string): Promise<Tally> => (await delegatedToSum.get(s, validator)) ?? NO_TALLY;
/** Total and count of delegations `delegator` made. */
export const delegatedBy = async (s: ReadonlyStore, delegator: string): Promise<Tally> => (await delegatedBySum.get(s, delegator)) ?? NO_TALLY;
export const nodeCount = async (s: ReadonlyStore): Promise<number> => (await nodeCountStore.get(s)) ?? 0;
export const selfStakeTotal = async (s: ReadonlyStore): Promise<SelfStakeTotal> => (await selfStakeSum.get(s)) ?? { total: 0n, height: 0, before: 0n };

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
  const prev = await stakes.get(s, address);
  const before = prev?.amount ?? 0n;
  const after = next?.amount ?? 0n;
  if (next) stakes.set(s, address, next);
  else stakes.delete(s, address);
  if (before === after) return;
  const t = await selfStakeTotal(s);
  selfStakeSum.set(s, { total: t.total - before + after, height, before: t.height === height ? t.before : t.total });
  if (addressKind(address) !== 'node') return;
  const node = await nodes.get(s, address);
  if (!node || node.consensus_public_key === '') return;
  if (before > 0n) ranks.delete(s, inverseStake(address, before), address);
  if (after > 0n) ranks.set(s, inverseStake(address, after), address, MARK);
}

/** Writes a node record; a node's first consensus key puts its stake in the ranking. */
export async function putNode(s: Store, node: NodeRecord): Promise<void> {
  const prev = await nodes.get(s, node.address);
  nodes.set(s, node.address, node);
  if (!prev) nodeCountStore.set(s, (await nodeCount(s)) + 1);
  if ((prev?.consensus_public_key ?? '') === '' && node.consensus_public_key !== '') {
    const stake = await stakes.get(s, node.address);
    if (stake && stake.amount > 0n) ranks.set(s, inverseStake(node.address, stake.amount), node.address, MARK);
  }
}

/** Writes (or, with undefined, ends) a delegation, keeping its reverse entry and both sums in step. */
export async function putDelegation(s: Store, validator: string, delegator: string, next: DelegationRecord | undefined): Promise<void> {
  const prev = await delegations.get(s, validator, delegator);
  const delta = (next?.amount ?? 0n) - (prev?.amount ?? 0n);
  const count = (next ? 1 : 0) - (prev ? 1 : 0);
  if (next) {
    delegations.set(s, validator, delegator, next);
    delegatorIndex.set(s, delegator, validator, MARK);
  } else {
    delegations.delete(s, validator, delegator);
    delegatorIndex.delete(s, delegator, validator);
  }
  if (delta === 0n && count === 0) return;
  for (const [sum, who] of [[delegatedToSum, validator], [delegatedBySum, delegator]] as const) {
    const t = (await sum.get(s, who)) ?? NO_TALLY;
    const updated = { amount: t.amount + delta, count: t.count + count };
    if (updated.count === 0) sum.delete(s, who);
    else sum.set(s, who, updated);
  }
}

/** Page of the delegations to `validator`, by delegator: `limit` rows after the first `offset`. */
export async function delegationsTo(s: ReadonlyStore, validator: string, limit: number, offset: number): Promise<Array<{ delegator: string; record: DelegationRecord }>> {
  return (await delegations.scan(s, { prefix: [validator], limit: offset + limit })).slice(offset).map((e) => ({ delegator: e.key[1], record: e.value }));
}

/** Page of the validators `delegator` delegates to, by validator address, with each delegation. */
export async function delegationsBy(s: ReadonlyStore, delegator: string, limit: number, offset: number): Promise<Array<{ validator: string; record: DelegationRecord }>> {
  const rows = (await delegatorIndex.scan(s, { prefix: [delegator], limit: offset + limit })).slice(offset);
  const out: Array<{ validator: string; record: DelegationRecord }> = [];
  for (const { key } of rows) {
    const record = await delegations.get(s, key[1], delegator);
    if (record) out.push({ validator: key[1], record });
  }
  return out;
}

/** Page of the nodes, by address. */
export async function nodesPage(s: ReadonlyStore, limit: number, offset: number): Promise<NodeRecord[]> {
  return (await nodes.scan(s, { limit: offset + limit })).slice(offset).map((e) => e.value);
}

/** The first `limit` ranked nodes (stake descending, then address ascending). */
export async function rankedNodes(s: ReadonlyStore, limit: number): Promise<Array<{ address: string; stake: bigint }>> {
  return (await ranks.scan(s, { limit })).map(({ key: [inverse, address] }) => ({ address, stake: RANK_TOP - BigInt(inverse) }));
}
