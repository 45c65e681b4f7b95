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
const ADDED_KERNEL_KEYS = new Set(['params/storage_byte_price', 'params/storage_free_bytes']);

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
      const r = (await f.chain.store.getTx(h))?.receipt;
      receipts.push(`${b.header.height} ${r?.status}${r?.error ? ` ${r.error}` : ''}`);
    }
    for (const e of await f.chain.store.getBlockEvents(b.header.height)) events.push(canonicalJson({ height: b.header.height, type: e.type, data: e.data, phase: e.phase, tx: e.tx_hash }));
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
  const rows = (await f.chain.store.state.scan('')).filter(([k]) => !ADDED_KERNEL_KEYS.has(k));
  const state = sha3Hex0x(rows.map(([k, v]) => `${k}=${decoder.decode(v)}`).join('\n'));
  const namespaces = new Set(rows.map(([k]) => k.slice(0, k.indexOf('/') + 1) + k.slice(k.indexOf('/') + 1).split('/')[0]));
  return { roots, state, events, receipts, namespaces };
}

/**
 * What the code before the conversion produced for the scenario (printed by `RECORD=1`). The roots
 * were recorded again when the kernel gained state growth's two parameters (every root covers
 * them); `state` and `events`, which leave those keys out, are the original recording's.
 */
const RECORDED = {
  roots: [
    '0xed6074cac83cd1afce8249543a826867e41b4f8b040d7911be627133b36bc9db',
    '0x4e4e221ae0ffcf7dc28153b0b199dfdc0cd5f898cd4c1c2613bb3141619ac6b6',
    '0xfc1dc39c82766053c50246e7c46c66c779dc604d7f3a8289c2f71d21f1aadd86',
    '0xf882b22c85064dfc2e755dfe54185433dc2b02a11f885d6bcdd5b4a4c731059f',
    '0xbf5dd04c88aa1b13f3cad809bfedcb3a68687eb05a9003b44173eac78c0d5e0d',
    '0xb3cc8e162ed7f192b5cfe212d0a8d35f8fc673124ef6994dd41cb620a5aecb2a',
    '0x5e91e9a66a08dd565541167fbeaed3b3e28492bde7e64409fcf5299b019217a1',
    '0xeb3eb16519f96f712f382002aad79cfeb1f9518258d72cd9e3f9514f3537cc13',
    '0xf872744e3d1b578f61e0aad53bcd8003060465b40d5df2c15a4b910548e31b1b',
    '0x3abb20a45aab7e7cdde0339e6f5c918bef7dba9802f77077b3ca82454d254805',
    '0xa929818e87169f302a39b7d3b4f7044a17f5ba3d970753ed6041024861c9bdaa',
    '0xe84e6f75e53e1ca163e110338bc186448caca5328eea23c1f52277c3860cabab',
    '0x9232945bb818181cbcb08c5dbd1a7c18a381069326c3f5ad9a74c93600bdbd43',
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
