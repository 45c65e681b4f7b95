import { test } from 'node:test';
import assert from 'node:assert/strict';
import { labelledWallet, makeChain, signOperation, signOwnLayout, signTransfer, type Fixture, type Wallet } from '../../test/helpers/chain-fixture.js';
import { isChainError, listMainKeys } from '../../kernel/sdk.js';
import { identityPlugin } from './index.js';
import { identityMessages } from './messages.js';
import { cataloguedPlugin } from '../../test/helpers/catalogued-plugin.js';
const sessionPlugin = cataloguedPlugin('session');

const owner = labelledWallet('identity-owner');
const fresh = labelledWallet('identity-fresh');
const agent = labelledWallet('identity-agent');
const [g1, g2, g3] = [labelledWallet('identity-g1'), labelledWallet('identity-g2'), labelledWallet('identity-g3')];
const outsider = labelledWallet('identity-outsider');
const shop = labelledWallet('identity-shop');
let clock = 1_800_000_000_000;

async function chain(): Promise<Fixture> {
  return makeChain({ plugins: [sessionPlugin, identityPlugin], accounts: [owner, g1, g2, g3, outsider].map((w) => ({ address: w.address, balance: 1_000_000n })) });
}

async function expectRefused(p: Promise<unknown>, status: number, re: RegExp): Promise<void> {
  await assert.rejects(p, (e: unknown) => isChainError(e) && e.status === status && re.test(e.message));
}

async function confirmed(f: Fixture, name: string, body: Record<string, unknown>): Promise<void> {
  const r = await f.chain.admitOperation(name, body, {}, 0);
  await f.block();
  const receipt = (await f.chain.lookupTx(r.tx_hash))!.receipt!;
  assert.equal(receipt.status, 'confirmed', receipt.error ?? '');
}

const rotate = (w: Wallet, add: string, remove: string, account = owner.address) => {
  const nonce = ++clock;
  const body = { owner: account, add, remove };
  return signOwnLayout(w, identityMessages.rotate(body, BigInt(nonce)), body, nonce);
};
const signed = <B extends Record<string, unknown>>(w: Wallet, layout: (b: B, n: bigint) => string, body: B) => {
  const nonce = ++clock;
  return signOwnLayout(w, layout(body, BigInt(nonce)), body, nonce);
};
const transfer = async (f: Fixture, w: Wallet, from = owner.address) => signTransfer(w, { from, to: shop.address, value: 1, nonce: Number((await f.account(from)).nonce) + 1 });
const keysOf = (f: Fixture, address: string) => listMainKeys(f.chain.queries.state, address);

test('rotation: the added key signs, the removed derived key is refused like any unknown key, version rises; the session keys it granted end for good', async () => {
  const f = await chain();
  await confirmed(f, 'grant_session', signOperation(owner, { actor: owner.address, target: 'chain:system.session', nonce: ++clock, body: { account: owner.address, session_pk: agent.publicKeyHex, scope: '*', cap: 1000, expiry_block: 100 } }));
  // Rotation signs its own layout: the common ch-tx-v2 text does not verify.
  await expectRefused(f.chain.admitOperation('rotate_key', signOperation(owner, { actor: owner.address, target: 'chain:system.identity', nonce: ++clock, body: { owner: owner.address, add: fresh.publicKeyHex, remove: '' } }), {}, 0), 401, /signature/);
  await confirmed(f, 'rotate_key', rotate(owner, fresh.publicKeyHex, ''));
  assert.deepEqual(await keysOf(f, owner.address), { keys: [owner.publicKeyHex, fresh.publicKeyHex], version: 1 });
  await f.chain.admit(await transfer(f, fresh), 0);
  await f.block();
  assert.equal((await f.account(shop.address)).balance, 1n, 'the added key signs');

  await expectRefused(f.chain.admitOperation('rotate_key', rotate(agent, '', owner.publicKeyHex), {}, 0), 401, /only a main key of the account may rotate keys/);
  await confirmed(f, 'rotate_key', rotate(fresh, '', owner.publicKeyHex));
  assert.deepEqual(await keysOf(f, owner.address), { keys: [fresh.publicKeyHex], version: 2 });
  await expectRefused(f.chain.admit(await transfer(f, owner), 0), 401, /not bound to/);
  await expectRefused(f.chain.admit(await transfer(f, agent), 0), 401, /session key ended/);
  f.chain.mempool.add(f.chain.rebuildTx('signed', await transfer(f, owner), 1n, 0));
  const b = await f.block();
  assert.match((await f.chain.lookupTx(b.tx_hashes[0]!))!.receipt!.error!, /not bound to/);
  // The old key added back does not revive what it granted before it was removed.
  await confirmed(f, 'rotate_key', rotate(fresh, owner.publicKeyHex, ''));
  await expectRefused(f.chain.admit(await transfer(f, agent), 0), 401, /session key ended/);
  await expectRefused(f.chain.admitOperation('rotate_key', rotate(fresh, '', shop.publicKeyHex), {}, 0), 400, /not a main key/);
});

test('recovery: 2 of 3 guardians and the timelock hand the account to the new key; a guardian votes once, a non-guardian is 403', async () => {
  const f = await chain();
  await confirmed(f, 'recovery_setup', signed(owner, identityMessages.setup, { owner: owner.address, guardians: [g1.address, g2.address, g3.address], threshold: 2, timelock: 3 }));
  await confirmed(f, 'recovery_request', signed(g1, identityMessages.request, { requester: g1.address, target: owner.address, new_key: fresh.publicKeyHex }));
  await confirmed(f, 'recovery_approve', signed(g1, identityMessages.approve, { guardian: g1.address, target: owner.address, request_id: 1 }));
  await expectRefused(f.chain.admitOperation('recovery_approve', signed(g1, identityMessages.approve, { guardian: g1.address, target: owner.address, request_id: 1 }), {}, 0), 400, /already approved/);
  await expectRefused(f.chain.admitOperation('recovery_approve', signed(outsider, identityMessages.approve, { guardian: outsider.address, target: owner.address, request_id: 1 }), {}, 0), 403, /not a guardian/);
  await confirmed(f, 'recovery_approve', signed(g2, identityMessages.approve, { guardian: g2.address, target: owner.address, request_id: 1 }));
  assert.deepEqual((await keysOf(f, owner.address)).keys, [], 'still the derived key until the timelock ends');
  for (let i = 0; i < 3; i++) await f.block();
  assert.deepEqual(await keysOf(f, owner.address), { keys: [fresh.publicKeyHex], version: 1 });
  await expectRefused(f.chain.admit(await transfer(f, owner), 0), 401, /not bound to/);
  await f.chain.admit(await transfer(f, fresh), 0);
});

test('the owner cancels a hostile recovery during the timelock and keeps the account; the requester may withdraw; rejections close it', async () => {
  const f = await chain();
  await confirmed(f, 'recovery_setup', signed(owner, identityMessages.setup, { owner: owner.address, guardians: [g1.address, g2.address], threshold: 2, timelock: 50 }));
  await confirmed(f, 'recovery_request', signed(outsider, identityMessages.request, { requester: outsider.address, target: owner.address, new_key: outsider.publicKeyHex }));
  await confirmed(f, 'recovery_approve', signed(g1, identityMessages.approve, { guardian: g1.address, target: owner.address, request_id: 1 }));
  await confirmed(f, 'recovery_approve', signed(g2, identityMessages.approve, { guardian: g2.address, target: owner.address, request_id: 1 }));
  await confirmed(f, 'recovery_cancel', signed(owner, identityMessages.cancel, { owner: owner.address }));
  for (let i = 0; i < 50; i++) await f.block();
  assert.deepEqual((await keysOf(f, owner.address)).keys, [], 'the owner keeps its derived key');
  await f.chain.admit(await transfer(f, owner), 0);
  await expectRefused(f.chain.admitOperation('recovery_cancel', signed(owner, identityMessages.cancel, { owner: owner.address }), {}, 0), 404, /no open recovery request/);

  // An approval signed for request 1 and kept back does not count for request 2: it names request 1.
  const keptBack = signed(g1, identityMessages.approve, { guardian: g1.address, target: owner.address, request_id: 1 });
  await confirmed(f, 'recovery_request', signed(outsider, identityMessages.request, { requester: outsider.address, target: owner.address, new_key: outsider.publicKeyHex }));
  await expectRefused(f.chain.admitOperation('recovery_approve', keptBack, {}, 0), 400, /is request 2, not 1/);
  f.chain.mempool.add(f.chain.rebuildTx('signed', f.operations.envelope('recovery_approve', keptBack, {}), 1n, 0));
  const replayed = (await f.chain.lookupTx((await f.block()).tx_hashes[0]!))!.receipt!;
  assert.equal(replayed.status, 'failed');
  assert.match(replayed.error!, /is request 2, not 1/);
  // Rewording the kept-back approval for request 2 breaks its signature.
  await expectRefused(f.chain.admitOperation('recovery_approve', { ...keptBack, request_id: 2 }, {}, 0), 401, /signature/);
  await expectRefused(f.chain.admitOperation('recovery_withdraw', signed(g1, identityMessages.withdraw, { requester: g1.address, target: owner.address }), {}, 0), 403, /was made by/);
  await confirmed(f, 'recovery_withdraw', signed(outsider, identityMessages.withdraw, { requester: outsider.address, target: owner.address }));
  await confirmed(f, 'recovery_request', signed(outsider, identityMessages.request, { requester: outsider.address, target: owner.address, new_key: outsider.publicKeyHex }));
  await confirmed(f, 'recovery_reject', signed(g1, identityMessages.reject, { guardian: g1.address, target: owner.address, request_id: 3 }));
  await expectRefused(f.chain.admitOperation('recovery_approve', signed(g2, identityMessages.approve, { guardian: g2.address, target: owner.address, request_id: 3 }), {}, 0), 404, /no open recovery request/);
});

test('two scheduled recoveries: the cancelled one is taken off the due list, the other completes at its own height', async () => {
  const f = await chain();
  const other = outsider;
  const newOther = labelledWallet('identity-new-other');
  for (const w of [owner, other]) await confirmed(f, 'recovery_setup', signed(w, identityMessages.setup, { owner: w.address, guardians: [g1.address, g2.address], threshold: 2, timelock: 6 }));
  await confirmed(f, 'recovery_request', signed(g3, identityMessages.request, { requester: g3.address, target: owner.address, new_key: fresh.publicKeyHex }));
  await confirmed(f, 'recovery_request', signed(g3, identityMessages.request, { requester: g3.address, target: other.address, new_key: newOther.publicKeyHex }));
  for (const target of [owner.address, other.address]) {
    for (const g of [g1, g2]) await confirmed(f, 'recovery_approve', signed(g, identityMessages.approve, { guardian: g.address, target, request_id: 1 }));
  }
  const due = async () => (JSON.parse(Buffer.from((await f.chain.queries.state.get('identity/due')) ?? Buffer.from('{"entries":[]}')).toString()) as { entries: Array<{ target: string }> }).entries.map((e) => e.target);
  assert.deepEqual((await due()).sort(), [owner.address, other.address].sort());
  await confirmed(f, 'recovery_cancel', signed(owner, identityMessages.cancel, { owner: owner.address }));
  assert.deepEqual(await due(), [other.address]);
  for (let i = 0; i < 6; i++) await f.block();
  assert.deepEqual((await keysOf(f, owner.address)).keys, [], 'cancelled: the owner keeps its derived key');
  assert.deepEqual(await keysOf(f, other.address), { keys: [newOther.publicKeyHex], version: 1 });
  assert.equal(await f.chain.queries.state.get('identity/due'), undefined, 'nothing left scheduled');
});

test('decisions.md §90: part 1\'s bodies succeed: requester left out is the signing key\'s address; a vote without request_id is verified against the open request, so one signed for an earlier request never counts for a later one, at admission or in a block', async () => {
  const f = await chain();
  await confirmed(f, 'recovery_setup', signed(owner, identityMessages.setup, { owner: owner.address, guardians: [g1.address, g2.address], threshold: 2, timelock: 50 }));
  // request: target, new_key, S; signed over the requester the key derives.
  const asRequest = (w: Wallet, newKey: string) => {
    const nonce = ++clock;
    return signOwnLayout(w, identityMessages.request({ requester: w.address, target: owner.address, new_key: newKey }, BigInt(nonce)), { target: owner.address, new_key: newKey }, nonce);
  };
  await confirmed(f, 'recovery_request', asRequest(outsider, outsider.publicKeyHex));
  const open = async () => JSON.parse(new TextDecoder().decode((await f.chain.queries.state.get(`identity/request/${owner.address}`))!)) as { id: number; requester: string; approvals: string[] };
  assert.equal((await open()).requester, outsider.address);
  // approve: target, guardian, S; signed over the open request's id (1).
  const vote = (g: Wallet, id: number) => {
    const nonce = ++clock;
    return signOwnLayout(g, identityMessages.approve({ guardian: g.address, target: owner.address, request_id: id }, BigInt(nonce)), { target: owner.address, guardian: g.address }, nonce);
  };
  await confirmed(f, 'recovery_approve', vote(g1, 1));
  assert.deepEqual((await open()).approvals, [g1.address]);
  const keptBack = vote(g2, 1);
  // withdraw: target, S.
  const nonce = ++clock;
  await confirmed(f, 'recovery_withdraw', signOwnLayout(outsider, identityMessages.withdraw({ requester: outsider.address, target: owner.address }, BigInt(nonce)), { target: owner.address }, nonce));
  await confirmed(f, 'recovery_request', asRequest(outsider, outsider.publicKeyHex));
  assert.equal((await open()).id, 2);
  await expectRefused(f.chain.admitOperation('recovery_approve', keptBack, {}, 0), 401, /does not verify over the recovery_approve layout for request_id 2/);
  const before = (await f.account(g2.address)).balance;
  f.chain.mempool.add(f.chain.rebuildTx('signed', f.operations.envelope('recovery_approve', keptBack, {}), 1n, 0));
  const r = (await f.chain.lookupTx((await f.block()).tx_hashes[0]!))!.receipt!;
  assert.deepEqual([r.status, r.fee], ['failed', 0n]);
  assert.match(r.error!, /does not verify over the recovery_approve layout for request_id 2/);
  assert.equal((await f.account(g2.address)).balance, before, 'never signed for this request: nothing charged');
  assert.deepEqual((await open()).approvals, []);
  // ch-tx-v4 covers the body as sent: a vote signed v4 must name its request there.
  const v4 = (body: Record<string, unknown>) => signOperation(g2, { kind: 'recovery_approve', actor: g2.address, target: 'chain:system.identity', nonce: ++clock, body });
  await expectRefused(f.chain.admitOperation('recovery_approve', v4({ target: owner.address, guardian: g2.address }), {}, 0), 401, /put request_id in the body/);
  await confirmed(f, 'recovery_approve', v4({ target: owner.address, guardian: g2.address, request_id: 2 }));
  assert.deepEqual((await open()).approvals, [g2.address]);
});

test('guardian-of is counted per guardian as recoveries are set up and replaced, so a page is read without reading every entry', async () => {
  const f = await chain();
  const count = async (g: Wallet): Promise<number | undefined> => {
    const raw = await f.chain.queries.state.get(`identity/guards_count/${g.address}`);
    return raw === undefined ? undefined : (JSON.parse(new TextDecoder().decode(raw)) as number);
  };
  const entries = async (g: Wallet): Promise<string[]> => (await f.chain.queries.state.scan(`identity/guards/${g.address}/`)).map(([k]) => k.slice(`identity/guards/${g.address}/`.length));
  await confirmed(f, 'recovery_setup', signed(owner, identityMessages.setup, { owner: owner.address, guardians: [g1.address, g2.address], threshold: 1, timelock: 5 }));
  await confirmed(f, 'recovery_setup', signed(outsider, identityMessages.setup, { owner: outsider.address, guardians: [g1.address], threshold: 1, timelock: 5 }));
  assert.deepEqual([await count(g1), await count(g2), (await entries(g1)).length], [2, 1, 2]);
  // The owner keeps g1, drops g2, adds g3.
  await confirmed(f, 'recovery_setup', signed(owner, identityMessages.setup, { owner: owner.address, guardians: [g3.address, g1.address], threshold: 2, timelock: 5 }));
  assert.deepEqual([await count(g1), await count(g2), await count(g3)], [2, undefined, 1]);
  assert.deepEqual(await entries(g2), []);
  assert.deepEqual((await entries(g1)).sort(), [outsider.address, owner.address].sort());
});
