import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeChain, refused, signOperation, VALIDATOR_KEY, wallet, type Fixture, type Wallet } from '../../test/helpers/chain-fixture.js';
import { deriveAddress, toHex, type ReadonlyStore } from '../../kernel/sdk.js';
import { memoPlugin } from '../../test/fixtures/sdk-test-plugins.js';
import { governancePlugin } from './index.js';
import { outcome } from './tally.js';
import { proposalPage } from './store.js';
import { PROPOSE_BASE_GAS } from './params.js';
import { proposalTextGas } from './rules.js';
import { cataloguedPlugin } from '../../test/helpers/catalogued-plugin.js';
const stakingPlugin = cataloguedPlugin('staking');

const alice = wallet(111);
const bob = wallet(112);
const carol = wallet(113);
const validatorOwner = { keys: VALIDATOR_KEY, publicKeyHex: toHex(VALIDATOR_KEY.publicKey), address: deriveAddress(VALIDATOR_KEY.publicKey) };
const COIN = 1_000_000n;
const MIN = 10n * COIN;
const GOV = 'chain:system.governance';
let clock = 1_800_000_000_000;
const nonce = (): number => ++clock;

async function chain(params: Record<string, string> = {}): Promise<Fixture> {
  return makeChain({
    plugins: [stakingPlugin, memoPlugin, governancePlugin],
    // memo is listed but not switched on: governance activates it.
    pluginConfig: [{ name: 'staking' }, { name: 'memo', enabled: false } as { name: string }, { name: 'governance' }],
    accounts: [alice, bob, carol, validatorOwner].map((w) => ({ address: w.address, balance: 1_000n * COIN })),
    genesisParams: { min_stake: String(MIN), unbonding_blocks: '5', reward_interval_blocks: '1000', blocks_per_year: '1000', ...params },
  });
}

function op(w: Pick<Wallet, 'keys' | 'publicKeyHex'>, actor: string, body: Record<string, unknown>, version: 'v2' | 'v3' = 'v2'): Record<string, unknown> {
  return signOperation(w, { actor, target: GOV, nonce: nonce(), body, version });
}


async function proposal(f: Fixture, id: number): Promise<Record<string, unknown>> {
  const raw = await f.chain.queries.state.get(`governance/proposal/${String(id).padStart(12, '0')}`);
  assert.ok(raw, `proposal ${id} exists`);
  return JSON.parse(new TextDecoder().decode(raw)) as Record<string, unknown>;
}

const propose = (f: Fixture, w: Pick<Wallet, 'keys' | 'publicKeyHex'>, proposer: string, body: Record<string, unknown>) =>
  f.chain.admitOperation('propose', op(w, proposer, { proposer, title: 't', description: 'd', voting_duration: 100, ...body }), {}, 0);

const castVote = (f: Fixture, w: Pick<Wallet, 'keys' | 'publicKeyHex'>, voter: string, id: number, accept: boolean) => f.chain.admitOperation('vote', op(w, voter, { voter, accept }), { id: String(id) }, 0);

async function blocksUntil(f: Fixture, height: number): Promise<void> {
  while (f.chain.head.height < height) await f.block();
}

test('the tally: quorum on total self-stake, threshold on the weight cast, in integers', () => {
  const p = { quorum_bps: 2_000n, threshold_bps: 5_000n };
  assert.equal(outcome({ ...p, yes_weight: 20n, no_weight: 0n }, 100n), 'passed');
  assert.equal(outcome({ ...p, yes_weight: 19n, no_weight: 0n }, 100n), 'rejected', 'short of quorum');
  assert.equal(outcome({ ...p, yes_weight: 15n, no_weight: 15n }, 100n), 'rejected', 'yes must be more than half');
  assert.equal(outcome({ ...p, yes_weight: 0n, no_weight: 0n }, 0n), 'rejected', 'no votes never pass');
});

test('propose: kinds, limits, window, the parameter named, a .human below min_stake is 403', async () => {
  const f = await chain();
  await refused(propose(f, alice, alice.address, { kind: 'text' }), 403, /self-stake of at least min_stake/);
  // The role before the fee (decisions.md §16, §31): an account that could not even pay is told 403 too.
  const penniless = wallet(119);
  await refused(propose(f, penniless, penniless.address, { kind: 'text' }), 403, /self-stake of at least min_stake/);
  await refused(castVote(f, penniless, penniless.address, 1, true), 404, /./);
  await f.chain.admitOperation('stake', signOperation(alice, { actor: alice.address, target: 'chain:system.stake', value: Number(MIN), nonce: nonce(), body: { address: alice.address, amount: Number(MIN) } }), {}, 0);
  await f.block();
  await refused(propose(f, alice, alice.address, { kind: 'SPEND' }), 400, /unknown proposal kind/);
  await refused(propose(f, alice, alice.address, { kind: 'text', title: 'x'.repeat(201) }), 400, /title is longer than 200/);
  await refused(propose(f, alice, alice.address, { kind: 'text', description: 'x'.repeat(5001) }), 400, /description is longer than 5000/);
  await refused(propose(f, alice, alice.address, { kind: 'text', payload: { a: 'x'.repeat(10 * 1024) } }), 400, /payload is \d+ bytes/);
  await refused(propose(f, alice, alice.address, { kind: 'text', voting_duration: 99 }), 400, /voting_duration 99 is outside/);
  await refused(propose(f, alice, alice.address, { kind: 'PARAM_CHANGE', payload: { param_key: 'no_such', param_value: '1' } }), 400, /unknown parameter "no_such"/);
  await refused(propose(f, alice, alice.address, { kind: 'PARAM_CHANGE', payload: { param_key: 'max_block_gas', param_value: '1.5' } }), 400, /integer written as a string/);
  const tally = f.chain.head.height + 1 + 100;
  await refused(propose(f, alice, alice.address, { kind: 'PARAM_CHANGE', payload: { param_key: 'plugin:memo', param_value: `activate@${tally}` } }), 400, /must be after the tally/);
  await refused(propose(f, alice, alice.address, { kind: 'PARAM_CHANGE', payload: { param_key: 'plugin:ghost', param_value: `activate@${tally + 5}` } }), 400, /not a state plugin/);
  // The default window is 1 000 blocks.
  await f.chain.admitOperation('propose', op(alice, alice.address, { proposer: alice.address, title: 'signal', kind: 'text' }), {}, 0);
  const h = (await f.block()).header.height;
  const p = await proposal(f, 1);
  assert.equal(p.voting_duration, 1000);
  assert.equal(p.end_height, h + 1000);
  assert.equal(p.status, 'active');
});

test('a PARAM_CHANGE passes and holds from the next height; out of range passes and is not applied; votes: stake after creation 403, twice 400, late 400', async () => {
  const f = await chain();
  // alice bonds before the proposals, bob after.
  await f.chain.admitOperation('stake', signOperation(alice, { actor: alice.address, target: 'chain:system.stake', value: Number(MIN), nonce: nonce(), body: { address: alice.address, amount: Number(MIN) } }), {}, 0);
  await f.block();
  await propose(f, validatorOwner, 'chain:v0.node', { kind: 'PARAM_CHANGE', payload: { param_key: 'max_block_gas', param_value: '20000' } });
  await propose(f, validatorOwner, 'chain:v0.node', { kind: 'PARAM_CHANGE', payload: { param_key: 'max_block_gas', param_value: '0' } });
  const created = (await f.block()).header.height;
  await f.chain.admitOperation('stake', signOperation(bob, { actor: bob.address, target: 'chain:system.stake', value: Number(MIN), nonce: nonce(), body: { address: bob.address, amount: Number(MIN) } }), {}, 0);
  await f.block();
  await refused(castVote(f, bob, bob.address, 1, true), 403, /not before proposal 1 was created/);
  await refused(castVote(f, carol, carol.address, 1, true), 403, /no self-stake/);
  await refused(castVote(f, alice, alice.address, 9, true), 404, /proposal 9 not found/);
  await castVote(f, validatorOwner, 'chain:v0.node', 1, true);
  await castVote(f, validatorOwner, 'chain:v0.node', 2, true);
  await castVote(f, alice, alice.address, 1, false);
  await f.block();
  await refused(castVote(f, validatorOwner, 'chain:v0.node', 1, false), 400, /already voted/);
  // A second vote put straight into a block (past admission) fails there.
  const again = f.chain.rebuildTx('signed', f.operations.envelope('vote', op(validatorOwner, 'chain:v0.node', { voter: 'chain:v0.node', accept: false }), { id: '1' }), 1n, 0);
  f.chain.mempool.add(again);
  await f.block();
  assert.equal((await f.chain.queries.getTx(again.hash))?.receipt.status, 'failed');
  const end = created + 100;
  await blocksUntil(f, end - 1);
  assert.equal(await f.chain.queries.param('max_block_gas'), 10_000n);
  await blocksUntil(f, end);
  const passed = await proposal(f, 1);
  assert.equal(passed.status, 'passed');
  assert.equal(passed.applied, true);
  assert.equal(await f.chain.queries.param('max_block_gas'), 20_000n, 'the new value holds from the next height');
  const refusedChange = await proposal(f, 2);
  assert.equal(refusedChange.status, 'passed');
  assert.equal(refusedChange.applied, false);
  assert.match(String(refusedChange.apply_error), /max_block_gas" must be between 1 and 1000000000/);
  await refused(castVote(f, alice, alice.address, 2, true), 400, /is closed/);
});

test('a proposal short of quorum is rejected', async () => {
  const f = await chain();
  await f.chain.admitOperation('stake', signOperation(alice, { actor: alice.address, target: 'chain:system.stake', value: Number(MIN), nonce: nonce(), body: { address: alice.address, amount: Number(MIN) } }), {}, 0);
  await f.block();
  await propose(f, alice, alice.address, { kind: 'PARAM_CHANGE', payload: { param_key: 'max_block_gas', param_value: '30000' } });
  const created = (await f.block()).header.height;
  await castVote(f, alice, alice.address, 1, true);
  await blocksUntil(f, created + 100);
  const p = await proposal(f, 1);
  assert.equal(p.status, 'rejected');
  assert.equal(p.applied, null, 'a rejected proposal applies nothing');
  assert.equal(await f.chain.queries.param('max_block_gas'), 10_000n);
});

test('the quorum is measured against the self-stake when the proposal\'s block began: voting and then unstaking does not shrink it (decisions.md §98)', async () => {
  const f = await makeChain({
    plugins: [stakingPlugin, governancePlugin],
    accounts: [alice, bob, validatorOwner].map((w) => ({ address: w.address, balance: 1_000n * COIN })),
    // 5 %: alice's 510 COIN is below 5 % of the 10 510 COIN bonded when the proposal is created,
    // and at or above 5 % of the 10 000 COIN left once she unstakes.
    genesisParams: { min_stake: String(MIN), unbonding_blocks: '5', reward_interval_blocks: '100000', blocks_per_year: '1000', quorum_bps: '500' },
  });
  const stake = (w: Wallet, amount: bigint) => f.chain.admitOperation('stake', signOperation(w, { actor: w.address, target: 'chain:system.stake', value: Number(amount), nonce: nonce(), body: { address: w.address, amount: Number(amount) } }), {}, 0);
  await stake(alice, 510n * COIN);
  const bonded = (await f.block()).header.height;
  // bob stakes in the proposal's own block, before it: that stake cannot vote, so it is not in the base.
  await stake(bob, MIN);
  await propose(f, validatorOwner, 'chain:v0.node', { kind: 'text' });
  const created = (await f.block()).header.height;
  const base = 10_000n * COIN + 510n * COIN;
  assert.deepEqual((await proposal(f, 1)).total_stake, { $big: String(base) }, 'recorded at creation: the total when the block began');
  await castVote(f, alice, alice.address, 1, true);
  await f.block();
  await blocksUntil(f, bonded + 5 - 1);
  await f.chain.admitOperation('unstake', signOperation(alice, { actor: alice.address, target: 'chain:system.stake', nonce: nonce(), body: { address: alice.address } }), {}, 0);
  await f.block();
  assert.ok(f.chain.head.height < created + 100, 'unstaked inside the window');
  await blocksUntil(f, created + 100);
  const p = await proposal(f, 1);
  assert.deepEqual([p.status, p.yes_weight, p.total_stake], ['rejected', { $big: String(510n * COIN) }, { $big: String(base) }], 'below quorum against the base; the shrunk total would have passed it');
  assert.ok(510n * COIN * 10_000n >= 500n * (10_000n * COIN + MIN), 'the total at the tally was small enough to pass');
});

test('plugin:<name> activates a state plugin at the agreed height, then retires it; its operations answer 403 outside that span', async () => {
  const f = await chain();
  const memo = () => f.chain.admitOperation('set_memo', signOperation(alice, { actor: alice.address, target: 'chain:system.memo', nonce: nonce(), body: { address: alice.address, text: 'hi' } }), {}, 0);
  await refused(memo(), 403, /plugin "memo" is available, not active/);
  const at = f.chain.head.height + 1 + 100 + 5;
  await propose(f, validatorOwner, 'chain:v0.node', { kind: 'PARAM_CHANGE', payload: { param_key: 'plugin:memo', param_value: `activate@${at}` } });
  const created = (await f.block()).header.height;
  await castVote(f, validatorOwner, 'chain:v0.node', 1, true);
  await blocksUntil(f, created + 100);
  const p = await proposal(f, 1);
  assert.equal(p.applied, true, String(p.apply_error));
  await refused(memo(), 403, new RegExp(`scheduled, not active.*activates at height ${at}`));
  await blocksUntil(f, at - 1);
  await memo();
  await f.block();
  assert.ok(await f.chain.queries.state.get(`memo/memo/${alice.address}`), 'memo ran from its activation height');
  const retireAt = f.chain.head.height + 1 + 100 + 3;
  await propose(f, validatorOwner, 'chain:v0.node', { kind: 'PARAM_CHANGE', payload: { param_key: 'plugin:memo', param_value: `retire@${retireAt}` } });
  const created2 = (await f.block()).header.height;
  await castVote(f, validatorOwner, 'chain:v0.node', 2, true);
  await blocksUntil(f, retireAt - 1);
  assert.equal((await proposal(f, 2)).applied, true);
  assert.ok(created2 + 100 < retireAt);
  await refused(memo(), 403, /retired, not active/);
  assert.ok(await f.chain.queries.state.get(`memo/memo/${alice.address}`), 'a retired plugin\'s state stays');
});

test('a vote signed ch-tx-v3/v4 over part 1\'s body (no id) is accepted; one that carries the id is bound to that proposal', async () => {
  const f = await chain();
  for (let i = 0; i < 3; i++) await propose(f, validatorOwner, 'chain:v0.node', { kind: 'text' });
  await f.block();
  // decisions.md §94: the payload is the body as sent, and part 1's vote body has no id.
  const bare = signOperation(validatorOwner, { actor: 'chain:v0.node', target: GOV, nonce: nonce(), body: { voter: 'chain:v0.node', accept: true }, version: 'v4', kind: 'vote' });
  await f.chain.admitOperation('vote', bare, { id: '1' }, 0);
  const covered = signOperation(validatorOwner, { actor: 'chain:v0.node', target: GOV, nonce: nonce(), body: { id: '2', voter: 'chain:v0.node', accept: true }, version: 'v3' });
  await refused(f.chain.admitOperation('vote', covered, { id: '1' }, 0), 400, /the body says "2" but the path says "1"/);
  await f.chain.admitOperation('vote', covered, { id: '2' }, 0);
  // A socket client signs its params, id included (a number here), and the gateway sends the id in the path only: heard too, for that id alone.
  const viaSocket = signOperation(validatorOwner, { kind: 'vote', actor: 'chain:v0.node', target: GOV, nonce: nonce(), body: { id: 3, voter: 'chain:v0.node', accept: false }, version: 'v4' });
  delete viaSocket.id;
  await refused(f.chain.admitOperation('vote', viaSocket, { id: '2' }, 0), 401, /invalid signature/);
  await f.chain.admitOperation('vote', viaSocket, { id: '3' }, 0);
  await f.block();
  assert.deepEqual([(await proposal(f, 1)).votes, (await proposal(f, 2)).votes, (await proposal(f, 3)).votes], [1, 1, 1]);
});

test('stake added after a proposal was created cannot vote on it: a top-up of an older stake is 403, at admission and in a block', async () => {
  const f = await chain();
  const stake = (w: Wallet, amount: bigint) => f.chain.admitOperation('stake', signOperation(w, { actor: w.address, target: 'chain:system.stake', value: Number(amount), nonce: nonce(), body: { address: w.address, amount: Number(amount) } }), {}, 0);
  // alice and bob both bond before the proposal; bob then adds 50 × MIN (coins alice could have
  // unstaked after her own vote): without the rule that addition would vote with his old stake.
  await stake(alice, MIN);
  await stake(bob, MIN);
  await f.block();
  await propose(f, validatorOwner, 'chain:v0.node', { kind: 'text' });
  await f.block();
  await stake(bob, 50n * MIN);
  await f.block();
  await refused(castVote(f, bob, bob.address, 1, true), 403, /added self-stake at height \d+, after proposal 1 was created/);
  const injected = f.chain.rebuildTx('signed', f.operations.envelope('vote', op(bob, bob.address, { voter: bob.address, accept: true }), { id: '1' }), 1n, 0);
  f.chain.mempool.add(injected);
  await castVote(f, alice, alice.address, 1, true);
  await f.block();
  assert.equal((await f.chain.queries.getTx(injected.hash))?.receipt.status, 'failed');
  const p = await proposal(f, 1);
  assert.equal(p.votes, 1, 'only alice, whose stake did not change since the proposal');
  assert.deepEqual(p.yes_weight, { $big: String(MIN) });
});

test('the proposals list reads only its page: by id, or by status through the status index', async () => {
  const f = await chain();
  await f.chain.admitOperation('stake', signOperation(alice, { actor: alice.address, target: 'chain:system.stake', value: Number(MIN), nonce: nonce(), body: { address: alice.address, amount: Number(MIN) } }), {}, 0);
  await f.block();
  await propose(f, alice, alice.address, { kind: 'text' });
  const first = (await f.block()).header.height;
  await propose(f, alice, alice.address, { kind: 'text', voting_duration: 200 });
  await propose(f, alice, alice.address, { kind: 'text', voting_duration: 200 });
  await f.block();
  await blocksUntil(f, first + 100);
  // The governance namespace of committed state, counting the proposal records read.
  const state = f.chain.queries.state;
  let proposalsRead = 0;
  const counting = {
    namespace: 'governance',
    async get(key: string): Promise<Uint8Array | undefined> {
      if (key.startsWith('proposal/')) proposalsRead++;
      return state.get(`governance/${key}`);
    },
    scan: async (prefix = '') => (await state.scan(`governance/${prefix}`)).map(([k, v]): [string, Uint8Array] => [k.slice('governance/'.length), v]),
  } as unknown as ReadonlyStore;
  const ids = (page: { rows: Array<{ id: number; status: string }> }): string => page.rows.map((p) => `${p.id}:${p.status}`).join(',');
  const all = await proposalPage(counting, undefined, 2, 1);
  assert.equal(all.total, 3);
  assert.equal(ids(all), '2:active,3:active');
  assert.equal(proposalsRead, 2, 'only the page was read');
  assert.deepEqual([ids(await proposalPage(counting, 'active', 10, 0)), (await proposalPage(counting, 'active', 10, 0)).total], ['2:active,3:active', 2]);
  assert.deepEqual([ids(await proposalPage(counting, 'rejected', 10, 0)), (await proposalPage(counting, 'rejected', 10, 0)).total], ['1:rejected', 1]);
  assert.equal((await proposalPage(counting, 'passed', 10, 0)).total, 0);
  assert.deepEqual((await proposalPage(counting, undefined, 10, 5)), { rows: [], total: 3 });
});

test('a proposal\'s text is priced: base gas plus 1 per 10 bytes of title, description and payload beyond 2 KiB, at admission and in a block proposed without checkTx (issue 29 item 9)', async () => {
  const f = await chain();
  assert.equal(f.operations.get('propose')?.spec.gas, PROPOSE_BASE_GAS, 'the estimate\'s operations.propose is the base');
  const big = { kind: 'text', title: 'big', description: 'x'.repeat(5_000), payload: { note: 'y'.repeat(10_000) } };
  const bigGas = PROPOSE_BASE_GAS + Math.ceil((3 + 5_000 + 4 + 10_000 - 2_048) / 10);
  const small = (await propose(f, validatorOwner, 'chain:v0.node', { kind: 'text' })).tx_hash;
  const large = (await propose(f, validatorOwner, 'chain:v0.node', big)).tx_hash;
  // A proposer that skips checkTx includes the same text for a proposer who may not file it, and a valid one.
  const inject = (w: Pick<Wallet, 'keys' | 'publicKeyHex'>, proposer: string) => {
    const tx = f.chain.rebuildTx('signed', f.operations.envelope('propose', op(w, proposer, { proposer, voting_duration: 100, ...big }), {}), 1n, 0);
    f.chain.mempool.add(tx);
    return tx.hash;
  };
  const unstaked = inject(bob, bob.address);
  const skipped = inject(validatorOwner, 'chain:v0.node');
  await f.block();
  const receipt = async (hash: string) => (await f.chain.queries.getTx(hash))!.receipt;
  const [s, l, u, k] = await Promise.all([small, large, unstaked, skipped].map(receipt));
  assert.deepEqual([2_048, 2_049, 2_058, 2_059].map((n) => proposalTextGas({ title: 'x'.repeat(n) })), [0, 1, 1, 2], 'the allowance, then 1 gas per 10 bytes rounded up');
  assert.equal(proposalTextGas({ title: 7, description: ['x'], payload: 'y'.repeat(9_000) }), 0, 'fields of another type count nothing (the rules refuse them)');
  assert.deepEqual([s!.status, s!.gas], ['confirmed', PROPOSE_BASE_GAS], 'an ordinary proposal costs exactly the estimate\'s figure (§18)');
  assert.deepEqual([l!.status, l!.gas, l!.fee], ['confirmed', bigGas, BigInt(bigGas)], '15 007 bytes: 1 296 gas on top of the base, at base_fee 1');
  assert.deepEqual([u!.status, u!.gas, u!.fee], ['failed', bigGas, BigInt(bigGas)], 'refused in the block, charged for its text all the same');
  assert.deepEqual([k!.status, k!.gas], ['confirmed', bigGas], 'the block path charges what admission would');
});

test('a proposal whose text would take more gas than a block holds is refused at admission (blocks are bounded by max_block_gas, so none could carry it)', async () => {
  const f = await chain({ max_block_gas: '800' });
  const text = { kind: 'text', title: 't', description: 'x'.repeat(5_000), payload: { note: 'y'.repeat(5_000) } };
  await refused(propose(f, validatorOwner, 'chain:v0.node', text), 400, /its gas 896 exceeds max_block_gas 800: no block could include the transaction/);
});
