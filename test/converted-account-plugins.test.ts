import { test } from 'node:test';
import assert from 'node:assert/strict';
import { labelledWallet, makeChain, signOperation, signOwnLayout, signTransfer, type Fixture, type Wallet } from './helpers/chain-fixture.js';
import { identityPlugin } from '../plugins/identity/index.js';
import { identityMessages } from '../plugins/identity/public.js';
import { sessionPlugin } from '../plugins/session/index.js';
import { sponsorPlugin } from '../plugins/sponsor/index.js';
import { canonicalJson, sha3Hex0x } from '../kernel/sdk.js';

/*
 * identity, session and sponsor moved to declared stores, events and routes (issue 30, phase B)
 * without changing one byte of their state: a chain that upgrades its build keeps its state
 * roots. One scenario reaches every record kind of the three (identity's config, request, guards,
 * guards_count, derived, removed, reset and due; session's grants with spent and revoked; sponsor's
 * paidby/pays and pools) and its roots, state and events at every height are compared with those
 * the code before the conversion produced (recorded below from commit 1179de6, the main of the
 * day). A change of layout, encoding or event shape fails here with the height it appeared at.
 */

const owner = labelledWallet('bytes-owner');
const fresh = labelledWallet('bytes-fresh');
const agent = labelledWallet('bytes-agent');
const [g1, g2, g3] = [labelledWallet('bytes-g1'), labelledWallet('bytes-g2'), labelledWallet('bytes-g3')];
const g3next = labelledWallet('bytes-g3-next');
const sponsor = labelledWallet('bytes-sponsor');
const user = labelledWallet('bytes-user');
const shop = labelledWallet('bytes-shop');

/** State keys the kernel writes at genesis that the recording below predates. */
const ADDED_KERNEL_KEYS = new Set(['params/storage_byte_price', 'params/storage_free_bytes', 'ibc/valset']);

interface Run {
  roots: string[];
  state: string;
  events: string[];
  receipts: string[];
  namespaces: Set<string>;
}

async function scenario(): Promise<Run> {
  const f: Fixture = await makeChain({
    plugins: [identityPlugin, sessionPlugin, sponsorPlugin],
    accounts: [owner, g1, g2, g3, sponsor, user].map((w) => ({ address: w.address, balance: 10_000_000n })),
  });
  const roots: string[] = [];
  const events: string[] = [];
  const receipts: string[] = [];
  let time = 1_800_000_000_000;
  let clock = 1_800_000_000_000;
  const block = async (): Promise<void> => {
    const b = await f.block((time += 1000));
    roots.push(b.state_root);
    for (const h of b.tx_hashes) {
      const r = (await f.chain.queries.getTx(h))?.receipt;
      receipts.push(`${b.header.height} ${r?.status}${r?.error ? ` ${r.error}` : ''}`);
    }
    for (const e of await f.chain.queries.getBlockEvents(b.header.height)) events.push(canonicalJson({ height: b.header.height, type: e.type, data: e.data, phase: e.phase, tx: e.tx_hash }));
  };
  const own = <B extends Record<string, unknown>>(name: string, w: Wallet, layout: (b: B, n: bigint) => string, body: B) => {
    const nonce = ++clock;
    return f.chain.admitOperation(name, signOwnLayout(w, layout(body, BigInt(nonce)), body, nonce), {}, 0).catch((e: unknown) => { throw new Error(`${name} after ${roots.length} blocks: ${String(e)}`); });
  };
  const session = (name: string, body: Record<string, unknown>) => f.chain.admitOperation(name, signOperation(owner, { kind: name, actor: owner.address, target: 'chain:system.session', nonce: ++clock, body: { account: owner.address, ...body } }), {}, 0);
  const pool = (name: string, body: Record<string, unknown>, value = 0) => f.chain.admitOperation(name, signOperation(sponsor, { kind: name, actor: sponsor.address, target: 'chain:system.sponsor', value, nonce: ++clock, body: { address: sponsor.address, ...body } }), {}, 0);
  const transfer = async (w: Wallet, from: string, value: number) => f.chain.admit(signTransfer(w, { from, to: shop.address, value, nonce: Number((await f.account(from)).nonce) + 1 }), 0);

  // 1: a session key, guardians, a funded pool.
  await session('grant_session', { session_pk: agent.publicKeyHex, scope: '*', cap: 1000, expiry_block: 100 });
  await session('grant_session', { session_pk: shop.publicKeyHex, scope: [shop.address], cap: 5, expiry_block: 50 });
  await own('recovery_setup', owner, identityMessages.setup, { owner: owner.address, guardians: [g1.address, g2.address, g3.address], threshold: 2, timelock: 2 });
  await pool('sponsor_deposit', { amount: 10_000 }, 10_000);
  await block();
  // 2: the pool pays for an account and for one session key of another; the key spends.
  await pool('sponsor_allow', { beneficiary: user.address });
  await pool('sponsor_allow', { beneficiary: owner.address, session_pk: agent.publicKeyHex });
  await transfer(agent, owner.address, 100);
  await own('rotate_key', g3, identityMessages.rotate, { owner: g3.address, add: g3next.publicKeyHex, remove: '' });
  await block();
  // 3: a recovery is asked for; a sponsored transfer; one grant revoked.
  await own('recovery_request', g1, identityMessages.request, { requester: g1.address, target: owner.address, new_key: fresh.publicKeyHex });
  await transfer(user, user.address, 50);
  await session('revoke_session', { session_pk: shop.publicKeyHex });
  await block();
  // 4: two approvals schedule the completion; a rotation removes g3's derived key.
  await own('recovery_approve', g1, identityMessages.approve, { guardian: g1.address, target: owner.address, request_id: 1 });
  await own('recovery_approve', g2, identityMessages.approve, { guardian: g2.address, target: owner.address, request_id: 1 });
  await own('rotate_key', g3next, identityMessages.rotate, { owner: g3.address, add: '', remove: g3.publicKeyHex });
  await block();
  // 5: the recovery completes at the end of this block; the sponsor stops paying for the user, takes coins back.
  await pool('sponsor_disallow', { beneficiary: user.address });
  await pool('sponsor_withdraw', { amount: 1_000 }, 1_000);
  await block();
  // 6–7: a second request, rejected by two of three guardians.
  await own('recovery_request', g2, identityMessages.request, { requester: g2.address, target: owner.address, new_key: shop.publicKeyHex });
  await block();
  await own('recovery_reject', g1, identityMessages.reject, { guardian: g1.address, target: owner.address, request_id: 2 });
  await own('recovery_reject', g3next, identityMessages.reject, { guardian: g3.address, target: owner.address, request_id: 2 });
  await block();
  // 8–9: a third, withdrawn; new guardians (one kept, two dropped, one added).
  await own('recovery_request', g1, identityMessages.request, { requester: g1.address, target: owner.address, new_key: shop.publicKeyHex });
  await block();
  await own('recovery_withdraw', g1, identityMessages.withdraw, { requester: g1.address, target: owner.address });
  await block();
  await own('recovery_setup', fresh, identityMessages.setup, { owner: owner.address, guardians: [g1.address, user.address], threshold: 1, timelock: 5 });
  await block();
  // 11–13: a fourth, approved (its completion scheduled), then cancelled by the owner's new key.
  await own('recovery_request', user, identityMessages.request, { requester: user.address, target: owner.address, new_key: shop.publicKeyHex });
  await block();
  await own('recovery_approve', g1, identityMessages.approve, { guardian: g1.address, target: owner.address, request_id: 4 });
  await block();
  await own('recovery_cancel', fresh, identityMessages.cancel, { owner: owner.address });
  await block();

  const decoder = new TextDecoder();
  // The kernel parameters added after the recording (state growth's, issue 29 item 8) are not the
  // plugins' bytes: left out of the comparison of state (the roots, which cover them, were recorded again).
  const rows = (await f.chain.queries.state.scan('')).filter(([k]) => !ADDED_KERNEL_KEYS.has(k));
  const state = sha3Hex0x(rows.map(([k, v]) => `${k}=${decoder.decode(v)}`).join('\n'));
  const namespaces = new Set(rows.map(([k]) => k.slice(0, k.indexOf('/') + 1) + k.slice(k.indexOf('/') + 1).split('/')[0]));
  return { roots, state, events, receipts, namespaces };
}

/**
 * What the code before the conversion produced for the scenario (printed by `RECORD=1`). The roots
 * were recorded again when the kernel gained state growth's two parameters, and again when it
 * gained `ibc/valset` (decisions.md §64, §66; every root covers it);
 * `state` and `events`, which leave those keys out, are the original recording's.
 */
const RECORDED = {
  roots: [
    '0xfa6ae532b4c44f00dec788436bf0f5ad4dea051002d6477aad8ab492e8e8f1ab',
    '0xc72cf3aa29be24f3fd04df3c36ad450c5c47f16e07fb11e302bfd0ef0e5cd67d',
    '0x1a4ee108616d21fcca215e94f81ab2c6b762241f7e6b771d364e1494f0ab04db',
    '0x556df687ea9a5130582aaa3d6ec8c51738f871b5ad158e9c5b968b6b32882a43',
    '0xe17964a0b990bfb42a4d836dc64c51c5e92f0685cda04227da5e2c9f15e35070',
    '0xe33cd3287320ffbc3e2003c6c187e1e56e892a7f3b8c5b5af82be8680572799b',
    '0x4bc8f0099dc2cf9ee06b03e4128f142123bf1f4220dd6d77b699f3252ee7ed13',
    '0x0105c0ac30f2adf4ac3a9e5ffa3e0a3df8e63f1d85e2d3e6e2c461f4c1f8e0a3',
    '0xf59745b5506e3f14953751c3b79f9f5bcbba0abf35095693c0dfa98da20473f7',
    '0x7176832666a1ef2d9c3798653bbeb15b7ce553110c6f5aaed3e74e27a89f584a',
    '0xc4e5fa43f74f980cc979216fdc423d95152f68afe6763963588a5e02c6ef48e2',
    '0xa4f9fe7e797e2f7c1d893d9e24d37b513c299876fc64615fdbfa2d7131a6b921',
    '0xf21ed46cb5dc84cf26cc082b7fee753335c8ffa58bff001aad0eee9a5448c1d0',
  ],
  state: '0xef3395cb70da326541190339e70915fece36faec8aca6b040171a1dcf394979a',
  events: '0x3cb040ae8c9c8f5531cee77076a08d4cf48673cb5261fa499b6e0bce81eb5d02',
};

test('identity, session and sponsor write exactly the keys, bytes and events they wrote before their stores and events were declared', async () => {
  const run = await scenario();
  if (process.env.RECORD === '1') console.log(JSON.stringify({ roots: run.roots, state: run.state, events: sha3Hex0x(run.events.join('\n')) }, null, 2), run.receipts, [...run.namespaces].sort());
  // The scenario reached every record kind (a scenario that failed early would compare nothing).
  for (const ns of ['identity/config', 'identity/request', 'identity/guards', 'identity/guards_count', 'identity/derived', 'identity/removed', 'identity/reset', 'session/grant']) assert.ok(run.namespaces.has(ns), `the scenario wrote ${ns}`);
  assert.ok(run.namespaces.has('sponsor/pays') && run.namespaces.has('sponsor/paidby'), 'the scenario wrote sponsor/pays and sponsor/paidby');
  assert.deepEqual(run.receipts.filter((r) => !r.endsWith(' confirmed')), [], 'every transaction of the scenario applied');
  assert.equal(run.receipts.length, 25);
  for (const type of ['keys_rotated', 'recovery_setup', 'recovery_requested', 'recovery_approved', 'recovery_rejected', 'recovery_closed', 'recovery_completed', 'session_granted', 'session_revoked', 'sponsor_deposit', 'sponsor_withdraw', 'sponsor_allowed', 'sponsor_disallowed']) {
    assert.ok(run.events.some((e) => e.includes(`"type":"${type}"`)), `the scenario emitted ${type}`);
  }
  assert.deepEqual(run.roots, RECORDED.roots);
  assert.equal(run.state, RECORDED.state);
  assert.equal(sha3Hex0x(run.events.join('\n')), RECORDED.events);
});
