import { test, after, before } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestDevnet, sameRootEverywhere, type TestDevnet } from '../helpers/devnet.js';
import { getJson, postJson, spawnChainProcess, until, waitConfirmed, type ChainProcess } from '../helpers/node-process.js';
import { signOperation, signTransfer, walletOnShard, type Wallet } from '../helpers/chain-fixture.js';
import { freePorts } from '../helpers/cluster.js';
import { submitCrossShard } from '../helpers/xshard-devnet.js';
import { makeKeyFile, writeKeyFile } from '../../kernel/crypto/keyfile.js';
import { nobleProvider } from '../../kernel/crypto/noble-provider.js';
import { sha3 } from '../../kernel/crypto/hash.js';
import { shardOf } from '../../kernel/crypto/fnv.js';

/*
 * The sharded devnet's own relayer at work (decisions.md §72, §74–§77): one 2 × 2 devnet started
 * WITH `chain relay-shards`, the test only a client of the gateway and the nodes. It never posts a
 * commit or an ack the relayer should have sent: it sends transfers and watches the relayer settle
 * them; pauses the relayer (SIGSTOP) across a deadline to see the abort and the refund come only
 * after it resumes; and grows shard 1's set with a validator of its own (a `.node` registered and
 * staked through the RPC, its process started with shard 1's configuration), so that shard 0
 * refuses a bundle of the new set until the relayer's header update is proven there.
 * xshard.test.ts covers the same transfers with the test as the relayer (`--no-relay`).
 */
// 40 blocks: with transactions pending a block comes every 50 ms, so 10 blocks can pass in under a
// second while a relayer that just resumed still bisects two set changes on a loaded machine; the
// pause across the deadline costs ~12 s of empty blocks for it.
const TIMEOUT = 40;
const COIN = 1_000_000;
let net: TestDevnet;
let relayPid = 0;
let relayStopped = false;
let joiner: ChainProcess | undefined;
const nodes = (s: number): string[] => net.rpcUrls.filter((_, k) => Math.floor(k / 2) === s);
const a0 = walletOnShard(0, 2);
const a1 = walletOnShard(1, 2);
const owner1 = walletOnShard(1, 2, 1);
const nonces = new Map<string, number>();
let opNonce = Date.now();
/** Every value the relayer committed, by source shard; and every refund: the totals check at the end. */
const committed = [0, 0];
let refunded = 0;

/** The joining validator: a `.node` name shard 1 owns (FNV-1a mod 2, §71), and its consensus key. */
const JOINER_LABEL = (() => {
  for (let t = 0; ; t++) if (shardOf(`chain:joiner-${t}.node`, 2) === 1) return `joiner-${t}`;
})();
const JOINER = `chain:${JOINER_LABEL}.node`;
const joinerKey = makeKeyFile(nobleProvider, sha3('xshard-relay-joiner-consensus'), JOINER_LABEL);

function pauseRelayer(): void {
  process.kill(relayPid, 'SIGSTOP');
  relayStopped = true;
}
/** Idempotent: every test that paused the relayer calls it in `finally`, and `after` once more. */
function resumeRelayer(): void {
  if (!relayStopped) return;
  process.kill(relayPid, 'SIGCONT');
  relayStopped = false;
}

before(async () => {
  // A poll every 200 ms (RELAY_POLL_MS, §77; 1000 by default) keeps a relayer that just resumed
  // well inside the deadline on a loaded machine; every figure below is in blocks.
  net = await startTestDevnet({ shards: 2, validators: 2, relay: true, genesisParams: { relay_timeout_blocks: String(TIMEOUT) }, env: { RELAY_POLL_MS: '200' } });
  relayPid = Number(readFileSync(join(net.dir, 'relay.pid'), 'utf8').trim());
  assert.ok(relayPid > 0 && net.relay?.pid === relayPid, 'the devnet wrote its relayer\'s pid');
  for (const w of [a0, a1, owner1]) {
    const f = await postJson(`${net.gatewayUrl}/api/v1/faucet`, { address: w.address, public_key: w.publicKeyHex });
    assert.equal(f.status, 200, JSON.stringify(f.body));
    for (const url of nodes(shardOf(w.address, 2))) await waitConfirmed(url, f.body.tx_hash as string);
  }
});
after(async () => {
  // A stopped relayer would never see the devnet's SIGTERM; each step runs whatever the one before did.
  try {
    if (relayPid) resumeRelayer();
  } catch {
    // already gone
  }
  await joiner?.stop().catch(() => undefined);
  await net?.stop();
});
// Killed mid-file, `after` does not run: resume the relayer on the way out all the same.
process.once('exit', () => {
  if (relayStopped) {
    try {
      process.kill(relayPid, 'SIGCONT');
    } catch {
      // already gone
    }
  }
});

const gw = (path: string): Promise<{ status: number; body: Record<string, unknown> }> => getJson(`${net.gatewayUrl}${path}`);
const balance = async (w: Wallet): Promise<number> => (await gw(`/api/v1/accounts/${w.address}`)).body.balance as number;
const headOf = async (s: number): Promise<number> => ((await gw('/api/v1/state/root')).body.shard_heights as number[])[s]!;
const lockOf = async (id: string): Promise<Record<string, unknown>> => (await gw(`/api/v1/cross-shard/transfers/${id}`)).body;
const receiptOf = async (s: number, id: string): Promise<{ status: number; body: Record<string, unknown> }> => gw(`/api/v1/cross-shard/receipts/${s}/${id}`);
const shardEntry = async (s: number): Promise<Record<string, unknown>> => ((await gw('/api/v1/shards')).body.shards as Array<Record<string, unknown>>).find((e) => e.shard === s)!;
const clientOf = async (holder: number, of: number): Promise<Record<string, unknown>> => ((await gw(`/api/v1/cross-shard/clients?shard=${holder}`)).body.clients as Array<Record<string, unknown>>).find((c) => c.shard === of)!;

/** A transfer through the gateway to another shard's `to`: the exact debit once every validator of the source applied it; answers the lock. */
async function send(from: Wallet, to: Wallet, value: number): Promise<{ id: string; fee: number; debited: number; lock: Record<string, unknown> }> {
  const s = shardOf(from.address, 2);
  const nonce = (nonces.get(from.address) ?? 0) + 1;
  nonces.set(from.address, nonce);
  const before = await balance(from);
  const { id, tx } = await submitCrossShard(`${net.gatewayUrl}/api/v1/transactions`, signTransfer(from, { to: to.address, value, nonce }), 1 - s, nodes(s));
  const fee = tx.fee as number;
  const debited = await balance(from);
  assert.equal(debited, before - value - fee, 'the exact debit: value + fee');
  const lock = await lockOf(id);
  assert.deepEqual({ from: lock.from, to: lock.to, value: lock.value, source_shard: lock.source_shard, dest_shard: lock.dest_shard, lock_height: lock.lock_height, deadline_height: lock.deadline_height }, { from: from.address, to: to.address, value, source_shard: s, dest_shard: 1 - s, lock_height: tx.block, deadline_height: (tx.block as number) + TIMEOUT });
  // The source's queue lists it (the relayer may already have settled it by now: any status).
  const queue = (await gw(`/api/v1/cross-shard/queue?shard=${s}&limit=100`)).body.transfers as Array<{ id: string }>;
  assert.ok(queue.some((l) => l.id === id), 'the lock is in the source\'s queue');
  return { id, fee, debited, lock };
}

/** Every validator of shard `s` has applied the block of `hash` (balances read after it are final everywhere). */
async function appliedEverywhere(s: number, hash: string): Promise<Record<string, unknown>> {
  let tx: Record<string, unknown> = {};
  for (const url of nodes(s)) tx = await waitConfirmed(url, hash);
  assert.equal(tx.status, 'confirmed', JSON.stringify(tx));
  return tx;
}

/** The first lock bundle the source serves (the lock in the proven state, head − 1). */
async function lockBundle(s: number, id: string): Promise<Record<string, unknown>> {
  return until(`a bundle of lock ${id}`, async () => {
    const r = await getJson(`${nodes(s)[0]}/api/v1/cross-shard/transfers/${id}/proof`);
    return r.status === 200 ? r.body : undefined;
  }, 30_000);
}
const proofHeight = (bundle: Record<string, unknown>): number => (bundle.proof as { height: number }).height;
const settledStatus = (status: unknown): boolean => status === 'committed' || status === 'refunded';

/** The relayer commits and acknowledges `id`: answers the receipt and the source heads seen when each appeared. */
async function settledByRelayer(s: number, id: string): Promise<{ receipt: Record<string, unknown>; lock: Record<string, unknown>; receiptSeenAt: number; ackSeenAt: number }> {
  const receiptSeenAt = await until(`the relayer's receipt of ${id}`, async () => ((await receiptOf(s, id)).status === 200 ? headOf(s) : undefined), 60_000);
  const receipt = (await receiptOf(s, id)).body;
  const commitTx = await appliedEverywhere(1 - s, receipt.tx_hash as string);
  assert.equal(commitTx.type, 'cross_shard_commit', 'the receipt was written by a commit the test never sent');
  const ackSeenAt = await until(`the relayer's ack of ${id}`, async () => (settledStatus((await lockOf(id)).status) ? headOf(s) : undefined), 60_000);
  // Every validator of the source has applied the ack before anyone reads a balance there.
  for (const url of nodes(s)) await until(`the ack of ${id} at ${url}`, async () => (settledStatus((await getJson(`${url}/api/v1/cross-shard/transfers/${id}`)).body.status) ? true : undefined), 30_000);
  return { receipt, lock: await lockOf(id), receiptSeenAt, ackSeenAt };
}

for (const [s, from, to, value] of [[0, () => a0, () => a1, 12_345], [1, () => a1, () => a0, 23_456]] as const) {
  test(`shard ${s} → shard ${1 - s} through the gateway: the relayer commits (exact credit) and acknowledges (lock committed)`, async () => {
    const d = 1 - s;
    const before = await balance(to());
    const { id, lock } = await send(from(), to(), value);
    const { receipt, lock: settled, receiptSeenAt, ackSeenAt } = await settledByRelayer(s, id);
    assert.deepEqual({ outcome: receipt.outcome, value: receipt.value, value_human: receipt.value_human, to: receipt.to, source_shard: receipt.source_shard }, { outcome: 'committed', value, value_human: `0.0${value} COIN`, to: to().address, source_shard: s });
    assert.ok((receipt.proof_height as number) < (lock.deadline_height as number));
    assert.equal(await balance(to()), before + value, 'the exact credit');
    assert.equal(settled.status, 'committed');
    assert.equal(settled.commit_height, receipt.height);
    committed[s] = committed[s]! + value;
    const lockHeight = lock.lock_height as number;
    console.log(`xshard-relay figure: shard ${s} → ${d}, lock at source height ${lockHeight}: receipt written by source height ${receiptSeenAt} (${receiptSeenAt - lockHeight} blocks, proof_height ${receipt.proof_height as number}), lock committed by source height ${ackSeenAt} (${ackSeenAt - lockHeight} blocks)`);
  });
}

test('relayer paused (SIGSTOP) across the deadline: no refund before an abort; resumed, it writes the abort, then the refund of the value; the kept pre-deadline bundle is 409', async () => {
  const before = await balance(a0);
  const receiverBefore = await balance(a1);
  pauseRelayer();
  try {
    const { id, fee, debited, lock } = await send(a0, a1, 5_000);
    const deadline = lock.deadline_height as number;
    const early = await lockBundle(0, id);
    assert.ok(proofHeight(early) < deadline, `a pre-deadline bundle: proof height ${proofHeight(early)}, deadline ${deadline}`);
    const queued = (await gw('/api/v1/cross-shard/queue?shard=0&status=locked')).body.transfers as Array<{ id: string }>;
    assert.ok(queued.some((l) => l.id === id), 'the lock waits in the queue as locked');
    // Past the deadline with nobody relaying: the value stays locked, however late.
    await until('the source past the deadline', async () => ((await headOf(0)) > deadline + 1 ? true : undefined), 60_000);
    assert.equal((await lockOf(id)).status, 'locked', 'still locked past the deadline');
    assert.equal(await balance(a0), debited, 'no refund before an abort');
    assert.equal((await receiptOf(0, id)).status, 404, 'no receipt while the relayer is away');
    resumeRelayer();
    const { receipt, lock: settled } = await settledByRelayer(0, id);
    assert.equal(receipt.outcome, 'aborted');
    assert.ok((receipt.proof_height as number) >= deadline, `the relayer's proof is from height ${receipt.proof_height as number}, at or past the deadline ${deadline}`);
    assert.equal(settled.status, 'refunded');
    assert.ok((settled.refund_height as number) > deadline, 'the refund comes after the deadline');
    assert.equal(await balance(a0), before - fee, 'the value came back; the fee did not');
    assert.equal(await balance(a1), receiverBefore, 'the receiver got nothing');
    refunded += 5_000;
    // The pre-deadline bundle kept from the pause, sent now: the abort is written, one outcome only.
    const late = await postJson(`${net.gatewayUrl}/api/v1/cross-shard/commit`, early);
    assert.equal(late.status, 409, JSON.stringify(late.body));
    assert.match(late.body.error as string, /aborted/);
    assert.equal(await balance(a1), receiverBefore);
  } finally {
    resumeRelayer();
  }
});

test('a validator joins shard 1: its set changes; a bundle of the new set is refused at shard 0 until the relayer\'s header update is proven there, then the relayer commits it with the exact credit', async () => {
  const oldSet = (await shardEntry(1)).validators_hash as string;
  assert.equal((await clientOf(0, 1)).validators_hash, oldSet, 'shard 0 trusts shard 1\'s genesis set');
  // Paused first, so the update waits until the test has shown shard 0 refusing the new set.
  pauseRelayer();
  try {
    // The .node registered by its owner (min_stake bonded) and staked more, through the gateway: both land on shard 1, which owns them.
    const sign = (actor: string, target: string, body: Record<string, unknown>, value = 0): Record<string, unknown> => signOperation(owner1, { actor, target, value, nonce: ++opNonce, body });
    const registered = await postJson(`${net.gatewayUrl}/api/v1/nodes/register`, sign(owner1.address, 'chain:system.node', { name: JOINER_LABEL, owner: owner1.address, consensus_public_key: joinerKey.file.public_key }));
    assert.equal(registered.status, 200, JSON.stringify(registered.body));
    await appliedEverywhere(1, registered.body.tx_hash as string);
    const staked = await postJson(`${net.gatewayUrl}/api/v1/staking/stake`, sign(JOINER, 'chain:system.stake', { address: JOINER, amount: 5 * COIN }, 5 * COIN));
    assert.equal(staked.status, 200, JSON.stringify(staked.body));
    await appliedEverywhere(1, staked.body.tx_hash as string);
    // Its process, as an operator starts one for shard 1: that shard's configuration and seeds.
    const keyFile = join(net.dir, 'keys', 'joiner.json');
    writeKeyFile(keyFile, joinerKey.file);
    const [p2p] = await freePorts(1);
    const args = ['node', '--network', 'devnet', '--data-dir', join(net.dir, 'node-joiner'), '--genesis', join(net.dir, 'genesis.json'), '--key', keyFile, '--rpc-port', '0', '--p2p-port', String(p2p), '--seeds', net.p2pAddresses.filter((_, k) => Math.floor(k / 2) === 1).join(',')];
    const env = { ...net.networkEnv, CHAIN_SHARDS: '2', CHAIN_SHARD_ID: '1', CHAIN_MIN_VALIDATORS: '2', CHAIN_LOG_LEVEL: 'info', CHAIN_BLOCK_MS: '50', CHAIN_EMPTY_BLOCK_MS: '300', CHAIN_RPC_RATE_LIMIT: '100000', CHAIN_RPC_TRUSTED_IPS: '127.0.0.1' };
    const listening = /"port":(\d+).*node RPC listening/;
    // Forgetting the shard is refused at start-up, naming the variable (§71), before it touches the data folder.
    const { CHAIN_SHARD_ID: _, ...unsharded } = env;
    await assert.rejects(
      spawnChainProcess(args, unsharded, listening).then(async (p) => {
        await p.stop();
        throw new Error('a shard-1 validator started without CHAIN_SHARD_ID');
      }),
      /CHAIN_SHARD_ID is not set/,
    );
    joiner = await spawnChainProcess(args, env, listening);
    const health = (await getJson(`${joiner.url}/health`)).body;
    assert.deepEqual([health.shard, health.n_shards], [1, 2]);
    const newSet = await until('shard 1\'s set to change', async () => {
      const e = await shardEntry(1);
      // Its whole stake (min_stake at registration, then 5 COIN more): the set after both changes.
      return (e.validators as Array<{ address: string; power: number }>).some((v) => v.address === JOINER && v.power === 15 * COIN) ? (e.validators_hash as string) : undefined;
    }, 60_000);
    assert.equal(((await shardEntry(1)).validators as unknown[]).length, 3);
    await until('the joining validator signing', async () => (joiner!.logs.some((l) => l.includes('this node is in the validator set from this height: signing')) ? true : undefined), 60_000);
    assert.equal((await clientOf(0, 1)).validators_hash, oldSet, 'nobody updated shard 0\'s client yet');

    const before = await balance(a0);
    const { id, lock } = await send(a1, a0, 7_777);
    const bundle = await lockBundle(1, id);
    assert.equal((bundle.proof as { header: { validators_hash: string } }).header.validators_hash, newSet, 'the bundle is certified by the new set');
    const refused = await postJson(`${net.gatewayUrl}/api/v1/cross-shard/commit`, bundle);
    assert.equal(refused.status, 400, JSON.stringify(refused.body));
    assert.match(refused.body.error as string, /does not verify.*not the trusted set/, 'refused for its set, not for anything else');
    assert.equal((await receiptOf(1, id)).status, 404, 'nothing written');
    assert.equal(await balance(a0), before, 'nothing credited');

    resumeRelayer();
    const client = await until('shard 0 to adopt shard 1\'s new set', async () => {
      const c = await clientOf(0, 1);
      return c.validators_hash === newSet ? c : undefined;
    }, 60_000);
    assert.ok((client.trusted_height as number) > 1);
    assert.ok((client.validators as Array<{ address: string }>).some((v) => v.address === JOINER));
    const { receipt, lock: settled, receiptSeenAt, ackSeenAt } = await settledByRelayer(1, id);
    assert.equal(receipt.outcome, 'committed');
    assert.equal(await balance(a0), before + 7_777, 'the exact credit');
    assert.equal(settled.status, 'committed');
    committed[1] = committed[1]! + 7_777;
    const lockHeight = lock.lock_height as number;
    console.log(`xshard-relay figure: after the set change, shard 1 → 0, lock at source height ${lockHeight}: receipt by ${receiptSeenAt} (${receiptSeenAt - lockHeight} blocks, proof_height ${receipt.proof_height as number}, deadline ${lock.deadline_height as number}), lock committed by ${ackSeenAt} (${ackSeenAt - lockHeight} blocks); shard 0 trusts shard 1's set from height ${client.trusted_height as number}`);
  } finally {
    resumeRelayer();
  }
});

test('every validator of a shard (the joiner too) reaches the same root; the shards\' cross_shard totals balance', async () => {
  await sameRootEverywhere({ rpcUrls: nodes(0) });
  await sameRootEverywhere({ rpcUrls: [...nodes(1), ...(joiner ? [joiner.url] : [])] });
  const totals = await Promise.all([0, 1].map(async (s) => (await shardEntry(s)).cross_shard as { locked: number; sent: number; refunded: number; received: number }));
  const [t0, t1] = totals as [typeof totals[0], typeof totals[0]];
  assert.equal(t0.locked + t1.locked, 0, 'nothing left locked');
  assert.equal(t0.sent + t1.sent, t0.received + t1.received, 'Σ sent = Σ received with nothing locked');
  assert.deepEqual([t0.sent, t1.sent], committed, 'what each shard sent is what the relayer committed from it');
  assert.deepEqual([t1.received, t0.received], committed, 'and what the other received');
  assert.equal(t0.refunded + t1.refunded, refunded);
});
