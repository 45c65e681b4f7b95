import { test } from 'node:test';
import assert from 'node:assert/strict';
import { labelledWallet, makeChain, refused, signOperation, signOwnLayout, signTransfer, type Fixture } from '../../test/helpers/chain-fixture.js';
import { sessionPlugin } from '../../plugins/session/index.js';
import { sponsorPlugin } from '../../plugins/sponsor/index.js';
import { identityPlugin } from '../../plugins/identity/index.js';
import { identityMessages } from '../../plugins/identity/public.js';
import { blockHash, txRoot } from './block-hash.js';
import type { Tx } from '../model/types.js';

/**
 * decisions.md §94–95 at the kernel: a ch-tx-v4 signature is good for one kind of act on one
 * chain; a network that requires strong signatures takes v4 for everything but a bare plain
 * transfer (own layouts included); a signature that does not cover the price pays base_fee. Each
 * refusal at admission, and again by a validator judging a block whose proposer skipped it.
 */
const alice = labelledWallet('strong-alice');
const bob = labelledWallet('strong-bob');
const mallory = labelledWallet('strong-mallory');
const SESSION = 'chain:system.session';
const SPONSOR = 'chain:system.sponsor';
const COIN = 1_000_000n;
let clock = 1_800_000_000_000;

const chain = (opts: { mainnet?: boolean } = {}): Promise<Fixture> =>
  makeChain({
    plugins: [sessionPlugin, sponsorPlugin, identityPlugin],
    accounts: [alice, bob].map((w) => ({ address: w.address, balance: 100n * COIN })),
    ...(opts.mainnet ? { env: 'mainnet' as const, requireTxV3: true } : {}),
  });

/** A block with exactly `txs`, as a byzantine proposer that skipped admission would build it, judged by a validator. */
async function judged(f: Fixture, txs: Tx[]): Promise<string | null> {
  const p = await f.chain.propose(0, 'chain:v0.node', Date.now());
  const header = { ...p.header, tx_root: txRoot(txs.map((t) => t.hash)), tx_count: txs.length };
  return f.chain.validate({ header, hash: blockHash(header), txs, evidence: [] });
}
const rebuilt = (f: Fixture, name: string | undefined, body: Record<string, unknown>): Tx =>
  f.chain.rebuildTx('signed', name === undefined ? body : f.operations.envelope(name, body, {}), 1n, 0);

test('a v4 signature is good for one kind of act: a revoke replayed as a grant to another key, a disallow replayed as an allow, are 401 and a block carrying them is refused', async () => {
  const f = await chain();
  const nonce = ++clock;
  const revoke = signOperation(alice, { kind: 'revoke_session', actor: alice.address, target: SESSION, nonce, body: { account: alice.address, session_pk: bob.publicKeyHex } });
  // The same signature under a body the signer never signed: the attacker's key granted.
  const grant = { ...revoke, session_pk: mallory.publicKeyHex, scope: '*', cap: 1_000_000, expiry_block: 1_000 };
  await refused(f.chain.admitOperation('grant_session', grant, {}, 0), 401, /invalid signature: it verifies under none of ch-tx-v4/);
  assert.match((await judged(f, [rebuilt(f, 'grant_session', grant)])) ?? '', /invalid signature/);
  // sponsor_allow and sponsor_disallow have the same body: only the kind tells them apart.
  const disallow = signOperation(alice, { kind: 'sponsor_disallow', actor: alice.address, target: SPONSOR, nonce: ++clock, body: { address: alice.address, beneficiary: bob.address } });
  await refused(f.chain.admitOperation('sponsor_allow', disallow, {}, 0), 401, /invalid signature/);
  assert.match((await judged(f, [rebuilt(f, 'sponsor_allow', disallow)])) ?? '', /invalid signature/);
  // Under v3 they were one message: the replay that v4 closes (test networks still take v3).
  const v3 = signOperation(alice, { kind: 'sponsor_disallow', actor: alice.address, target: SPONSOR, nonce: ++clock, body: { address: alice.address, beneficiary: bob.address }, version: 'v3' });
  assert.equal((await f.chain.admitOperation('sponsor_allow', v3, {}, 0)).status, 'pending', 'a v3 disallow still passes for an allow where v3 is accepted: shipped clients sign v4');
});

test('a v4 signature is good on one chain: signed for another chain id it is 401, and a block carrying it is refused', async () => {
  const f = await chain();
  const elsewhere = signTransfer(alice, { to: bob.address, value: 5, nonce: 1, chainId: 'another-chain' });
  await refused(f.chain.admit(elsewhere, 0), 401, /invalid signature/);
  assert.match((await judged(f, [rebuilt(f, undefined, elsewhere)])) ?? '', /invalid signature/);
  assert.equal((await f.chain.admit(signTransfer(alice, { to: bob.address, value: 5, nonce: 1 }), 0)).status, 'pending');
});

test('where strong signatures are required (mainnet settings), v2 and v3 are refused for all but a bare plain transfer, own layouts too; v4 passes; a block carrying a weak one is refused', async () => {
  const f = await chain({ mainnet: true });
  // A plain transfer without data, gas_price or gas_limit: v2 still passes (part 2 clients).
  assert.equal((await f.chain.admit(signTransfer(alice, { to: bob.address, value: 1, nonce: 1, version: 'v2' }), 0)).status, 'pending');
  for (const version of ['v2', 'v3'] as const) {
    const priced = signTransfer(alice, { to: bob.address, value: 1, nonce: 2, gas_price: 2, version });
    await refused(f.chain.admit(priced, 0), 401, new RegExp(`requires ch-tx-v4 signatures for transactions that carry data, gas_price or gas_limit: ch-tx-${version} is not accepted`));
    assert.match((await judged(f, [rebuilt(f, undefined, priced)])) ?? '', /requires ch-tx-v4/);
    const grant = signOperation(alice, { kind: 'grant_session', actor: alice.address, target: SESSION, nonce: ++clock, body: { account: alice.address, session_pk: bob.publicKeyHex, scope: '*', cap: 1, expiry_block: 100 }, version });
    await refused(f.chain.admitOperation('grant_session', grant, {}, 0), 401, new RegExp(`requires ch-tx-v4 signatures for operations \\(grant_session\\): ch-tx-${version} is not accepted`));
    assert.match((await judged(f, [rebuilt(f, 'grant_session', grant)])) ?? '', /requires ch-tx-v4/);
  }
  assert.equal((await f.chain.admit(signTransfer(alice, { to: bob.address, value: 1, nonce: 2, gas_price: 2 }), 0)).status, 'pending');
  // Identity's own layouts are not taken there either: v4 over the same body is.
  const body = { owner: alice.address, add: mallory.publicKeyHex, remove: '' };
  const n = ++clock;
  const own = signOwnLayout(alice, identityMessages.rotate(body, BigInt(n)), body, n);
  await refused(f.chain.admitOperation('rotate_key', own, {}, 0), 401, /requires ch-tx-v4 signatures for operations \(rotate_key\): rotate_key's own layout is not accepted/);
  assert.match((await judged(f, [rebuilt(f, 'rotate_key', own)])) ?? '', /requires ch-tx-v4/);
  assert.equal((await f.chain.admitOperation('rotate_key', signOperation(alice, { kind: 'rotate_key', actor: alice.address, target: 'chain:system.identity', nonce: ++clock, body }), {}, 0)).status, 'pending');
});

test('a signature that does not cover the price pays base_fee whatever gas_price the body carries; a gas_limit needs v4 (400)', async () => {
  const f = await chain();
  // A relayer adds gas_price to a v2 transfer and to an own-layout rotation: both pay base_fee (1).
  const v2 = { ...signTransfer(alice, { to: bob.address, value: 5, nonce: 1, version: 'v2' }), gas_price: 1_000 };
  const answer = await f.chain.admit(v2, 0);
  assert.equal(answer.gas_price, 1n, 'admission says what it charges');
  const n = ++clock;
  const rot = { owner: bob.address, add: mallory.publicKeyHex, remove: '' };
  const rotation = { ...signOwnLayout(bob, identityMessages.rotate(rot, BigInt(n)), rot, n), gas_price: 1_000 };
  const r = await f.chain.admitOperation('rotate_key', rotation, {}, 0);
  const before = [(await f.account(alice.address)).balance, (await f.account(bob.address)).balance];
  const b = await f.block();
  const [t1, t2] = await Promise.all([answer.tx_hash, r.tx_hash].map((h) => f.chain.lookupTx(h)));
  assert.deepEqual([t1!.receipt!.status, t1!.receipt!.fee, t1!.tx.gasPrice, t1!.tx.sigVersion], ['confirmed', 21n, 1n, 'v2']);
  assert.deepEqual([t2!.receipt!.status, t2!.receipt!.fee, t2!.tx.gasPrice, t2!.tx.sigVersion], ['confirmed', 60n, 1n, 'own']);
  assert.equal((await f.account(alice.address)).balance, before[0]! - 5n - 21n);
  assert.equal((await f.account(bob.address)).balance, before[1]! + 5n - 60n);
  assert.equal(b.fees_burned, 81n, 'nothing above base_fee went to the proposer');
  // Past admission (a proposer that skipped it), the block prices it by the layout it verifies under.
  const injected = rebuilt(f, undefined, { ...signTransfer(alice, { to: bob.address, value: 5, nonce: 2, version: 'v2' }), gas_price: 1_000 });
  assert.equal(injected.gasPrice, 1_000n, 'rebuilt from the body alone, before any signature was checked');
  f.chain.mempool.add(injected);
  const ib = await f.block();
  const ir = (await f.chain.lookupTx(ib.tx_hashes[0]!))!;
  assert.deepEqual([ir.receipt!.status, ir.receipt!.fee, ir.tx.gasPrice], ['confirmed', 21n, 1n]);
  // The floor still applies to the field: below base_fee is refused whatever the layout.
  const cheap = { ...signTransfer(alice, { to: bob.address, value: 5, nonce: 3, version: 'v2' }), gas_price: 0 };
  await refused(f.chain.admit(cheap, 0), 400, /gas_price 0 is below base_fee 1/);
  // A gas_limit under an own layout (or v2, v3) is 400: only v4 covers it.
  const m = ++clock;
  const limited = { ...signOwnLayout(alice, identityMessages.rotate({ owner: alice.address, add: bob.publicKeyHex, remove: '' }, BigInt(m)), { owner: alice.address, add: bob.publicKeyHex, remove: '' }, m), gas_limit: 1_000 };
  await refused(f.chain.admitOperation('rotate_key', limited, {}, 0), 400, /gas_limit needs a ch-tx-v4 signature: rotate_key's own layout does not cover it/);
  assert.match((await judged(f, [rebuilt(f, 'rotate_key', limited)])) ?? '', /gas_limit needs a ch-tx-v4 signature/);
});
