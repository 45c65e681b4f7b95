import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeChain, signOperation, VALIDATOR_KEY, wallet, type Fixture, type Wallet } from '../../test/helpers/chain-fixture.js';
import { deriveAddress, jsonRecord, toHex, type ReadonlyStore, type ScanOptions } from '../../kernel/sdk.js';
import { stakingPlugin } from './index.js';
import { delegationReward, stakeReward } from './rewards.js';
import { rewardsPage, rewardSummary } from './reward-records.js';
import type { RewardRecord } from './store.js';
import { slashPage } from './slashing.js';

const COIN = 1_000_000n;
const MIN = 10n * COIN;
const bob = wallet(181);
const carol = wallet(182);
const alphaOwner = wallet(183);
const v1 = wallet(184);
const v0Owner = deriveAddress(VALIDATOR_KEY.publicKey);
let clock = 1_760_000_000_000;

/** Staking's namespace of committed state, as its routes read it. */
function stakingState(f: Fixture): ReadonlyStore {
  const state = f.chain.queries.state;
  return {
    namespace: 'staking',
    get: (k: string) => state.get(`staking/${k}`),
    async getRecord<T>(key: string, codec = jsonRecord<T>()): Promise<T | undefined> {
      const bytes = await state.get(`staking/${key}`);
      return bytes === undefined ? undefined : codec.decode(bytes);
    },
    scan: async (prefix = '', o?: ScanOptions) => (await state.scan(`staking/${prefix}`, o)).map(([k, v]): [string, Uint8Array] => [k.slice('staking/'.length), v]),
  };
}

const delegate = (f: Fixture, w: Wallet, validator: string, amount: bigint) =>
  f.chain.admitOperation('delegate', signOperation(w, { actor: w.address, target: validator, value: Number(amount), nonce: ++clock, body: { delegator: w.address, validator, amount: Number(amount) } }), {}, 0);

test('two payouts to one staker in one block from one source are two records, each naming its counterparty; rewards_total is their sum and what was credited', async () => {
  const f = await makeChain({
    plugins: [stakingPlugin],
    validators: [
      { address: 'chain:v0.node', key: VALIDATOR_KEY, stake: String(10_000n * COIN) },
      { address: 'chain:v1.node', key: v1.keys, stake: String(10_000n * COIN) },
    ],
    accounts: [bob, carol, alphaOwner].map((w) => ({ address: w.address, balance: 1_000n * COIN })),
    genesisParams: { min_stake: String(MIN), unbonding_blocks: '5', reward_interval_blocks: '4', blocks_per_year: '1000' },
  });
  // Height 1: bob delegates to two validators, carol to one of them: at the reward height bob
  // gets two delegation payouts and v0 two commission payouts, all in one block.
  await delegate(f, bob, 'chain:v0.node', 100n * COIN);
  await delegate(f, bob, 'chain:v1.node', 300n * COIN);
  await delegate(f, carol, 'chain:v0.node', 50n * COIN);
  await f.block();
  const bobBefore = (await f.account(bob.address)).balance;
  const ownerBefore = (await f.account(v0Owner)).balance;
  while (f.chain.head.height < 4) await f.block();
  const s = stakingState(f);

  const bobs = (await rewardsPage(s, bob.address, ['delegation'], 100, 0)).rows;
  const share = (amount: bigint): bigint => delegationReward(amount, 1_200n, 1_000n, 3n, 1_000n).delegator;
  const commission = (amount: bigint): bigint => delegationReward(amount, 1_200n, 1_000n, 3n, 1_000n).commission;
  const strip = (r: RewardRecord) => ({ height: r.height, source: r.source, counterparty: r.counterparty, paid_to: r.paid_to, amount: r.amount });
  assert.deepEqual(bobs.map(strip).sort((a, b) => (a.counterparty < b.counterparty ? -1 : 1)), [
    { height: 4, source: 'delegation', counterparty: 'chain:v0.node', paid_to: bob.address, amount: share(100n * COIN) },
    { height: 4, source: 'delegation', counterparty: 'chain:v1.node', paid_to: bob.address, amount: share(300n * COIN) },
  ]);
  const bobSum = await rewardSummary(s, bob.address);
  assert.equal(bobSum.total, share(100n * COIN) + share(300n * COIN), 'rewards_total = the records\' sum');
  assert.equal((await f.account(bob.address)).balance - bobBefore, bobSum.total, 'and exactly what bob was credited');

  const v0 = (await rewardsPage(s, 'chain:v0.node', ['stake', 'delegation', 'commission'], 100, 0)).rows;
  assert.deepEqual(v0.map((r) => [r.source, r.counterparty, r.amount]).sort(), [
    ['commission', bob.address, commission(100n * COIN)],
    ['commission', carol.address, commission(50n * COIN)],
    ['stake', 'chain:v0.node', stakeReward(10_000n * COIN, 2_400n, 4n, 1_000n)],
  ].sort());
  const v0Sum = await rewardSummary(s, 'chain:v0.node');
  assert.equal(v0Sum.total, v0.reduce((n, r) => n + r.amount, 0n));
  assert.equal((await f.account(v0Owner)).balance - ownerBefore, v0Sum.total, 'a node\'s records are credited to its owner (§30)');
  // The events: one reward_paid per record.
  const paid = (await f.chain.queries.getBlockEvents(4)).filter((e) => e.type === 'reward_paid');
  assert.equal(paid.length, 2 /* bob */ + 1 /* carol */ + 3 /* v0 */ + 2 /* v1: stake and bob's commission */);
});

test('reward pages: newest first, by source, offsets and totals from the summary, never more than the page read', async () => {
  const f = await makeChain({
    plugins: [stakingPlugin],
    accounts: [bob].map((w) => ({ address: w.address, balance: 1_000n * COIN })),
    genesisParams: { min_stake: String(MIN), unbonding_blocks: '5', reward_interval_blocks: '2', blocks_per_year: '1000' },
  });
  await delegate(f, bob, 'chain:v0.node', 100n * COIN);
  await f.block();
  while (f.chain.head.height < 10) await f.block(); // payouts at 2, 4, 6, 8, 10
  const base = stakingState(f);
  let rowsRead = 0;
  const s = { ...base, scan: async (prefix?: string, o?: ScanOptions) => {
    const rows = await base.scan(prefix, o);
    rowsRead += rows.length;
    return rows;
  } };
  const page = await rewardsPage(s, 'chain:v0.node', ['stake', 'commission'], 3, 2);
  assert.equal(page.total, 10);
  assert.equal(rowsRead, 2 * (2 + 3), 'each source read only as far as offset + limit');
  // Each reward height pays the stake, then the delegation's commission: newest first, past two.
  assert.deepEqual(page.rows.map((r) => `${r.height}:${r.source}`), ['8:commission', '8:stake', '6:commission']);
  const commissions = await rewardsPage(s, 'chain:v0.node', ['commission'], 2, 0);
  assert.deepEqual([commissions.total, commissions.rows.map((r) => r.height)], [5, [10, 8]]);
  assert.deepEqual(await rewardsPage(s, 'chain:v0.node', ['commission'], 2, 5), { rows: [], total: 5 });
  assert.deepEqual(await rewardsPage(s, 'chain:nobody.node', ['stake'], 2, 0), { rows: [], total: 0 });
});

test('one offence per validator per height and round, whatever the vote types: a prevote and a precommit equivocation of one round slash once; another round is another offence', async () => {
  const f = await makeChain({
    plugins: [stakingPlugin],
    validators: [
      { address: 'chain:v0.node', key: VALIDATOR_KEY, stake: String(10_000n * COIN) },
      { address: 'chain:v1.node', key: v1.keys, stake: String(10_000n * COIN) },
    ],
    genesisParams: { min_stake: String(MIN), jail_blocks: '3' },
  });
  // The kernel names evidence by vote type too: prevotes and precommits of (1, 0) are two pieces.
  const piece = (hash: string, round: number) => ({ hash, kind: 'duplicate-vote' as const, validator: 'chain:v1.node', height: 1, round, raw: { test: hash } });
  const prevotes = piece('0x' + '01'.repeat(32), 0);
  const precommits = piece('0x' + '02'.repeat(32), 0);
  const nextRound = piece('0x' + '03'.repeat(32), 1);
  const lateSameRound = piece('0x' + '04'.repeat(32), 0);
  const byHash = new Map([prevotes, precommits, nextRound, lateSameRound].map((e) => [e.hash, e]));
  f.evidenceVerifier = async (raw) => byHash.get((raw as { test: string }).test) ?? null;
  const block = async (evidence: Array<ReturnType<typeof piece>>) => {
    const p = await f.chain.propose(0, 'chain:v0.node', ++clock, evidence);
    assert.equal(await f.chain.validate(p), null);
    return f.chain.finalize(p);
  };
  const slashed = (MIN * 500n) / 10_000n;
  const stakeOf = async () => BigInt((JSON.parse(new TextDecoder().decode((await f.chain.queries.state.get('staking/stake/chain:v1.node'))!)) as { amount: { $big: string } }).amount.$big);
  // Both pieces in one block.
  const b = await block([prevotes, precommits]);
  assert.equal(await stakeOf(), 10_000n * COIN - slashed, 'slashed once');
  const events = await f.chain.queries.getBlockEvents(b.header.height);
  assert.equal(events.filter((e) => e.type === 'evidence').length, 2, 'the kernel applied both pieces');
  assert.equal(events.filter((e) => e.type === 'validator_slashed').length, 1, 'one offence');
  // A piece of the same (height, round) in a later block changes nothing either.
  await block([lateSameRound]);
  assert.equal(await stakeOf(), 10_000n * COIN - slashed);
  const s = stakingState(f);
  assert.equal((await slashPage(s, 10, 0)).total, 1);
  // Another round of the same height is another offence.
  await block([nextRound]);
  assert.equal(await stakeOf(), 10_000n * COIN - 2n * slashed);
  const page = await slashPage(s, 10, 0);
  assert.deepEqual(page.rows.map((r) => [r.offence_height, r.offence_round, r.evidence]), [[1, 1, nextRound.hash], [1, 0, prevotes.hash]], 'newest first, both kept');
  assert.equal(page.total, 2);
});
