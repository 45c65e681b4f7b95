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
 * gained `ibc/valset` (decisions.md §64, §66; every root covers it), and when
 * `storage_free_bytes` became 4 096 (docs/decisions.md L1);
 * `state` and `events`, which leave those keys out, are the original recording's.
 */
const RECORDED = {
  roots: [
    '0x1337adeba0cf8e681561f68ccd18dc4d6fc28b92d59a7e434c5eceaa0cd1d3ca',
    '0x5fae0335ecd8939c46b016cba2fed62055b1839b561b163b261855c9655fccef',
    '0xcb8696f047231ca70d5750cc22a5108559d34cf3e8500112e9eca37a1736b7b4',
    '0xe60ef76867187cddf28beac5b82dd8d1cdc4ef1c05d13d9d5e4e447c5e99dc46',
    '0x086b8b2e223258f745239ce1c47b1fe9c7d1f140e4fb0f5307f89453aadd3045',
    '0x38f744879e629f617562eba94962b5e11714b975290ff64a9ff192819d917b16',
    '0xaff5eed6e63c741d496ac4ba74c44c179336ba0743ceaa5780e26850edc53f10',
    '0x3816021630819c6516d9e44e134c7e38d9543f7b2d1a49cdc7efbc0201cf4b36',
    '0x5ae38455ed6d34b024decb00b1ef1f2e57aeeb1a0f095babe1640d8c4e0c5bcb',
    '0x8d4bc5f6345c6a4c4e8d52f56cbb573374e017a43ec7b25dd3ef32bee43ff539',
    '0x8de438caf723ca533073dcc7632b907013c8549afdb62d3c1461c78ec8c1e2ff',
    '0xefdceea2f729a1854c69be0d6d7658e1388eb9e848c83fced55c9e378cb42b5e',
    '0x0f8d470c27706c7623eb0caaa662149114d545ac93333704f6a886fe4061004f',
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
