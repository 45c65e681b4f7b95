import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeChain, signOperation, signTransfer, VALIDATOR_KEY, wallet, type Fixture, type Wallet } from '../../test/helpers/chain-fixture.js';
import { deriveAddress, toHex } from '../../kernel/sdk.js';
import { stakingPlugin } from './index.js';
import { heldSupply, recordedSum, rewardRecords, RewardModel, sortedRewards } from '../../test/helpers/supply-model.js';
import { cataloguedPlugin } from '../../test/helpers/catalogued-plugin.js';
const namesPlugin = cataloguedPlugin('names');

/**
 * The supply over a run, to the ucoin: after every block, every balance plus every stake and
 * delegation the plugin holds equals the genesis supply plus the rewards minted, less the fees
 * burned and the slashes burned. The rewards are computed here independently, from the formula
 * of decisions.md §33 applied to a model of the positions the run opens and closes (staking has
 * no escrow of its own: stakes and delegations are its only holdings). A name's price and the NFT fee
(plugins/names) leave the supply as burns, counted in `total_burned`.
 */
const COIN = 1_000_000n;
const MIN = 10n * COIN;
const INTERVAL = 4;
const UNBONDING = 5;
const BPY = 1_000n;
const BASE = 1_200n;
const GENESIS = 2_400n;
const COMMISSION = 1_000n;
const recordedMinted = (rs: ReadonlyArray<{ amount: bigint }>): bigint => rs.reduce((n, r) => n + r.amount, 0n);
const alice = wallet(141);
const bob = wallet(142);
const v1 = wallet(143);
const alphaConsensus = wallet(144);
let clock = 1_700_000_100_000;

test('supply is conserved to the ucoin over a run of registrations, stakes, delegations, transfers to a .node, rewards, a slash, unstake and undelegate', async () => {
  const f = await makeChain({
    plugins: [stakingPlugin, namesPlugin],
    validators: [
      { address: 'chain:v0.node', key: VALIDATOR_KEY, stake: String(10_000n * COIN) },
      { address: 'chain:v1.node', key: v1.keys, stake: String(10_000n * COIN) },
    ],
    accounts: [alice, bob].map((w) => ({ address: w.address, balance: 1_000n * COIN })),
    genesisParams: { min_stake: String(MIN), unbonding_blocks: String(UNBONDING), reward_interval_blocks: String(INTERVAL), blocks_per_year: String(BPY), jail_blocks: '3' },
  });
  const genesisSupply = 2_000n * COIN + 20_000n * COIN;
  const model = new RewardModel({ interval: INTERVAL, blocksPerYear: BPY });
  model.open('stake:chain:v0.node', { amount: 10_000n * COIN, paid: 0, rate: GENESIS, who: { staker: 'chain:v0.node' } });
  model.open('stake:chain:v1.node', { amount: 10_000n * COIN, paid: 0, rate: GENESIS, who: { staker: 'chain:v1.node' } });
  let slashBurned = 0n;
  const op = (w: Wallet, name: string, target: string, actor: string, body: Record<string, unknown>, value = 0, gasPrice?: number) =>
    f.chain.admitOperation(name, signOperation(w, { actor, target, value, nonce: ++clock, body, ...(gasPrice !== undefined ? { gas_price: gasPrice } : {}) }), name === 'update_node_profile' ? { address: actor } : {}, 0);
  const check = async (h: number): Promise<void> => {
    const held = await heldSupply(f.chain.queries.state);
    const expected = genesisSupply + model.minted - f.chain.head.total_burned - slashBurned;
    assert.equal(recordedMinted(await rewardRecords(f.chain.queries.state)), model.minted, `height ${h}: every credit a reward record`);
    assert.equal(held.total, expected, `height ${h}: ${JSON.stringify(held, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))}`);
  };
  /** One block at the next height; `txs` admitted before it, the model told what they do. */
  const block = async (txs: () => Promise<unknown>, apply: (h: number) => void, evidence: Parameters<Fixture['chain']['propose']>[3] = []): Promise<number> => {
    const h = f.chain.head.height + 1;
    await txs();
    clock += 1_000;
    const p = await f.chain.propose(0, 'chain:v0.node', clock, evidence);
    assert.equal(await f.chain.validate(p), null);
    const b = await f.chain.finalize(p);
    for (const hash of b.tx_hashes) assert.equal((await f.chain.queries.getTx(hash))?.receipt.status, 'confirmed', `height ${h}: ${String((await f.chain.queries.getTx(hash))?.receipt.error)}`);
    model.begin(h);
    apply(h);
    await check(h);
    return h;
  };

  // Height 1: a node registered (min_stake bonded), a delegation paying twice base_fee (the tip
  // goes to the proposer's owner), a second delegation of bob's to another validator (two payouts
  // to bob in every reward block), a plain transfer to a .node (its owner is credited).
  await block(
    async () => {
      await op(alice, 'register_node', 'chain:system.node', alice.address, { name: 'alpha', owner: alice.address, consensus_public_key: alphaConsensus.publicKeyHex });
      await op(bob, 'delegate', 'chain:v0.node', bob.address, { delegator: bob.address, validator: 'chain:v0.node', amount: Number(100n * COIN) }, Number(100n * COIN), 2);
      await op(bob, 'delegate', 'chain:v1.node', bob.address, { delegator: bob.address, validator: 'chain:v1.node', amount: Number(70n * COIN) }, Number(70n * COIN));
      await f.chain.admit(signTransfer(alice, { to: 'chain:v1.node', value: 5_000_000, nonce: 1 }), 0);
      // A name bought: its price (80 COIN for 5 characters) is burned (decisions.md §38).
      await op(alice, 'register_human', 'chain:system.name', alice.address, { name: 'alice', owner: alice.address });
    },
    (h) => {
      model.open('stake:chain:alpha.node', { amount: MIN, paid: h, rate: BASE, who: { staker: 'chain:alpha.node' } });
      model.open('delegation:bob', { amount: 100n * COIN, paid: h, rate: BASE, commission: COMMISSION, who: { staker: bob.address, validator: 'chain:v0.node' } });
      model.open('delegation:bob:v1', { amount: 70n * COIN, paid: h, rate: BASE, commission: COMMISSION, who: { staker: bob.address, validator: 'chain:v1.node' } });
    },
  );
  // Height 2: an addition pays what accrued and restarts the lock; the name moves to bob (100 ucoin
  // burned, §40) and a transfer to it credits bob.
  await block(
    async () => {
      await op(alice, 'stake', 'chain:system.stake', 'chain:alpha.node', { address: 'chain:alpha.node', amount: Number(20n * COIN) }, Number(20n * COIN));
      await op(alice, 'transfer_nft', 'chain:alice.human', alice.address, { nft_address: 'chain:alice.human', from: alice.address, to: bob.address });
      await f.chain.admit(signTransfer(alice, { to: 'chain:alice.human', value: 777, nonce: 2 }), 0);
    },
    (h) => model.add('stake:chain:alpha.node', h, 20n * COIN),
  );
  // Height 3: double-sign evidence against v1: 5 % of min_stake, 1 % of that to the reporter.
  const evidence = { hash: '0x' + 'cd'.repeat(32), kind: 'duplicate-vote' as const, validator: 'chain:v1.node', height: 2, round: 0, raw: { test: true } };
  f.evidenceVerifier = async () => evidence;
  await block(async () => undefined, () => {
    const slashed = (MIN * 500n) / 10_000n;
    model.positions.get('stake:chain:v1.node')!.amount -= slashed;
    slashBurned += slashed - (slashed * 100n) / 10_000n;
  }, [evidence]);
  // Heights 4–5: a reward height, then a commission change (the next payout's split).
  await block(async () => undefined, () => undefined);
  await block(
    // Signed by v0's owner, whose key is the validator key (decisions.md §19).
    () => op(wallet(200), 'update_node_profile', 'chain:system.node', 'chain:v0.node', { commission_bps: 1_500 }),
    () => {
      model.positions.get('delegation:bob')!.commission = 1_500n;
    },
  );
  // Height 6: undelegate at its unlock height (1 + 5): paid what accrued, returned whole.
  await block(
    () => op(bob, 'undelegate', 'chain:v0.node', bob.address, { delegator: bob.address, validator: 'chain:v0.node' }),
    (h) => model.close('delegation:bob', h),
  );
  // Height 7: unstake at its unlock height (2 + 5), to the owner.
  await block(
    () => op(alice, 'unstake', 'chain:system.stake', 'chain:alpha.node', { address: 'chain:alpha.node' }),
    (h) => model.close('stake:chain:alpha.node', h),
  );
  // Through three more reward heights, the jailed validator back in between.
  while (f.chain.head.height < 16) await block(async () => undefined, () => undefined);

  assert.ok(model.minted > 0n);
  assert.equal(await recordedSum(f.chain.queries.state, 'staking/reward/', 'amount'), model.minted, 'the reward records hold exactly what the formula mints');
  // Record by record (decisions.md §97): every payout the formula makes is one record, with its counterparty.
  const records = await rewardRecords(f.chain.queries.state);
  assert.deepEqual(sortedRewards(records), sortedRewards(model.payouts));
  assert.ok(records.filter((r) => r.staker === bob.address && r.height === 4).length === 2, 'bob: two delegation payouts in one block, two records');
  assert.equal(await recordedSum(f.chain.queries.state, 'staking/slash/', 'burned'), slashBurned);
  assert.equal(slashBurned, 495_000n);
  assert.ok(f.chain.head.total_burned > 80n * COIN + 100n, 'the name\'s price and the NFT fee are among the burned');
  // v0's owner collected the reporter's share, the tip, its commission and its stake rewards.
  assert.ok((await f.account(deriveAddress(VALIDATOR_KEY.publicKey))).balance > 5_000n);
});
