import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { startTestDevnet, sameRootEverywhere, type TestDevnet } from '../helpers/devnet.js';
import { getJson, postJson, until, waitConfirmed } from '../helpers/node-process.js';
import { signTransfer, walletOnShard, type Wallet } from '../helpers/chain-fixture.js';
import { submitCrossShard } from '../helpers/xshard-devnet.js';

/*
 * Cross-shard transfers on a real 2 × 2 sharded devnet (decisions.md §74–§77), the test playing the
 * keyless relayer: it fetches bundles from one shard's nodes and posts commits and acks straight to
 * the other's, as `chain relay-shards` does. One devnet for every scenario of the file.
 */
let net: TestDevnet;
const nodes = (s: number): string[] => net.rpcUrls.filter((_, k) => Math.floor(k / 2) === s);
const a0 = walletOnShard(0, 2);
const a1 = walletOnShard(1, 2);
const nonces = new Map<string, number>();
const TIMEOUT = 8;

before(async () => {
  // --no-relay: the test is the relayer, so it decides when (and whether) bundles travel.
  net = await startTestDevnet({ shards: 2, validators: 2, relay: false, genesisParams: { relay_timeout_blocks: String(TIMEOUT) } });
  for (const w of [a0, a1]) {
    const s = w === a0 ? 0 : 1;
    const f = await postJson(`${nodes(s)[0]}/api/v1/faucet`, { address: w.address, public_key: w.publicKeyHex, amount: 1_000_000 });
    assert.equal(f.status, 200, JSON.stringify(f.body));
    for (const url of nodes(s)) await waitConfirmed(url, f.body.tx_hash as string);
  }
});
after(async () => {
  await net?.stop();
});

const balance = async (s: number, w: Wallet): Promise<number> => (await getJson(`${nodes(s)[0]}/api/v1/accounts/${w.address}`)).body.balance as number;

/** Locks `value` from `w` (shard s) to `to` (the other shard); answers the lock id once both validators applied it. */
async function lock(s: number, w: Wallet, to: Wallet, value: number): Promise<{ id: string; fee: number }> {
  const nonce = (nonces.get(w.address) ?? 0) + 1;
  nonces.set(w.address, nonce);
  const before = await balance(s, w);
  const { id, tx } = await submitCrossShard(`${nodes(s)[0]}/api/v1/transactions`, signTransfer(w, { to: to.address, value, nonce }), 1 - s, nodes(s));
  assert.equal(tx.type, 'transfer');
  const fee = tx.fee as number;
  assert.equal(await balance(s, w), before - value - fee, 'the exact debit: value + fee');
  const cross = (await getJson(`${nodes(s)[1]}/api/v1/transactions/${id}`)).body.cross_shard as Record<string, unknown>;
  assert.deepEqual({ ...cross, deadline_height: 0 }, { id, dest_shard: 1 - s, status: 'locked', deadline_height: 0, commit_height: null, refund_height: null });
  const queue = (await getJson(`${nodes(s)[0]}/api/v1/cross-shard/queue?status=locked`)).body;
  assert.ok((queue.transfers as Array<{ id: string }>).some((l) => l.id === id), 'the lock is in the queue');
  return { id, fee };
}

/** A bundle once the record is in the proven state (head − 1), with a proof height meeting `ok`. */
async function bundle(url: string, ok: (height: number) => boolean = () => true): Promise<Record<string, unknown>> {
  return until(`a bundle at ${url}`, async () => {
    const r = await getJson(url);
    return r.status === 200 && ok((r.body.proof as { height: number }).height) ? r.body : undefined;
  }, 30_000);
}

async function relayed(url: string, body: Record<string, unknown>, nodesOf: string[]): Promise<Record<string, unknown>> {
  const r = await postJson(url, body);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  let tx: Record<string, unknown> = {};
  for (const n of nodesOf) tx = await waitConfirmed(n, r.body.tx_hash as string);
  assert.equal(tx.status, 'confirmed', JSON.stringify(tx));
  return tx;
}

for (const [s, from, to] of [[0, () => a0, () => a1], [1, () => a1, () => a0]] as const) {
  test(`shard ${s} → shard ${1 - s}: lock, commit on a proof, exact credit, ack; replays are 409`, async () => {
    const d = 1 - s;
    const before = await balance(d, to());
    const { id } = await lock(s, from(), to(), 12_345);
    const lockBundle = await bundle(`${nodes(s)[1]}/api/v1/cross-shard/transfers/${id}/proof`);
    await relayed(`${nodes(d)[0]}/api/v1/cross-shard/commit`, lockBundle, nodes(d));
    assert.equal(await balance(d, to()), before + 12_345, 'the exact credit');
    const receipt = (await getJson(`${nodes(d)[1]}/api/v1/cross-shard/receipts/${s}/${id}`)).body;
    assert.equal(receipt.outcome, 'committed');
    assert.equal(receipt.value_human, '0.012345 COIN');
    const replay = await postJson(`${nodes(d)[1]}/api/v1/cross-shard/commit`, lockBundle);
    assert.equal(replay.status, 409, JSON.stringify(replay.body));
    assert.match(replay.body.error as string, /committed/);
    const receiptBundle = await bundle(`${nodes(d)[0]}/api/v1/cross-shard/receipts/${s}/${id}/proof`);
    await relayed(`${nodes(s)[0]}/api/v1/cross-shard/ack`, receiptBundle, nodes(s));
    const settled = (await getJson(`${nodes(s)[1]}/api/v1/cross-shard/transfers/${id}`)).body;
    assert.equal(settled.status, 'committed');
    assert.equal(settled.commit_height, receipt.height);
    const again = await postJson(`${nodes(s)[1]}/api/v1/cross-shard/ack`, receiptBundle);
    assert.equal(again.status, 409, JSON.stringify(again.body));
    assert.match(again.body.error as string, /already committed/);
  });
}

test('a deadline passing: the abort receipt, then the refund of the value (not the fee); a pre-deadline proof sent afterwards is 409', async () => {
  const before = await balance(0, a0);
  const { id, fee } = await lock(0, a0, a1, 5_000);
  const early = await bundle(`${nodes(0)[0]}/api/v1/cross-shard/transfers/${id}/proof`);
  const deadline = (early.lock as { deadline_height: number }).deadline_height;
  assert.ok((early.proof as { height: number }).height < deadline);
  // The relayer was away: no refund before an abort, however late.
  const late = await bundle(`${nodes(0)[0]}/api/v1/cross-shard/transfers/${id}/proof`, (h) => h >= deadline);
  assert.equal((await getJson(`${nodes(0)[1]}/api/v1/cross-shard/transfers/${id}`)).body.status, 'locked', 'still locked past the deadline');
  await relayed(`${nodes(1)[0]}/api/v1/cross-shard/commit`, late, nodes(1));
  const receipt = (await getJson(`${nodes(1)[1]}/api/v1/cross-shard/receipts/0/${id}`)).body;
  assert.equal(receipt.outcome, 'aborted');
  const refused = await postJson(`${nodes(1)[1]}/api/v1/cross-shard/commit`, early);
  assert.equal(refused.status, 409, JSON.stringify(refused.body));
  assert.match(refused.body.error as string, /aborted/);
  await relayed(`${nodes(0)[1]}/api/v1/cross-shard/ack`, await bundle(`${nodes(1)[0]}/api/v1/cross-shard/receipts/0/${id}/proof`), nodes(0));
  const settled = (await getJson(`${nodes(0)[0]}/api/v1/cross-shard/transfers/${id}`)).body;
  assert.equal(settled.status, 'refunded');
  assert.equal(await balance(0, a0), before - fee, 'the value came back; the fee did not');
});

test('every validator of a shard reaches the same root; the shards\' cross_shard totals balance', async () => {
  for (const s of [0, 1]) await sameRootEverywhere({ rpcUrls: nodes(s) });
  const [t0, t1] = await Promise.all([0, 1].map(async (s) => ((await getJson(`${nodes(s)[0]}/api/v1/shards`)).body.shards as Array<{ cross_shard: { locked: number; sent: number; refunded: number; received: number } }>)[0]!.cross_shard));
  assert.ok(t0 && t1);
  assert.equal(t0.locked + t1.locked, 0);
  assert.equal(t0.sent + t1.sent, t0.received + t1.received);
  assert.equal(t0.refunded, 5_000);
});
