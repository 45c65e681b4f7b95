import { test } from 'node:test';
import assert from 'node:assert/strict';
import { certifiedBlock, genesisDoc, labelledWallet, makeChain, refused, signOperation, signTransfer, type Fixture } from '../../test/helpers/chain-fixture.js';
import { provenGet } from '../../test/helpers/proven-read.js';
import type { NodeServices } from '../../kernel/sdk.js';
import { NFT_TRANSFER_FEE } from '../../kernel/sdk.js';
import { namesPlugin } from './index.js';
import { customAddressOf } from './records.js';
import { nfts } from './store.js';

/**
 * The names plugin on one chain: each rule at admission and again in a block whose proposer
 * skipped admission (a transaction put straight into the pool), with balances and burns exact.
 */
const alice = labelledWallet("names-alice");
const bob = labelledWallet("names-bob");
const carol = labelledWallet("names-carol");
const COIN = 1_000_000n;
const START = 100n * COIN;
let nonce = 1_800_000_000_000;
const next = (): number => ++nonce;

const register = (w: typeof alice, name: string, kind: 'register_human' | 'register_agent' = 'register_human') =>
  signOperation(w, { kind, actor: w.address, target: kind === 'register_human' ? 'chain:system.name' : 'chain:system.agent', nonce: next(), body: { name, owner: w.address } });
const giveNft = (w: typeof alice, nft: string, to: string, from = w.address) =>
  signOperation(w, { kind: 'transfer_nft', actor: from, target: nft, nonce: next(), body: { nft_address: nft, from, to } });

/** Puts a transaction straight into the pool, as a proposer that skips admission would, and commits a block. */
async function injected(f: Fixture, name: string, body: Record<string, unknown>): Promise<{ status: string; error: string | null; fee: bigint }> {
  const tx = f.chain.rebuildTx('signed', f.operations.envelope(name, body, {}), 1n, 0);
  f.chain.mempool.add(tx);
  await f.block();
  const stored = await f.chain.queries.getTx(tx.hash);
  return { status: stored!.receipt.status, error: stored!.receipt.error, fee: stored!.receipt.fee };
}

async function chain(): Promise<Fixture> {
  return makeChain({ plugins: [namesPlugin], accounts: [alice, bob, carol].map((w) => ({ address: w.address, balance: START })) });
}

test('a name costs price + fee, the price is burned and counted in fees_burned and total_burned; taken 409 at admission, failed in a block with no price charged', async () => {
  const f = await chain();
  const burnedBefore = f.chain.head.total_burned;
  const r = await f.chain.admitOperation('register_human', register(alice, 'alice'), {}, 0);
  const block = await f.block();
  const stored = (await f.chain.queries.getTx(r.tx_hash))!;
  assert.equal(stored.receipt.status, 'confirmed', stored.receipt.error ?? '');
  const price = 80n * COIN; // 5 characters: 10 COIN × 2^3
  assert.equal((await f.account(alice.address)).balance, START - price - stored.receipt.fee, 'price + fee, exactly');
  assert.equal(block.fees_burned, stored.receipt.fee_burned + price);
  assert.equal(f.chain.head.total_burned - burnedBefore, block.fees_burned);
  const rec = await nfts.get(f.pluginState('names'), 'chain:alice.human');
  assert.deepEqual({ owner: rec?.owner, kind: rec?.kind, price: rec?.price }, { owner: alice.address, kind: 'human', price });

  await refused(f.chain.admitOperation('register_human', register(bob, 'alice'), {}, 0), 409, /chain:alice\.human is already registered/);
  const bobBefore = (await f.account(bob.address)).balance;
  const again = await injected(f, 'register_human', register(bob, 'alice'));
  assert.equal(again.status, 'failed');
  assert.match(again.error!, /chain:alice\.human is already registered/);
  assert.equal((await f.account(bob.address)).balance, bobBefore - again.fee, 'the fee consumed, no price');
});

test('labels and owners are judged at admission and in the block', async () => {
  const f = await chain();
  await refused(f.chain.admitOperation('register_human', register(alice, '0123456789abcde'), {}, 0), 400, /shadow/);
  await refused(f.chain.admitOperation('register_human', register(alice, 'Bad_Label'), {}, 0), 400, /a-z, 0-9 and -/);
  const shadow = await injected(f, 'register_human', register(alice, '0123456789abcde'));
  assert.equal(shadow.status, 'failed');
  assert.match(shadow.error!, /shadow/);
  const poor = labelledWallet("names-poor");
  const g = await makeChain({ plugins: [namesPlugin], accounts: [{ address: poor.address, balance: 5n * COIN }] });
  await refused(g.chain.admitOperation('register_human', register(poor, 'longername'), {}, 0), 400, /insufficient balance: registering chain:longername\.human costs 10000000 ucoin/);
});

test('coins sent to a name reach its owner at apply time; a plain transaction from a name is refused; the NFT moves with its fee burned', async () => {
  const f = await chain();
  await f.chain.admitOperation('register_human', register(alice, 'alice-name'), {}, 0);
  await f.chain.admitOperation('register_agent', register(alice, 'helper', 'register_agent'), {}, 0);
  await f.block();
  const aliceBefore = (await f.account(alice.address)).balance;
  await f.chain.admit(signTransfer(bob, { to: 'chain:alice-name.human', value: 1234, nonce: 1 }), 0);
  await f.chain.admit(signTransfer(bob, { to: 'chain:helper.agent', value: 66, nonce: 2 }), 0);
  await f.block();
  assert.equal((await f.account(alice.address)).balance, aliceBefore + 1300n);
  assert.equal((await f.account('chain:alice-name.human')).balance, 0n, 'a name holds no balance');
  await refused(f.chain.admit(signTransfer(bob, { to: 'chain:nobody.human', value: 1, nonce: 3 }), 0), 400, /not a valid recipient/);
  await refused(f.chain.admit(signTransfer(alice, { from: 'chain:alice-name.human', to: bob.address, value: 1, nonce: 1 }), 0), 400, /holds no balance/);

  // The old owner is refused 403 once it moved; a stranger's key 401; a .node is no NFT (404).
  await refused(f.chain.admitOperation('transfer_nft', giveNft(bob, 'chain:alice-name.human', carol.address), {}, 0), 403, /does not own/);
  await refused(f.chain.admitOperation('transfer_nft', giveNft(bob, 'chain:alice-name.human', carol.address, alice.address), {}, 0), 401, /./);
  await refused(f.chain.admitOperation('transfer_nft', giveNft(alice, 'chain:v0.node', carol.address), {}, 0), 404, /not an NFT/);
  await refused(f.chain.admitOperation('transfer_nft', giveNft(alice, 'chain:alice-name.human', 'chain:helper.agent'), {}, 0), 400, /key-derived/);
  const before = (await f.account(alice.address)).balance;
  const burnedBeforeMove = f.chain.head.total_burned;
  const r = await f.chain.admitOperation('transfer_nft', giveNft(alice, 'chain:alice-name.human', bob.address), {}, 0);
  await f.block();
  const stored = (await f.chain.queries.getTx(r.tx_hash))!;
  assert.equal(stored.receipt.status, 'confirmed', stored.receipt.error ?? '');
  assert.equal(f.chain.head.total_burned - burnedBeforeMove, stored.receipt.fee_burned + NFT_TRANSFER_FEE, 'the NFT fee is burned');
  assert.equal((await f.account(alice.address)).balance, before - stored.receipt.fee - NFT_TRANSFER_FEE);
  // The same transfer by the old owner, put in a block by a proposer skipping admission, fails there.
  const stale = await injected(f, 'transfer_nft', giveNft(alice, 'chain:alice-name.human', carol.address));
  assert.equal(stale.status, 'failed');
  assert.match(stale.error!, /does not own/);
  const bobBefore = (await f.account(bob.address)).balance;
  await f.chain.admit(signTransfer(carol, { to: 'chain:alice-name.human', value: 500, nonce: 1 }), 0);
  await f.block();
  assert.equal((await f.account(bob.address)).balance, bobBefore + 500n, 'the new owner receives');
});

test('custom_address is the .human name owned longest: earliest acquisition, then lowest address', async () => {
  const f = await chain();
  const state = () => f.pluginState('names');
  assert.equal(await customAddressOf(state(), alice.address), undefined);
  await f.chain.admitOperation('register_human', register(alice, 'zed-first'), {}, 0);
  await f.block();
  await f.chain.admitOperation('register_human', register(alice, 'bbb-later'), {}, 0);
  await f.chain.admitOperation('register_human', register(alice, 'aaa-later'), {}, 0);
  await f.block();
  assert.equal(await customAddressOf(state(), alice.address), 'chain:zed-first.human', 'the earliest height wins over the lower address');
  await f.chain.admitOperation('transfer_nft', giveNft(alice, 'chain:zed-first.human', bob.address), {}, 0);
  await f.block();
  assert.equal(await customAddressOf(state(), alice.address), 'chain:aaa-later.human', 'at one height, the lowest address');
  assert.equal(await customAddressOf(state(), bob.address), 'chain:zed-first.human');
});

test('admission holds price + fee of a pending registration against the balance: a second one, or one short of the fee, is refused; the block re-checks', async () => {
  const price = 10n * COIN; // 8 characters or more
  const fee = 100n; // register_human's gas at base_fee 1
  const tight = labelledWallet('names-tight');
  const short = labelledWallet('names-short');
  const f = await makeChain({ plugins: [namesPlugin], accounts: [{ address: tight.address, balance: price + fee + 50n }, { address: short.address, balance: price + fee - 1n }] });
  // price + fee: one ucoin short of the fee is refused, though the price alone is there.
  await refused(f.chain.admitOperation('register_human', register(short, 'shortname'), {}, 0), 400, /insufficient balance: .* needs 10000100 \(10000000 the operation takes besides its fee of 100\)/);
  const first = await f.chain.admitOperation('register_human', register(tight, 'firstname'), {}, 0);
  // The first one's price and fee are held while it is pending: the second cannot spend them again.
  await refused(f.chain.admitOperation('register_human', register(tight, 'secondname'), {}, 0), 400, /insufficient balance: .*\(10000100 reserved by pending transactions\)/);
  await refused(f.chain.admitOperation('register_agent', register(tight, 'someagent', 'register_agent'), {}, 0), 400, /reserved by pending transactions/);
  // What is left beside the hold can still be spent.
  const small = await f.chain.admit(signTransfer(tight, { to: bob.address, value: 29, nonce: 1 }), 0);
  await f.block();
  for (const h of [first.tx_hash, small.tx_hash]) assert.equal((await f.chain.queries.getTx(h))!.receipt.status, 'confirmed');
  assert.equal((await f.account(tight.address)).balance, 0n);
  // A proposer that skips admission puts two registrations the balance covers only one of in one block.
  const g = await makeChain({ plugins: [namesPlugin], accounts: [{ address: tight.address, balance: price + 2n * fee + 50n }] });
  const a = g.chain.rebuildTx('signed', g.operations.envelope('register_human', register(tight, 'blockone'), {}), 1n, 0);
  const b = g.chain.rebuildTx('signed', g.operations.envelope('register_human', register(tight, 'blocktwo'), {}), 1n, 0);
  g.chain.mempool.add(a);
  g.chain.mempool.add(b);
  await g.block();
  const [ra, rb] = await Promise.all([a, b].map(async (t) => (await g.chain.queries.getTx(t.hash))!.receipt));
  assert.equal(ra!.status, 'confirmed', ra!.error ?? '');
  assert.equal(rb!.status, 'failed');
  assert.match(rb!.error!, /insufficient balance/);
  assert.equal((await g.account(tight.address)).balance, 50n, 'the second paid its fee only');
  assert.equal(await nfts.has(g.pluginState('names'), 'chain:blocktwo.human'), false);
});

test('an .agent acts through its owner (decisions.md §19): the owner\'s key signs as it, a stranger\'s is 401, and the rule of the operation answers', async () => {
  const f = await chain();
  await f.chain.admitOperation('register_agent', register(alice, 'doer-agent', 'register_agent'), {}, 0);
  await f.block();
  const asAgent = (w: typeof alice) => signOperation(w, { kind: 'register_human', actor: 'chain:doer-agent.agent', target: 'chain:system.name', nonce: next(), body: { name: 'agentname', owner: 'chain:doer-agent.agent' } });
  // The owner's key is accepted for the agent, so §38's own rule is what refuses it: 400, not 401.
  await refused(f.chain.admitOperation('register_human', asAgent(alice), {}, 0), 400, /key-derived/);
  await refused(f.chain.admitOperation('register_human', asAgent(bob), {}, 0), 401, /not bound to chain:doer-agent\.agent/);
  // Once the agent moves, its new owner signs for it and the old one no longer does.
  await f.chain.admitOperation('transfer_nft', giveNft(alice, 'chain:doer-agent.agent', bob.address), {}, 0);
  await f.block();
  await refused(f.chain.admitOperation('register_human', asAgent(alice), {}, 0), 401, /not bound/);
  await refused(f.chain.admitOperation('register_human', asAgent(bob), {}, 0), 400, /key-derived/);
});

test('?prove=true on an NFT and an .agent read proves the NFT\'s record, and a client checks it (§84–85); a .human is no .agent', async () => {
  const services: { query?: NodeServices['query'] } = {};
  const accounts = [alice, bob, carol].map((w) => ({ address: w.address, balance: START }));
  const f = await makeChain({ plugins: [namesPlugin], accounts, services });
  await f.chain.admitOperation('register_human', register(alice, 'provenname'), {}, 0);
  await f.chain.admitOperation('register_agent', register(bob, 'provenagent', 'register_agent'), {}, 0);
  await certifiedBlock(f);
  await certifiedBlock(f);
  const nft = await provenGet(f, services, genesisDoc(accounts), '/api/v1/nft/:address', { address: 'chain:provenname.human' });
  assert.equal(nft.answer.owner, alice.address);
  assert.deepEqual(nft.keys, [[nfts.stateKey('chain:provenname.human'), true]]);
  const agent = await provenGet(f, services, genesisDoc(accounts), '/api/v1/agents/:address', { address: 'chain:provenagent.agent' });
  assert.deepEqual([agent.answer.owner, agent.keys], [bob.address, [[nfts.stateKey('chain:provenagent.agent'), true]]]);
  await refused(provenGet(f, services, genesisDoc(accounts), '/api/v1/agents/:address', { address: 'chain:provenname.human' }), 404, /not a registered \.agent/);
});
