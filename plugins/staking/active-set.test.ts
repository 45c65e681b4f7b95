import { test } from 'node:test';
import assert from 'node:assert/strict';
import { labelledWallet, makeChain, refused, signOperation, VALIDATOR_KEY, wallet, type Fixture } from '../../test/helpers/chain-fixture.js';
import { deriveAddress, jsonRecord, MAX_VALIDATORS, toHex, type ScanOptions, type Store } from '../../kernel/sdk.js';
import { stakingPlugin } from './index.js';
import { activeSet } from './active-set.js';
import { parseRankKey, putNode, putStake, rankKey, type NodeRecord } from './store.js';

const COIN = 1_000_000n;
const MIN = 10n * COIN;
const KEY = 'ab'.repeat(1952);

/** A plugin store over a map, with the bounded scans of the SDK: enough for the ranking's own reads. */
function mapStore(): Store {
  const map = new Map<string, Uint8Array>();
  const codec = jsonRecord<unknown>();
  return {
    namespace: 'staking',
    get: async (k) => map.get(k),
    getRecord: async <T>(k: string, c = jsonRecord<T>()) => {
      const v = map.get(k);
      return v === undefined ? undefined : c.decode(v);
    },
    scan: async (prefix = '', o: ScanOptions = {}) => {
      let rows = [...map.entries()].filter(([k]) => k.startsWith(prefix)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      if (o.reverse) rows = rows.reverse();
      return o.limit === undefined ? rows : rows.slice(0, o.limit);
    },
    set: (k, v) => void map.set(k, v),
    setRecord: <T>(k: string, v: T, c = jsonRecord<T>()) => void map.set(k, (c as typeof codec).encode(v)),
    delete: (k) => void map.delete(k),
  };
}

const node = (address: string, extra: Partial<NodeRecord> = {}): NodeRecord => ({ address, owner: 'chain:owner.human', consensus_public_key: KEY, commission_bps: 1_000n, description: '', website: '', p2p_endpoint: '', rpc_endpoint: '', registered_height: 1, jailed_until: 0, ...extra });

async function withNodes(nodes: Array<[string, bigint, Partial<NodeRecord>?]>): Promise<Store> {
  const s = mapStore();
  for (const [address, stake, extra] of nodes) {
    await putNode(s, node(address, extra));
    await putStake(s, address, { amount: stake, unlock_height: 0, paid_to: 0, genesis: false, bonded_height: 1, added_height: 1 }, 1);
  }
  return s;
}

const addresses = (set: ReadonlyArray<{ address: string }>): string[] => set.map((v) => v.address);

test('rank keys order by stake descending, then address in ascending byte order, and read back what they name', () => {
  const keys = [rankKey('chain:b.node', 5n), rankKey('chain:a.node', 5n), rankKey('chain:z.node', 6n), rankKey('chain:a-b.node', 5n), rankKey('chain:a0.node', 5n)].sort();
  assert.deepEqual(keys.map((k) => parseRankKey(k).address), ['chain:z.node', 'chain:a-b.node', 'chain:a.node', 'chain:a0.node', 'chain:b.node']);
  assert.deepEqual(parseRankKey(rankKey('chain:x.node', 10n ** 39n)), { address: 'chain:x.node', stake: 10n ** 39n });
  assert.throws(() => rankKey('chain:x.node', 0n), /cannot be ranked/);
});

test('ties at the boundary are broken by address bytes ("-" 0x2d < "." 0x2e < "0" 0x30 < "b"), not by locale', async () => {
  // localeCompare would put "a-b" after "ab"; byte order puts it first.
  const s = await withNodes([['chain:ab.node', MIN], ['chain:a0.node', MIN], ['chain:a-b.node', MIN], ['chain:a.node', MIN], ['chain:b.node', MIN]]);
  assert.deepEqual(addresses(await activeSet(s, 5, MIN, 4)), ['chain:a-b.node', 'chain:a.node', 'chain:a0.node', 'chain:ab.node']);
});

test('exactly max_validators eligible are all in; one more and the lowest-ranked stays out with no power', async () => {
  const four = await withNodes([['chain:n1.node', 40n * COIN], ['chain:n2.node', 30n * COIN], ['chain:n3.node', 20n * COIN], ['chain:n4.node', MIN]]);
  const set = await activeSet(four, 5, MIN, 4);
  assert.deepEqual(set.map((v) => [v.address, v.power]), [['chain:n1.node', 40n * COIN], ['chain:n2.node', 30n * COIN], ['chain:n3.node', 20n * COIN], ['chain:n4.node', MIN]]);
  await putNode(four, node('chain:n5.node'));
  await putStake(four, 'chain:n5.node', { amount: MIN, unlock_height: 0, paid_to: 0, genesis: false }, 2);
  assert.deepEqual(addresses(await activeSet(four, 5, MIN, 4)), ['chain:n1.node', 'chain:n2.node', 'chain:n3.node', 'chain:n4.node'], 'n5 ties n4 and ranks after it by address');
});

test('the ranking skips jailed nodes, nodes without a consensus key and stakes below min_stake, reading past the first max_validators when it must', async () => {
  const s = await withNodes([
    ['chain:j1.node', 90n * COIN, { jailed_until: 100 }],
    ['chain:j2.node', 80n * COIN, { jailed_until: 100 }],
    ['chain:j3.node', 70n * COIN, { jailed_until: 6 }],
    ['chain:nokey.node', 60n * COIN, { consensus_public_key: '' }],
    ['chain:ok1.node', 50n * COIN],
    ['chain:ok2.node', 40n * COIN],
    ['chain:low.node', MIN - 1n],
  ]);
  assert.deepEqual(addresses(await activeSet(s, 5, MIN, 3)), ['chain:ok1.node', 'chain:ok2.node'], 'jailed and keyless skipped; below min_stake ends the walk');
  assert.deepEqual(addresses(await activeSet(s, 6, MIN, 3)), ['chain:j3.node', 'chain:ok1.node', 'chain:ok2.node'], 'out of jail at jailed_until');
  assert.deepEqual(addresses(await activeSet(s, 6, MIN - 1n, 4)), ['chain:j3.node', 'chain:ok1.node', 'chain:ok2.node', 'chain:low.node']);
});

test('a node ranks in when its stake passes the lowest member, and that member ranks out; unstaking leaves the ranking', async () => {
  const s = await withNodes([['chain:a.node', 30n * COIN], ['chain:b.node', 20n * COIN], ['chain:c.node', 20n * COIN], ['chain:d.node', 15n * COIN]]);
  assert.deepEqual(addresses(await activeSet(s, 5, MIN, 3)), ['chain:a.node', 'chain:b.node', 'chain:c.node']);
  await putStake(s, 'chain:d.node', { amount: 21n * COIN, unlock_height: 0, paid_to: 0, genesis: false }, 6);
  assert.deepEqual(addresses(await activeSet(s, 6, MIN, 3)), ['chain:a.node', 'chain:d.node', 'chain:b.node'], 'd ranks in, c (the lower address of the ties is b) ranks out');
  await putStake(s, 'chain:a.node', undefined, 7);
  assert.deepEqual(addresses(await activeSet(s, 7, MIN, 3)), ['chain:d.node', 'chain:b.node', 'chain:c.node'], 'a unstaked: out, c back');
});

const v0Owner = { keys: VALIDATOR_KEY, publicKeyHex: toHex(VALIDATOR_KEY.publicKey), address: deriveAddress(VALIDATOR_KEY.publicKey) };
const owner = wallet(171);
let clock = 1_750_000_000_000;

async function bigChain(maxValidators: number): Promise<Fixture> {
  return makeChain({
    plugins: [stakingPlugin],
    validators: [0, 1, 2, 3].map((i) => ({ address: `chain:v${i}.node`, key: i === 0 ? v0Owner.keys : wallet(160 + i).keys, stake: String(10_000n * COIN) })),
    accounts: [{ address: owner.address, balance: 10_000n * COIN }, { address: v0Owner.address, balance: 10n * COIN }],
    genesisParams: { min_stake: String(MIN), unbonding_blocks: '5', max_validators: String(maxValidators), max_block_gas: '1000000' },
    mempool: { maxTxs: 1000, maxPerSender: 400 },
  });
}

const registerOp = (i: number) => signOperation(owner, { actor: owner.address, target: 'chain:system.node', nonce: ++clock, body: { name: `n${String(i).padStart(3, '0')}`, owner: owner.address, consensus_public_key: labelledWallet(`active-set-n${i}`).publicKeyHex } });

test(`more eligible nodes than the kernel's bound (${MAX_VALIDATORS}): the set is the top max_validators, the kernel takes every batch, and it follows stake`, async () => {
  const f = await bigChain(MAX_VALIDATORS);
  for (let i = 0; i < MAX_VALIDATORS + 1; i++) await f.chain.admitOperation('register_node', registerOp(i), {}, 0);
  const b = await f.block();
  assert.equal(b.tx_hashes.length, MAX_VALIDATORS + 1);
  const events = await f.chain.queries.getBlockEvents(b.header.height);
  assert.equal(events.filter((e) => e.type === 'validator_update_refused').length, 0, 'no batch refused');
  const set = await f.chain.queries.validatorSetAt(b.header.height + 2);
  assert.equal(set.length, MAX_VALIDATORS, `${4 + MAX_VALIDATORS + 1} eligible, ${MAX_VALIDATORS} in the set`);
  const ids = set.map((v) => v.address);
  for (const g of ['chain:v0.node', 'chain:v3.node', 'chain:n000.node', 'chain:n145.node']) assert.ok(ids.includes(g), g);
  for (const out of ['chain:n146.node', 'chain:n150.node']) assert.ok(!ids.includes(out), `${out} ranks below the bound: no power`);
  // One ucoin more ranks n150 above every min_stake tie: in, and the last of those ties (n145) out.
  await f.chain.admitOperation('stake', signOperation(owner, { actor: 'chain:n150.node', target: 'chain:system.stake', value: 1, nonce: ++clock, body: { address: 'chain:n150.node', amount: 1 } }), {}, 0);
  const b2 = await f.block();
  const set2 = (await f.chain.queries.validatorSetAt(b2.header.height + 2)).map((v) => v.address);
  assert.equal(set2.length, MAX_VALIDATORS);
  assert.ok(set2.includes('chain:n150.node') && !set2.includes('chain:n145.node'));
  const updates = (await f.chain.queries.getBlockEvents(b2.header.height)).find((e) => e.type === 'validator_update')!.data as { validators: Array<{ address: string; power: string }> };
  assert.deepEqual(updates.validators, [{ address: 'chain:n145.node', power: '0' }, { address: 'chain:n150.node', power: String(MIN + 1n) }], 'one in, one out: a batch of two');
});

test('max_validators is a governance parameter from 4 to 150 (the kernel\'s bound), default 100', async () => {
  const f = await makeChain({ plugins: [stakingPlugin] });
  const spec = f.params.list().find((p) => p.key === 'max_validators')!;
  assert.deepEqual([spec.default, spec.min, spec.max], [100n, 4n, BigInt(MAX_VALIDATORS)]);
  assert.match(f.params.checkValue('max_validators', 3n)!, /between 4 and 150/);
  assert.match(f.params.checkValue('max_validators', 151n)!, /between 4 and 150/);
  assert.equal(f.params.checkValue('max_validators', 150n), null);
});

test('a genesis validator\'s stake is locked until unbonding_blocks from genesis: refused at admission and in a block before, returned at that height', async () => {
  const f = await bigChain(4);
  const stake = JSON.parse(new TextDecoder().decode((await f.chain.queries.state.get('staking/stake/chain:v0.node'))!)) as { unlock_height: number };
  assert.equal(stake.unlock_height, 5);
  const unstake = () => signOperation(v0Owner, { actor: 'chain:v0.node', target: 'chain:system.stake', nonce: ++clock, body: { address: 'chain:v0.node' } });
  await refused(f.chain.admitOperation('unstake', unstake(), {}, 0), 400, /stake of chain:v0\.node is locked until height 5/);
  const early = f.chain.rebuildTx('signed', f.operations.envelope('unstake', unstake(), {}), 1n, 0);
  f.chain.mempool.add(early);
  await f.block();
  const receipt = (await f.chain.queries.getTx(early.hash))?.receipt;
  assert.equal(receipt?.status, 'failed');
  assert.match(String(receipt?.error), /locked until height 5/);
  while (f.chain.head.height < 4) await f.block();
  const before = (await f.account(v0Owner.address)).balance;
  await f.chain.admitOperation('unstake', unstake(), {}, 0);
  const b = await f.block();
  assert.equal(b.header.height, 5);
  assert.ok((await f.account(v0Owner.address)).balance - before >= 10_000n * COIN - 50n, 'the genesis stake, to its owner');
  assert.ok(!(await f.chain.queries.validatorSetAt(7)).some((v) => v.address === 'chain:v0.node'), 'and no voting power left');
});
