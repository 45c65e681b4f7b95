import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalJson, shardOf, type NodeServices, type ReadContext } from '../../kernel/sdk.js';
import { makeChain, refused, signTransfer, walletOnShard, type Fixture } from '../../test/helpers/chain-fixture.js';
import { bundleOf, setUpdateOf, shardSigners, twoShardGenesis } from '../../test/helpers/xshard-fixture.js';
import { xshardPlugin } from './index.js';
import { ACK_TX, COMMIT_TX, HEADERS_TX, RELAY_SENDER, judgeAck, judgeCommit, judgeHeaders } from './rules.js';
import { clients, lockKey, locks, receiptKey, receipts, type Lock, type Receipt } from './store.js';
import { readTotals } from './rules.js';

/*
 * decisions.md §72–§76 on the fixture chain as shard 0 of 2, shard 1 being its validators' keys
 * (test/helpers/xshard-fixture.ts): the lock, the one receipt, the settlement, the clients, and
 * every forged bundle of issue 38 refused with nothing moved.
 */

const COIN = 1_000_000n;
const S1 = shardSigners(1, [10, 10, 10, 10]);
const alice = walletOnShard(0, 2);
const bob = walletOnShard(0, 2, 1);
const carol = walletOnShard(1, 2);
const SHARD1_LOCK_ID = '0x' + 'ab'.repeat(32);

interface Net {
  f: Fixture;
  services: { query?: NodeServices['query'] };
}

async function shard0(params: Record<string, string> = {}): Promise<Net> {
  const services: Net['services'] = {};
  const f = await makeChain({ plugins: [xshardPlugin], shard: { id: 0, count: 2 }, services, genesis: twoShardGenesis(S1, [{ address: alice.address, balance: 100n * COIN }], params) });
  return { f, services };
}

/** A lock of shard 1 paying `to` on shard 0. */
function shard1Lock(o: Partial<Lock> = {}): Lock {
  return { id: SHARD1_LOCK_ID, from: carol.address, to: bob.address, value: 7_000, source_shard: 1, dest_shard: 0, lock_height: 20, deadline_height: 30, status: 'locked', ...o };
}

async function relay(n: Net, type: string, body: Record<string, unknown>): Promise<string> {
  const tx = await n.f.chain.admitSystem(type, RELAY_SENDER, RELAY_SENDER, 0n, body, 0);
  await n.f.block();
  return tx.hash;
}

async function receipt(n: Net, source: number, id: string): Promise<Receipt | undefined> {
  return receipts.get(n.f.pluginState('xshard'), source, id);
}

function judge<T>(n: Net, fn: (ctx: ReadContext) => Promise<T>): Promise<T> {
  return n.services.query!.run('xshard', fn);
}

test('§74: a transfer to another shard locks value at the source: exact debit, canonical lock record, deadline from relay_timeout_blocks, dest_shard in the answer', async () => {
  const n = await shard0({ relay_timeout_blocks: '12' });
  const answer = await n.f.chain.admit(signTransfer(alice, { to: carol.address, value: 5_000, nonce: 1 }), 0);
  assert.equal(answer.dest_shard, 1);
  assert.equal(answer.receiver_balance, null);
  const b = await n.f.block();
  const stored = await n.f.chain.queries.getTx(answer.tx_hash);
  assert.equal(stored?.receipt.status, 'confirmed', stored?.receipt.error ?? '');
  const fee = stored!.receipt.fee;
  assert.equal(fee, 21n, 'gas_base_transfer × base_fee');
  assert.equal((await n.f.account(alice.address)).balance, 100n * COIN - 5_000n - fee);
  const lock = await locks.get(n.f.pluginState('xshard'), answer.tx_hash);
  assert.deepEqual(lock, { id: answer.tx_hash, from: alice.address, to: carol.address, value: 5_000, source_shard: 0, dest_shard: 1, lock_height: b.header.height, deadline_height: b.header.height + 12, status: 'locked' });
  const bytes = await n.f.chain.queries.state.get(lockKey(answer.tx_hash));
  assert.equal(new TextDecoder().decode(bytes), canonicalJson(lock), 'the stored value is the canonical JSON of the fields present (§84)');
  assert.equal((await readTotals({ store: n.f.pluginState('xshard') })).locked, 5_000n);
});

test('§74: a cross-shard transfer to a name, with data or of value 0 is refused with 400 naming the rule, and nothing moves', async () => {
  const n = await shard0();
  let name = 'chain:n0.human';
  for (let k = 1; shardOf(name, 2) !== 1; k++) name = `chain:n${k}.human`;
  await refused(n.f.chain.admit(signTransfer(alice, { to: name, value: 5, nonce: 1 }), 0), 400, /key-derived \.human/);
  await refused(n.f.chain.admit(signTransfer(alice, { to: carol.address, value: 5, nonce: 1, data: 'aa' }), 0), 400, /^data: /);
  await refused(n.f.chain.admit(signTransfer(alice, { to: carol.address, value: 0, nonce: 1 }), 0), 400, /^value: .*at least 1/);
  assert.equal((await n.f.account(alice.address)).balance, 100n * COIN);
});

test('§72: each other shard\'s client starts from its genesis validators, trusted_height 0', async () => {
  const n = await shard0();
  const all = await clients.scan(n.f.pluginState('xshard'));
  assert.equal(all.length, 1);
  assert.equal(all[0]!.value.shard, 1);
  assert.equal(all[0]!.value.trusted_height, 0);
  assert.deepEqual(all[0]!.value.validators.map((v) => v.address), [...S1].map((v) => v.address).sort());
});

test('§76: proof_height = deadline − 1 commits and credits; the receipt is written once and a replay is 409 naming the outcome', async () => {
  const n = await shard0();
  const lock = shard1Lock();
  const bundle = await bundleOf('lock', lockKey(lock.id), lock, { height: lock.deadline_height - 1, set: S1 });
  const hash = await relay(n, COMMIT_TX, bundle);
  const r = await receipt(n, 1, lock.id);
  assert.deepEqual(r, { source_shard: 1, id: lock.id, from: lock.from, to: lock.to, value: 7_000, outcome: 'committed', height: r!.height, proof_height: 29, tx_hash: hash });
  assert.equal((await n.f.account(bob.address)).balance, 7_000n);
  await refused(judge(n, (ctx) => judgeCommit(ctx, bundle)), 409, /already written: committed/);
  const later = await bundleOf('lock', lockKey(lock.id), lock, { height: lock.deadline_height + 3, set: S1 });
  await refused(judge(n, (ctx) => judgeCommit(ctx, later)), 409, /already written: committed/);
  assert.equal((await readTotals({ store: n.f.pluginState('xshard') })).received, 7_000n);
});

test('§76: proof_height = deadline aborts: the receipt says aborted and nothing is credited; a pre-deadline proof sent afterwards is 409', async () => {
  const n = await shard0();
  const lock = shard1Lock();
  await relay(n, COMMIT_TX, await bundleOf('lock', lockKey(lock.id), lock, { height: lock.deadline_height, set: S1 }));
  assert.equal((await receipt(n, 1, lock.id))?.outcome, 'aborted');
  assert.equal((await n.f.account(bob.address)).balance, 0n);
  const early = await bundleOf('lock', lockKey(lock.id), lock, { height: lock.deadline_height - 5, set: S1 });
  await refused(judge(n, (ctx) => judgeCommit(ctx, early)), 409, /already written: aborted/);
  assert.equal((await readTotals({ store: n.f.pluginState('xshard') })).received, 0n);
});

test('§72: exactly 2/3 of the trusted power is refused; more than 2/3 is certified', async () => {
  const n = await shard0();
  const lock = shard1Lock();
  // 4 × 10: three signers hold 30 of 40 (> 2/3); a 3-validator set where two sign would hold exactly 2/3.
  const three = shardSigners(1, [10, 10, 10], 90);
  const m = await (async () => {
    const services: Net['services'] = {};
    const f = await makeChain({ plugins: [xshardPlugin], shard: { id: 0, count: 2 }, services, genesis: twoShardGenesis(three, []) });
    return { f, services };
  })();
  const exactly = await bundleOf('lock', lockKey(lock.id), lock, { height: 5, set: three, signers: three.slice(0, 2) });
  await refused(judge(m, (ctx) => judgeCommit(ctx, exactly)), 400, /trusted_power/);
  const enough = await bundleOf('lock', lockKey(lock.id), lock, { height: 5, set: S1, signers: S1.slice(0, 3) });
  await judge(n, (ctx) => judgeCommit(ctx, enough));
});

test('forged lock bundles are each refused with 400 naming what failed, and nothing moves', async () => {
  const n = await shard0();
  const lock = shard1Lock();
  const honest = await bundleOf('lock', lockKey(lock.id), lock, { height: 10, set: S1 });
  const copy = <T>(x: T): T => JSON.parse(JSON.stringify(x)) as T;
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [];
  // An inflated value, another recipient: the proven bytes are not the record.
  cases.push(['inflated value', { ...copy(honest), lock: { ...lock, value: 70_000 } }, /record/]);
  cases.push(['another recipient', { ...copy(honest), lock: { ...lock, to: alice.address } }, /record/]);
  // A lock that never existed: the tree proves the key absent.
  const ghost = shard1Lock({ id: '0x' + 'cd'.repeat(32) });
  const absent = await bundleOf('lock', lockKey(ghost.id), ghost, { height: 10, set: S1 });
  (absent.proof as { entries: Array<Record<string, unknown>> }).entries = [copy(honest.proof as { entries: Array<Record<string, unknown>> }).entries[0]!];
  cases.push(['a lock that never existed', { ...absent, lock: ghost }, /key|record|entry_proof/]);
  // One precommit removed leaving ≤ 2/3 (2 of 4 equal powers).
  const removed = copy(honest);
  const cert = (removed.proof as { certificate: { precommits: unknown[] } }).certificate;
  cert.precommits = cert.precommits.slice(0, 2);
  cases.push(['precommits removed to ≤ 2/3', removed, /trusted_power/]);
  // A corrupted signature among three (leaving 2 of 4 valid).
  const corrupt = await bundleOf('lock', lockKey(lock.id), lock, { height: 10, set: S1, signers: S1.slice(0, 3) });
  const sig = (corrupt.proof as { certificate: { precommits: Array<{ signature: string }> } }).certificate.precommits[0]!;
  sig.signature = (sig.signature[0] === 'a' ? 'b' : 'a') + sig.signature.slice(1);
  cases.push(['a corrupted signature', corrupt, /trusted_power/]);
  // A header with the wrong hash: a field changed after it was certified.
  const rehashed = copy(honest);
  (rehashed.proof as { header: Record<string, unknown> }).header['timestamp'] = 1;
  cases.push(['a header with the wrong hash', rehashed, /block_hash/]);
  // Genuine signatures of validators holding ≤ 2/3.
  cases.push(['genuine signatures of ≤ 2/3', await bundleOf('lock', lockKey(lock.id), lock, { height: 10, set: S1, signers: S1.slice(0, 2) }), /trusted_power/]);
  // A header naming a new set, signed by part of the trusted set and all of the new.
  const newcomers = shardSigners(1, [10, 10, 10, 10], 120);
  const mixed = [...S1.slice(0, 2), ...newcomers.slice(0, 2)];
  cases.push(['a new set signed by part of the trusted set', await bundleOf('lock', lockKey(lock.id), lock, { height: 10, set: mixed }), /validator_set/]);
  // The wrong shard: a header of shard 0 (this one), and a lock for another destination.
  cases.push(['a header of the wrong shard', await bundleOf('lock', lockKey(lock.id), lock, { height: 10, set: S1, shard: 0 }), /header's shard 0 is not the lock's source_shard 1/]);
  cases.push(['a lock for another destination', { ...copy(honest), lock: { ...lock, dest_shard: 1 } }, /dest_shard 1 is not this shard/]);
  // An id that is no transaction hash: the body shape's 400 (§76), not a store key error.
  cases.push(['an id that is no transaction hash', { ...copy(honest), lock: { ...lock, id: 'xyz' } }, /id/]);
  for (const [what, body, pattern] of cases) {
    await assert.rejects(judge(n, (ctx) => judgeCommit(ctx, body)), (e: unknown) => {
      const err = e as { status?: number; message?: string };
      assert.equal(err.status, 400, `${what}: ${err.message}`);
      assert.match(err.message ?? '', pattern, what);
      return true;
    });
  }
  assert.equal(await receipt(n, 1, lock.id), undefined);
  assert.equal((await n.f.account(bob.address)).balance, 0n);
  assert.equal((await n.f.account(alice.address)).balance, 100n * COIN);
});

/** A lock on shard 0 (alice → carol on shard 1) and its hash. */
async function lockedTransfer(n: Net, value = 5_000): Promise<Lock> {
  const answer = await n.f.chain.admit(signTransfer(alice, { to: carol.address, value, nonce: Number((await n.f.account(alice.address)).nonce) + 1 }), 0);
  await n.f.block();
  return (await locks.get(n.f.pluginState('xshard'), answer.tx_hash))!;
}

function shard1Receipt(lock: Lock, outcome: 'committed' | 'aborted', o: Partial<Receipt> = {}): Receipt {
  return { source_shard: 0, id: lock.id, from: lock.from, to: lock.to, value: lock.value, outcome, height: 44, proof_height: lock.deadline_height - 1, tx_hash: '0x' + 'ee'.repeat(32), ...o };
}

test('§76 ack, committed: the lock becomes committed with commit_height = the receipt height; the value has left; replay is 409', async () => {
  const n = await shard0();
  const lock = await lockedTransfer(n);
  const before = (await n.f.account(alice.address)).balance;
  const r = shard1Receipt(lock, 'committed');
  const bundle = await bundleOf('receipt', receiptKey(0, lock.id), r, { height: 50, set: S1 });
  await relay(n, ACK_TX, bundle);
  const settled = await locks.get(n.f.pluginState('xshard'), lock.id);
  assert.equal(settled?.status, 'committed');
  assert.equal(settled?.commit_height, 44);
  assert.equal((await n.f.account(alice.address)).balance, before, 'no refund');
  const t = await readTotals({ store: n.f.pluginState('xshard') });
  assert.deepEqual([t.locked, t.sent, t.refunded], [0n, 5_000n, 0n]);
  await refused(judge(n, (ctx) => judgeAck(ctx, bundle)), 409, /already committed/);
});

test('§76 ack, aborted: the lock is refunded (the value, not the fee) at this height; a forged early refund is refused', async () => {
  const n = await shard0();
  const lock = await lockedTransfer(n);
  const before = (await n.f.account(alice.address)).balance;
  // Forged: an abort receipt certified by ≤ 2/3, and one whose value is not the lock's.
  const weak = await bundleOf('receipt', receiptKey(0, lock.id), shard1Receipt(lock, 'aborted'), { height: 50, set: S1, signers: S1.slice(0, 2) });
  await refused(judge(n, (ctx) => judgeAck(ctx, weak)), 400, /trusted_power/);
  const inflated = await bundleOf('receipt', receiptKey(0, lock.id), shard1Receipt(lock, 'aborted', { value: lock.value * 2 }), { height: 50, set: S1 });
  await refused(judge(n, (ctx) => judgeAck(ctx, inflated)), 400, /record/);
  await refused(judge(n, (ctx) => judgeAck(ctx, { ...inflated, receipt: { ...shard1Receipt(lock, 'aborted'), id: '0x' + '12'.repeat(32) } })), 404, /no lock/);
  assert.equal((await n.f.account(alice.address)).balance, before, 'nothing moved');
  const bundle = await bundleOf('receipt', receiptKey(0, lock.id), shard1Receipt(lock, 'aborted'), { height: 50, set: S1 });
  await relay(n, ACK_TX, bundle);
  const settled = await locks.get(n.f.pluginState('xshard'), lock.id);
  assert.equal(settled?.status, 'refunded');
  assert.equal(settled?.refund_height, n.f.chain.head.height);
  assert.equal((await n.f.account(alice.address)).balance, before + 5_000n);
  await refused(judge(n, (ctx) => judgeAck(ctx, bundle)), 409, /already refunded/);
});

test('§72 set update: a header certified by the trusted set naming a new set is adopted at height + 1; exactly 2/3, a height below trusted_height and a same-set header are refused', async () => {
  const n = await shard0();
  const next = shardSigners(1, [10, 10, 10], 150);
  await refused(judge(n, (ctx) => judgeHeaders(ctx, setUpdateOf(9, S1, S1))), 400, /names no new set/);
  const three = shardSigners(1, [10, 10, 10], 90);
  await refused(judge(n, (ctx) => judgeHeaders(ctx, setUpdateOf(9, three, next))), 400, /validator_set/);
  await relay(n, HEADERS_TX, setUpdateOf(9, S1, next, S1.slice(0, 3)));
  const client = await clients.get(n.f.pluginState('xshard'), 1);
  assert.equal(client?.trusted_height, 10);
  assert.deepEqual(client?.validators.map((v) => v.address), [...next].map((v) => v.address).sort());
  // The old set no longer certifies; the new one does, with more than 2/3 only.
  const lock = shard1Lock();
  await refused(judge(n, async (ctx) => judgeCommit(ctx, await bundleOf('lock', lockKey(lock.id), lock, { height: 12, set: S1 }))), 400, /validator_set/);
  await refused(judge(n, async (ctx) => judgeCommit(ctx, await bundleOf('lock', lockKey(lock.id), lock, { height: 12, set: next, signers: next.slice(0, 2) }))), 400, /trusted_power/);
  await judge(n, async (ctx) => judgeCommit(ctx, await bundleOf('lock', lockKey(lock.id), lock, { height: 12, set: next })));
  // A header of the adopted set from before it decided (a replay that would take the client back) is refused.
  await refused(judge(n, (ctx) => judgeHeaders(ctx, setUpdateOf(9, next, S1))), 400, /height: 9 is below trusted_height 10/);
});

test('§72 set update at two consecutive heights: the header at trusted_height, the adopted set\'s first, moves the client on (no later header of that set names the next)', async () => {
  const n = await shard0();
  const a = shardSigners(1, [10, 10, 10], 150);
  const b = shardSigners(1, [10, 10, 10, 10], 170);
  await relay(n, HEADERS_TX, setUpdateOf(9, S1, a));
  assert.equal((await clients.get(n.f.pluginState('xshard'), 1))?.trusted_height, 10);
  // Header 10 is decided by a (its first height) and already names b: the only header a certifies that does.
  await relay(n, HEADERS_TX, setUpdateOf(10, a, b));
  const client = await clients.get(n.f.pluginState('xshard'), 1);
  assert.equal(client?.trusted_height, 11);
  assert.deepEqual(client?.validators.map((v) => v.address), [...b].map((v) => v.address).sort());
  const lock = shard1Lock();
  await judge(n, async (ctx) => judgeCommit(ctx, await bundleOf('lock', lockKey(lock.id), lock, { height: 12, set: b })));
});

test('a proposer that skips checkTx cannot land a forged commit: it fails in the block with its error and credits nothing', async () => {
  const n = await shard0();
  const lock = shard1Lock();
  const forged = await bundleOf('lock', lockKey(lock.id), lock, { height: 10, set: S1, signers: S1.slice(0, 2) });
  const tx = n.f.chain.rebuildTx('system', { ...forged, type: COMMIT_TX, from: RELAY_SENDER, to: RELAY_SENDER, value: 0 }, 0n, 0);
  n.f.chain.mempool.add(tx);
  await n.f.block();
  const stored = await n.f.chain.queries.getTx(tx.hash);
  assert.equal(stored?.receipt.status, 'failed');
  assert.match(stored?.receipt.error ?? '', /trusted_power/);
  assert.equal(await receipt(n, 1, lock.id), undefined);
  assert.equal((await n.f.account(bob.address)).balance, 0n);
});
