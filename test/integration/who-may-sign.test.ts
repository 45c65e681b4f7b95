import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { labelledWallet, signOperation, signOwnLayout, signTransfer, type Wallet } from '../helpers/chain-fixture.js';
import { identityMessages } from '../../plugins/identity/public.js';
import { getJson, postJson, until, waitConfirmed } from '../helpers/node-process.js';
import { failsInBlock as injectedFails, sameRootEverywhere as sameRoots, startTestDevnet, type TestDevnet } from '../helpers/devnet.js';

/**
 * Who may sign (issue 25) on a real 4-validator devnet, through the RPC as a client would:
 * session keys, sponsors, rotation and guardian recovery. One devnet serves every scenario; the
 * test build's `memo` plugin provides `POST /test/inject`, a proposer that skips checkTx, so each
 * refusal is seen at admission and again in a block.
 */
let clock = Date.now();
const nextNonce = (): number => ++clock;
const SESSION = 'chain:system.session';

describe('who may sign, on a real devnet', () => {
  let net: TestDevnet;
  const owner = labelledWallet('wms-owner');
  const agent = labelledWallet('wms-agent');
  const late = labelledWallet('wms-late-agent');
  const shop = labelledWallet('wms-shop');
  const stranger = labelledWallet('wms-stranger');

  const rpc = (i = 0): string => net.rpcUrls[i]!;
  const balanceOf = async (address: string): Promise<number> => (await getJson(`${rpc()}/api/v1/accounts/${address}`)).body.balance as number;
  const nextTxNonce = async (address: string): Promise<number> => (await getJson(`${rpc()}/api/v1/accounts/${address}`)).body.next_nonce as number;
  const height = async (): Promise<number> => (await getJson(`${rpc()}/health`)).body.height as number;
  const op = (w: Wallet, actor: string, target: string, body: Record<string, unknown>, value = 0) => signOperation(w, { actor, target, value, nonce: nextNonce(), body });
  async function confirmed(path: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
    const r = await postJson(`${net.gatewayUrl}${path}`, body);
    assert.equal(r.status, 200, `${path}: ${JSON.stringify(r.body)}`);
    const tx = await waitConfirmed(rpc(), r.body.tx_hash as string);
    assert.equal(tx.status, 'confirmed', JSON.stringify(tx));
    // Reads that follow may go to any validator: each has applied the block by then.
    for (const url of net.rpcUrls) await waitConfirmed(url, r.body.tx_hash as string);
    return tx;
  }
  /** Refused at admission with `status` and a message matching `re`. */
  async function refused(path: string, body: Record<string, unknown>, status: number, re: RegExp): Promise<void> {
    const r = await postJson(`${rpc()}${path}`, body);
    assert.equal(r.status, status, `${path}: ${JSON.stringify(r.body)}`);
    assert.match(r.body.error as string, re);
  }
  /** Put straight into every validator's pool (a proposer that skipped checkTx): included, and failed in the block. */
  const failsInBlock = (body: Record<string, unknown>, re: RegExp, opName?: string) => injectedFails(net, body, re, opName);
  const sameRootEverywhere = () => sameRoots(net);

  before(async () => {
    net = await startTestDevnet({ cli: resolve('dist/test/fixtures/test-chain.js'), enablePlugins: ['memo'] });
    for (const w of [owner, stranger]) {
      const f = await postJson(`${net.gatewayUrl}/api/v1/faucet`, { address: w.address, public_key: w.publicKeyHex });
      assert.equal(f.status, 200, JSON.stringify(f.body));
      await waitConfirmed(rpc(), f.body.tx_hash as string);
    }
  });
  after(async () => net?.stop());

  describe('session keys', () => {
    const grant = (key: Wallet, scope: '*' | string[], cap: number, expiry: number, signer: Wallet = owner) =>
      op(signer, owner.address, SESSION, { account: owner.address, session_pk: key.publicKeyHex, scope, cap, expiry_block: expiry });
    const asAgent = async (key: Wallet, to: string, value: number) => signTransfer(key, { from: owner.address, to, value, nonce: await nextTxNonce(owner.address) });

    test('a granted key sends within scope and cap; another address, beyond the cap, a grant by the key itself are 401 at admission and fail in a block; the list shows spent', async () => {
      await confirmed('/api/v1/session/grant', grant(agent, [shop.address], 1000, (await height()) + 10_000));
      const ownerBefore = await balanceOf(owner.address);
      const sent = await postJson(`${net.gatewayUrl}/api/v1/transactions`, await asAgent(agent, shop.address, 600));
      assert.equal(sent.status, 200, JSON.stringify(sent.body));
      const tx = await waitConfirmed(rpc(2), sent.body.tx_hash as string);
      assert.equal(tx.status, 'confirmed');
      // Balances are read from validator 0: it too must have applied the block.
      await waitConfirmed(rpc(), sent.body.tx_hash as string);
      assert.equal(await balanceOf(shop.address), 600);
      assert.equal(await balanceOf(owner.address), ownerBefore - 600 - 21, 'the value and a transfer\'s fee, from the account');

      // Through the gateway, once its poller has seen the block (its cache is per height).
      const list = await until('the grant\'s spent through the gateway', async () => {
        const r = await getJson(`${net.gatewayUrl}/api/v1/session/list/${owner.address}`);
        assert.equal(r.status, 200, JSON.stringify(r.body));
        return (r.body.grants as Array<Record<string, unknown>>)[0]?.spent === 600 ? r : undefined;
      });
      const grants = list.body.grants as Array<Record<string, unknown>>;
      assert.equal(list.body.total, 1);
      assert.deepEqual(
        { ...grants[0], expiry_block: 0, granted_height: 0 },
        { account: owner.address, session_pk: agent.publicKeyHex, scope: [shop.address], cap: 1000, cap_human: '0.001 COIN', expiry_block: 0, spent: 600, spent_human: '0.0006 COIN', status: 'active', granted_height: 0, revoked_height: null },
      );
      assert.equal(list.body.has_more, false);

      await refused('/api/v1/transactions', await asAgent(agent, shop.address, 401), 401, /session spend cap exceeded/);
      await refused('/api/v1/transactions', await asAgent(agent, stranger.address, 1), 401, new RegExp(`scope does not include ${stranger.address}`));
      const selfGrant = grant(late, '*', 10, 10_000_000, agent);
      await refused('/api/v1/session/grant', selfGrant, 401, /only a main key of the account may grant session keys/);
      const before = await balanceOf(owner.address);
      await failsInBlock(await asAgent(agent, shop.address, 401), /session spend cap exceeded/);
      await failsInBlock(await asAgent(agent, stranger.address, 1), /scope does not include/);
      assert.equal(await balanceOf(owner.address), before, 'refused signers are charged nothing');
      await failsInBlock(selfGrant, /only a main key/, 'grant_session');
      assert.equal((await getJson(`${rpc(3)}/api/v1/session/list/${owner.address}`)).body.total, 1, 'no grant was made by the session key');
      await sameRootEverywhere();
    });

    test('a grant is valid in blocks below expiry_block: after it, 401 at admission and a failure in the block', async () => {
      // Room for the grant's own block first: under the suite's load it took more than 3 blocks to be included.
      const expiry = (await height()) + 20;
      await confirmed('/api/v1/session/grant', grant(late, '*', 1000, expiry));
      await until(`height ${expiry}`, async () => ((await height()) >= expiry ? true : undefined), 60_000);
      const body = await asAgent(late, shop.address, 1);
      await refused('/api/v1/transactions', body, 401, new RegExp(`session key expired: valid in blocks below expiry_block ${expiry}`));
      await failsInBlock(body, /session key expired/);
      const listed = (await getJson(`${rpc()}/api/v1/session/list/${owner.address}`)).body.grants as Array<Record<string, unknown>>;
      assert.equal(listed.find((g) => g.session_pk === late.publicKeyHex)?.status, 'expired');
      await sameRootEverywhere();
    });

    test('revocation holds from the next block: a transfer signed before it is refused at admission and fails when a proposer includes it', async () => {
      const pending = await asAgent(agent, shop.address, 10);
      const revoke = await confirmed('/api/v1/session/revoke', op(owner, owner.address, SESSION, { account: owner.address, session_pk: agent.publicKeyHex }));
      assert.equal(revoke.type, 'revoke_session');
      await refused('/api/v1/transactions', pending, 401, new RegExp(`session key revoked: revoked in block ${revoke.block as number}`));
      await failsInBlock(pending, /session key revoked/);
      const listed = (await getJson(`${rpc(2)}/api/v1/session/list/${owner.address}`)).body.grants as Array<Record<string, unknown>>;
      const g = listed.find((x) => x.session_pk === agent.publicKeyHex)!;
      assert.equal(g.status, 'revoked');
      assert.equal(g.revoked_height, revoke.block);
      assert.equal(g.spent, 600);
      await sameRootEverywhere();
    });
  });

  describe('sponsors', () => {
    const SPONSOR = 'chain:system.sponsor';
    const sponsor = labelledWallet('wms-sponsor');
    const beneficiary = labelledWallet('wms-beneficiary');
    const poolOf = async (address: string, url = rpc()) => (await getJson(`${url}/api/v1/sponsor/${address}`)).body;
    const sponsorOp = (w: Wallet, actor: string, body: Record<string, unknown>, value = 0) => op(w, actor, SPONSOR, { address: actor, ...body }, value);

    before(async () => {
      for (const w of [sponsor, beneficiary]) {
        const f = await postJson(`${net.gatewayUrl}/api/v1/faucet`, { address: w.address, public_key: w.publicKeyHex });
        assert.equal(f.status, 200, JSON.stringify(f.body));
        await waitConfirmed(rpc(), f.body.tx_hash as string);
      }
    });

    test('a sponsored transaction is paid by the pool; a stranger cannot move or redirect it, at admission or in a block; withdraw returns the rest', async () => {
      assert.deepEqual(await poolOf(sponsor.address), { address: sponsor.address, balance: 0, balance_human: '0 COIN' });
      await confirmed('/api/v1/sponsor/deposit', sponsorOp(sponsor, sponsor.address, { amount: 5000 }, 5000));
      await confirmed('/api/v1/sponsor/allow', sponsorOp(sponsor, sponsor.address, { beneficiary: beneficiary.address }));
      assert.deepEqual(await poolOf(sponsor.address), { address: sponsor.address, balance: 5000, balance_human: '0.005 COIN' });
      // The gateway serves the same read once its poller has seen the block.
      await until('the pool through the gateway', async () => ((await poolOf(sponsor.address, net.gatewayUrl)).balance === 5000 ? true : undefined));

      const before = await balanceOf(beneficiary.address);
      const sent = await postJson(`${net.gatewayUrl}/api/v1/transactions`, signTransfer(beneficiary, { to: shop.address, value: 7, nonce: await nextTxNonce(beneficiary.address) }));
      assert.equal(sent.status, 200, JSON.stringify(sent.body));
      const tx = await waitConfirmed(rpc(3), sent.body.tx_hash as string);
      assert.equal(tx.status, 'confirmed');
      // Balances are read from validator 0: it too must have applied the block.
      await waitConfirmed(rpc(), sent.body.tx_hash as string);
      assert.equal(await balanceOf(beneficiary.address), before - 7, 'the beneficiary paid the value only');
      assert.equal((await poolOf(sponsor.address)).balance, 5000 - 21, 'the pool paid the fee');

      const strangerBefore = await balanceOf(stranger.address);
      const own = await postJson(`${rpc()}/api/v1/transactions`, signTransfer(stranger, { to: shop.address, value: 1, nonce: await nextTxNonce(stranger.address) }));
      assert.equal(own.status, 200, JSON.stringify(own.body));
      await waitConfirmed(rpc(), own.body.tx_hash as string);
      assert.equal(await balanceOf(stranger.address), strangerBefore - 1 - 21, 'a stranger pays its own fee');
      assert.equal((await poolOf(sponsor.address)).balance, 5000 - 21);

      const drain = sponsorOp(stranger, sponsor.address, { amount: 100 }, 100);
      await refused('/api/v1/sponsor/withdraw', drain, 401, /not bound to/);
      await failsInBlock(drain, /not bound to/, 'sponsor_withdraw');
      const redirect = sponsorOp(stranger, sponsor.address, { beneficiary: stranger.address });
      await refused('/api/v1/sponsor/allow', redirect, 401, /not bound to/);
      await failsInBlock(redirect, /not bound to/, 'sponsor_allow');
      const takeOver = sponsorOp(stranger, stranger.address, { beneficiary: beneficiary.address });
      await refused('/api/v1/sponsor/allow', takeOver, 409, /already sponsored by/);
      await failsInBlock(takeOver, /already sponsored by/, 'sponsor_allow');
      const overdraw = sponsorOp(sponsor, sponsor.address, { amount: 5000 }, 5000);
      await refused('/api/v1/sponsor/withdraw', overdraw, 400, /holds 4979 ucoin, less than 5000/);
      await failsInBlock(overdraw, /holds 4979 ucoin, less than 5000/, 'sponsor_withdraw');
      assert.equal((await poolOf(sponsor.address)).balance, 5000 - 21);

      const sponsorBefore = await balanceOf(sponsor.address);
      await confirmed('/api/v1/sponsor/withdraw', sponsorOp(sponsor, sponsor.address, { amount: 4979 }, 4979));
      assert.equal((await poolOf(sponsor.address)).balance, 0);
      assert.equal(await balanceOf(sponsor.address), sponsorBefore + 4979 - 30);
      const after = await balanceOf(beneficiary.address);
      const unpaid = await postJson(`${rpc()}/api/v1/transactions`, signTransfer(beneficiary, { to: shop.address, value: 1, nonce: await nextTxNonce(beneficiary.address) }));
      await waitConfirmed(rpc(), unpaid.body.tx_hash as string);
      assert.equal(await balanceOf(beneficiary.address), after - 1 - 21, 'an empty pool: the sender pays');
      await sameRootEverywhere();
    });
  });

  describe('identity', () => {
    const rot = labelledWallet('wms-rot');
    const rotNew = labelledWallet('wms-rot-new');
    const rotAgent = labelledWallet('wms-rot-agent');
    const victim = labelledWallet('wms-victim');
    const victimNew = labelledWallet('wms-victim-new');
    const holder = labelledWallet('wms-holder');
    const holderAgent = labelledWallet('wms-holder-agent');
    const guardians = [labelledWallet('wms-g1'), labelledWallet('wms-g2'), labelledWallet('wms-g3')] as const;
    const [g1, g2, g3] = guardians;
    const signed = <B extends Record<string, unknown>>(w: Wallet, layout: (b: B, n: bigint) => string, body: B) => {
      const nonce = nextNonce();
      return signOwnLayout(w, layout(body, BigInt(nonce)), body, nonce);
    };
    const identityOf = async (address: string) => (await getJson(`${rpc()}/api/v1/identity/${address}`)).body;
    const sendAs = async (key: Wallet, from: string) => signTransfer(key, { from, to: shop.address, value: 1, nonce: await nextTxNonce(from) });

    before(async () => {
      for (const w of [rot, victim, holder, ...guardians]) {
        const f = await postJson(`${net.gatewayUrl}/api/v1/faucet`, { address: w.address, public_key: w.publicKeyHex });
        assert.equal(f.status, 200, JSON.stringify(f.body));
        await waitConfirmed(rpc(), f.body.tx_hash as string);
      }
    });

    test('identity of an unbound key-derived address: no key known before it signs (200, version 0); its derived key once it has signed a transfer', async () => {
      const plain = labelledWallet('wms-plain');
      const pay = await postJson(`${rpc()}/api/v1/transactions`, signTransfer(stranger, { to: plain.address, value: 1000, nonce: await nextTxNonce(stranger.address) }));
      assert.equal(pay.status, 200, JSON.stringify(pay.body));
      await waitConfirmed(rpc(), pay.body.tx_hash as string);
      assert.deepEqual(await identityOf(plain.address), { address: plain.address, keys: [], version: 0 });
      const own = await postJson(`${rpc()}/api/v1/transactions`, await sendAs(plain, plain.address));
      assert.equal(own.status, 200, JSON.stringify(own.body));
      await waitConfirmed(rpc(), own.body.tx_hash as string);
      assert.deepEqual(await identityOf(plain.address), { address: plain.address, keys: [plain.publicKeyHex], version: 0 });
    });

    test('rotation: the new key signs, the removed key is refused (and the session keys it granted end), version rose; a session key cannot rotate', async () => {
      assert.deepEqual(await identityOf(rot.address), { address: rot.address, keys: [rot.publicKeyHex], version: 0 });
      assert.equal((await getJson(`${rpc()}/api/v1/identity/chain:nobody.vault`)).status, 404);
      await confirmed('/api/v1/session/grant', op(rot, rot.address, SESSION, { account: rot.address, session_pk: rotAgent.publicKeyHex, scope: '*', cap: 1000, expiry_block: (await height()) + 100_000 }));
      const add = await confirmed('/api/v1/identity/rotate', signed(rot, identityMessages.rotate, { owner: rot.address, add: rotNew.publicKeyHex, remove: '' }));
      assert.equal(add.type, 'rotate_key');
      assert.deepEqual(await identityOf(rot.address), { address: rot.address, keys: [rot.publicKeyHex, rotNew.publicKeyHex], version: 1 });
      const byNew = await postJson(`${rpc(1)}/api/v1/transactions`, await sendAs(rotNew, rot.address));
      assert.equal(byNew.status, 200, JSON.stringify(byNew.body));
      assert.equal((await waitConfirmed(rpc(), byNew.body.tx_hash as string)).status, 'confirmed');

      const bySession = signed(rotAgent, identityMessages.rotate, { owner: rot.address, add: rotAgent.publicKeyHex, remove: '' });
      await refused('/api/v1/identity/rotate', bySession, 401, /only a main key of the account may rotate keys/);
      await failsInBlock(bySession, /only a main key/, 'rotate_key');

      await confirmed('/api/v1/identity/rotate', signed(rotNew, identityMessages.rotate, { owner: rot.address, add: '', remove: rot.publicKeyHex }));
      assert.deepEqual(await identityOf(rot.address), { address: rot.address, keys: [rotNew.publicKeyHex], version: 2 });
      const byOld = await sendAs(rot, rot.address);
      await refused('/api/v1/transactions', byOld, 401, /not bound to/);
      await failsInBlock(byOld, /not bound to/);
      const byEnded = await sendAs(rotAgent, rot.address);
      await refused('/api/v1/transactions', byEnded, 401, /session key ended/);
      await failsInBlock(byEnded, /session key ended/);
      const grants = (await getJson(`${rpc()}/api/v1/session/list/${rot.address}`)).body.grants as Array<Record<string, unknown>>;
      assert.equal(grants[0]!.status, 'ended');
      await sameRootEverywhere();
    });

    test('recovery: 2 of 3 guardians and a timelock hand the account to a new key; a guardian cannot approve twice, a non-guardian cannot approve; the old key is then refused', async () => {
      await confirmed('/api/v1/identity/recovery/setup', signed(victim, identityMessages.setup, { owner: victim.address, guardians: guardians.map((g) => g.address), threshold: 2, timelock: 3 }));
      const guarded = await until('guardian-of through the gateway', async () => {
        const body = (await getJson(`${net.gatewayUrl}/api/v1/identity/guardian-of/${g3.address}`)).body;
        return (body.identities as string[]).length > 0 ? body : undefined;
      });
      assert.deepEqual(guarded.identities, [victim.address]);
      assert.equal(guarded.total, 1);
      await confirmed('/api/v1/identity/recovery/request', signed(g1, identityMessages.request, { requester: g1.address, target: victim.address, new_key: victimNew.publicKeyHex }));
      await confirmed('/api/v1/identity/recovery/approve', signed(g1, identityMessages.approve, { guardian: g1.address, target: victim.address, request_id: 1 }));
      const twice = signed(g1, identityMessages.approve, { guardian: g1.address, target: victim.address, request_id: 1 });
      await refused('/api/v1/identity/recovery/approve', twice, 400, /already approved/);
      await failsInBlock(twice, /already approved/, 'recovery_approve');
      const notGuardian = signed(stranger, identityMessages.approve, { guardian: stranger.address, target: victim.address, request_id: 1 });
      await refused('/api/v1/identity/recovery/approve', notGuardian, 403, /is not a guardian of/);
      await failsInBlock(notGuardian, /is not a guardian of/, 'recovery_approve');
      const open = (await getJson(`${rpc()}/api/v1/identity/recovery/${victim.address}`)).body;
      assert.equal(open.configured, true);
      assert.deepEqual((open.request as Record<string, unknown>).approvals, [g1.address]);

      await confirmed('/api/v1/identity/recovery/approve', signed(g2, identityMessages.approve, { guardian: g2.address, target: victim.address, request_id: 1 }));
      for (const url of net.rpcUrls) {
        await until(`recovery completed on ${url}`, async () => (((await getJson(`${url}/api/v1/identity/${victim.address}`)).body.version as number) === 1 ? true : undefined));
      }
      assert.deepEqual(await identityOf(victim.address), { address: victim.address, keys: [victimNew.publicKeyHex], version: 1 });
      const done = (await getJson(`${rpc()}/api/v1/identity/recovery/${victim.address}`)).body;
      assert.equal(done.request, null);
      assert.equal((done.last_request as Record<string, unknown>).status, 'completed');
      const byOld = await sendAs(victim, victim.address);
      await refused('/api/v1/transactions', byOld, 401, /not bound to/);
      await failsInBlock(byOld, /not bound to/);
      const byNew = await postJson(`${rpc()}/api/v1/transactions`, await sendAs(victimNew, victim.address));
      assert.equal(byNew.status, 200, JSON.stringify(byNew.body));
      assert.equal((await waitConfirmed(rpc(), byNew.body.tx_hash as string)).status, 'confirmed');
      await sameRootEverywhere();
    });

    test('the owner cancels a hostile recovery during the timelock and keeps the account; a session key cannot cancel it; an approval of the cancelled request is refused for the next', async () => {
      await confirmed('/api/v1/session/grant', op(holder, holder.address, SESSION, { account: holder.address, session_pk: holderAgent.publicKeyHex, scope: '*', cap: 1000, expiry_block: (await height()) + 100_000 }));
      await confirmed('/api/v1/identity/recovery/setup', signed(holder, identityMessages.setup, { owner: holder.address, guardians: [g1.address, g2.address], threshold: 2, timelock: 100_000 }));
      await confirmed('/api/v1/identity/recovery/request', signed(stranger, identityMessages.request, { requester: stranger.address, target: holder.address, new_key: stranger.publicKeyHex }));
      const first = (await getJson(`${rpc()}/api/v1/identity/recovery/${holder.address}`)).body.request as Record<string, unknown>;
      assert.equal(first.id, 1);
      await confirmed('/api/v1/identity/recovery/approve', signed(g1, identityMessages.approve, { guardian: g1.address, target: holder.address, request_id: 1 }));
      // g1 signs a second approval of request 1 and keeps it back (say, it leaks).
      const keptBack = signed(g1, identityMessages.approve, { guardian: g1.address, target: holder.address, request_id: 1 });
      await confirmed('/api/v1/identity/recovery/approve', signed(g2, identityMessages.approve, { guardian: g2.address, target: holder.address, request_id: 1 }));
      const pending = (await getJson(`${rpc()}/api/v1/identity/recovery/${holder.address}`)).body.request as Record<string, unknown>;
      assert.equal(pending.status, 'open');
      assert.equal(typeof pending.due_height, 'number');

      const bySession = signed(holderAgent, identityMessages.cancel, { owner: holder.address });
      await refused('/api/v1/identity/recovery/cancel', bySession, 401, /only a main key of the account may cancel a recovery/);
      await failsInBlock(bySession, /only a main key/, 'recovery_cancel');
      await confirmed('/api/v1/identity/recovery/cancel', signed(holder, identityMessages.cancel, { owner: holder.address }));
      const after = (await getJson(`${rpc(3)}/api/v1/identity/recovery/${holder.address}`)).body;
      assert.equal(after.request, null);
      assert.equal((after.last_request as Record<string, unknown>).status, 'cancelled');
      assert.deepEqual(await identityOf(holder.address), { address: holder.address, keys: [holder.publicKeyHex], version: 0 });
      // A later hostile request: the kept-back approval names request 1 and is refused, at admission and in a block.
      await confirmed('/api/v1/identity/recovery/request', signed(stranger, identityMessages.request, { requester: stranger.address, target: holder.address, new_key: stranger.publicKeyHex }));
      assert.equal(((await getJson(`${rpc()}/api/v1/identity/recovery/${holder.address}`)).body.request as Record<string, unknown>).id, 2);
      await refused('/api/v1/identity/recovery/approve', keptBack, 400, /is request 2, not 1/);
      await failsInBlock(keptBack, /is request 2, not 1/, 'recovery_approve');
      assert.deepEqual(((await getJson(`${rpc(2)}/api/v1/identity/recovery/${holder.address}`)).body.request as Record<string, unknown>).approvals, []);
      await confirmed('/api/v1/identity/recovery/cancel', signed(holder, identityMessages.cancel, { owner: holder.address }));
      const byOwner = await postJson(`${rpc()}/api/v1/transactions`, await sendAs(holder, holder.address));
      assert.equal(byOwner.status, 200, JSON.stringify(byOwner.body));
      assert.equal((await waitConfirmed(rpc(), byOwner.body.tx_hash as string)).status, 'confirmed');
      await sameRootEverywhere();
    });
  });
});
