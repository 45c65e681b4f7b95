import { describe, before, after, test } from 'node:test';
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { labelledWallet, signOperation, signTransfer, type Wallet } from '../helpers/chain-fixture.js';
import { getJson, postJson, until, waitConfirmed } from '../helpers/node-process.js';
import { failsInBlock, sameRootEverywhere, startTestDevnet, type TestDevnet } from '../helpers/devnet.js';
import { WsClient } from '../../plugins/gateway/testing/process.js';

/**
 * Vaults in consensus (issue 31, decisions.md §43–45) on a real 4-validator devnet: every step
 * through the gateway or a node as a client would, then the same kinds of step through the
 * gateway's socket methods; `/test/inject` plays a proposer that skips admission.
 * configs/devnet.json sets vault_proposal_expiry_blocks to 30.
 */
let clock = Date.now();

describe('vaults on a real devnet', () => {
  let net: TestDevnet;
  let ws: WsClient;
  const rpc = (i = 0): string => net.rpcUrls[i]!;
  const gw = (path: string): string => `${net.gatewayUrl}${path}`;
  const balanceOf = async (address: string, i = 0): Promise<bigint> => BigInt((await getJson(`${rpc(i)}/api/v1/accounts/${address}`)).body.balance as number);
  async function funded(label: string): Promise<Wallet> {
    const w = labelledWallet(label);
    const f = await postJson(gw('/api/v1/faucet'), { address: w.address, public_key: w.publicKeyHex });
    assert.equal(f.status, 200, JSON.stringify(f.body));
    for (const url of net.rpcUrls) await waitConfirmed(url, f.body.tx_hash as string);
    return w;
  }
  async function confirmed(hash: string): Promise<Record<string, unknown>> {
    let tx: Record<string, unknown> = {};
    for (const url of net.rpcUrls) tx = await waitConfirmed(url, hash);
    assert.equal(tx.status, 'confirmed', JSON.stringify(tx));
    return tx;
  }
  /** Submits through the gateway: 200 and confirmed on every validator. */
  async function submitted(path: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
    const r = await postJson(gw(path), body);
    assert.equal(r.status, 200, `${path}: ${JSON.stringify(r.body)}`);
    return confirmed(r.body.tx_hash as string);
  }

  before(async () => {
    net = await startTestDevnet({ cli: resolve('dist/test/fixtures/test-chain.js'), enablePlugins: ['memo'] });
    ws = await WsClient.connect(`${net.gatewayUrl.replace('http', 'ws')}/ws`);
  });
  after(async () => {
    ws?.close();
    await net?.stop();
  });

  test('a vault created, funded, paid out; members and threshold changed by proposals; funds, non-members, cancellation, removal and expiry', async () => {
    const [alice, bob, carol, stranger] = (await Promise.all(['it-vault-alice', 'it-vault-bob', 'it-vault-carol', 'it-vault-stranger'].map((l) => funded(l)))) as [Wallet, Wallet, Wallet, Wallet];
    const VAULT = 'chain:it-family-fund.vault';
    const op = (w: Wallet, kind: string, body: Record<string, unknown>, value = 0) => signOperation(w, { kind, actor: w.address, target: VAULT, nonce: ++clock, body, value });
    const payout = (w: Wallet, to: string, amount: number) => op(w, 'create_vault_proposal', { proposer: w.address, to, amount }, amount);
    const signBody = (w: Wallet) => op(w, 'sign_vault_proposal', { signer: w.address });
    const sign = (w: Wallet, id: number) => postJson(gw(`/api/v1/vault/${VAULT}/proposals/${id}/sign`), signBody(w));
    // Read from a node: the gateway answers a read from its cache for up to one poll interval, and
    // each step here reads what the block it waited for just wrote.
    const proposalsOf = async (status?: string) => ((await getJson(`${rpc()}/api/v1/vault/${VAULT}/proposals${status ? `?status=${status}` : ''}`)).body.proposals as Array<Record<string, unknown>>);
    const statusOf = async (id: number, i = 0) => ((await getJson(`${rpc(i)}/api/v1/vault/${VAULT}/proposals?limit=100`)).body.proposals as Array<Record<string, unknown>>).find((p) => p.id === id)?.status;

    // Created through the shared nodes/register route: price burned, owner the only member, threshold 1.
    const reg = signOperation(alice, { kind: 'register_vault', actor: alice.address, target: 'chain:system.node', nonce: ++clock, body: { name: 'it-family-fund', owner: alice.address, node_address: VAULT } });
    const created = await submitted('/api/v1/nodes/register', reg);
    const regBlock = (await getJson(gw(`/api/v1/blocks/${created.block as number}`))).body;
    assert.ok(BigInt(regBlock.fees_burned as number) >= 10_000_000n, 'the price is burned');
    const config = (await getJson(`${rpc()}/api/v1/vault/${VAULT}/config`)).body;
    assert.deepEqual([config.members, config.threshold, config.creator], [[alice.address], 1, alice.address]);
    assert.equal((await getJson(gw(`/api/v1/nodes/${VAULT}`))).status, 404, 'not a .node');

    // Funded by a plain transfer; its account is of type vault.
    await confirmed((await postJson(gw('/api/v1/transactions'), signTransfer(carol, { to: VAULT, value: 2_000_000, nonce: 1 }))).body.tx_hash as string);
    const acct = (await getJson(gw(`/api/v1/accounts/${VAULT}`))).body;
    assert.deepEqual([acct.type, acct.balance], ['vault', 2_000_000]);

    // Threshold 1: the creating transaction pays out.
    const carolBefore = await balanceOf(carol.address);
    await submitted(`/api/v1/vault/${VAULT}/proposals`, payout(alice, carol.address, 300_000));
    assert.equal(await balanceOf(carol.address, 3), carolBefore + 300_000n);
    assert.equal(await balanceOf(VAULT, 2), 1_700_000n);

    // bob added, threshold raised to 2: each a proposal executed at once (threshold 1).
    await submitted(`/api/v1/vault/${VAULT}/members`, op(alice, 'add_vault_member', { member: bob.address, requester: alice.address }));
    await submitted(`/api/v1/vault/${VAULT}/threshold`, op(alice, 'set_vault_threshold', { threshold: 2, requester: alice.address }));
    assert.deepEqual(await getJson(`${rpc()}/api/v1/vault/${VAULT}/config`).then((r) => [r.body.members, r.body.threshold]), [[alice.address, bob.address], 2]);
    assert.deepEqual(((await getJson(gw(`/api/v1/vault/member/${bob.address}`))).body.vaults as Array<{ address: string }>).map((v) => v.address), [VAULT]);

    // A proposal left open, to expire (30 blocks on the devnet).
    const expiringTx = await submitted(`/api/v1/vault/${VAULT}/proposals`, payout(alice, carol.address, 1));
    const expiring = (await proposalsOf('open'))[0]!;
    // §44: the confirmed creating transaction carries proposal_id, on a node and through the gateway.
    assert.equal(expiringTx.proposal_id, expiring.id);
    assert.equal((await getJson(gw(`/api/v1/transactions/${expiringTx.hash as string}`))).body.proposal_id, expiring.id);
    // A payout to a chain:system.* address (it names an operation, part 1 Address kinds) is refused, nothing moved.
    const toSystem = await postJson(gw(`/api/v1/vault/${VAULT}/proposals`), payout(alice, 'chain:system.faucet', 5));
    assert.equal(toSystem.status, 400, JSON.stringify(toSystem.body));
    assert.match(toSystem.body.error as string, /reserved to name operations/);
    assert.equal((await proposalsOf('open')).length, 1);

    // Signed by both: the first leaves it open, the second pays; balances exact. (Payouts stay a
    // small share of the vault: the sentinel scores them like any move out of an account, §99.)
    const carolMid = await balanceOf(carol.address);
    await submitted(`/api/v1/vault/${VAULT}/proposals`, payout(alice, carol.address, 150_000));
    const paid = (await proposalsOf('open'))[0]!;
    assert.deepEqual([paid.signatures, await balanceOf(VAULT)], [[alice.address], 1_700_000n]);
    const bobSigned = await sign(bob, paid.id as number);
    assert.equal(bobSigned.status, 200, JSON.stringify(bobSigned.body));
    await confirmed(bobSigned.body.tx_hash as string);
    assert.equal(await statusOf(paid.id as number, 1), 'executed');
    assert.deepEqual([await balanceOf(VAULT), await balanceOf(carol.address)], [1_550_000n, carolMid + 150_000n]);

    // Above the balance: refused at its last signature, and in a block; paid once funded.
    await submitted(`/api/v1/vault/${VAULT}/proposals`, payout(alice, carol.address, 1_600_000));
    const big = (await proposalsOf('open'))[0]!;
    const short = await sign(bob, big.id as number);
    assert.equal(short.status, 400);
    assert.match(short.body.error as string, /the payout is 1600000 ucoin and chain:it-family-fund\.vault holds 1550000/);
    await failsInBlock(net, { ...signBody(bob), _path: { vault: VAULT, id: String(big.id) } }, /insufficient vault balance/, 'sign_vault_proposal');
    await failsInBlock(net, { ...signBody(stranger), _path: { vault: VAULT, id: String(big.id) } }, /not a member/, 'sign_vault_proposal');
    await failsInBlock(net, { ...signBody(alice), _path: { vault: VAULT, id: String(big.id) } }, /already signed/, 'sign_vault_proposal');
    await confirmed((await postJson(gw('/api/v1/transactions'), signTransfer(carol, { to: VAULT, value: 20_000_000, nonce: 2 }))).body.tx_hash as string);
    await confirmed((await sign(bob, big.id as number)).body.tx_hash as string);
    assert.equal(await statusOf(big.id as number), 'executed');
    assert.equal(await balanceOf(VAULT), 19_950_000n);

    // A non-member is refused 403 on every route.
    const s = stranger;
    for (const [path, body] of [
      [`/api/v1/vault/${VAULT}/proposals`, op(s, 'create_vault_proposal', { proposer: s.address, to: s.address, amount: 1 }, 1)],
      [`/api/v1/vault/${VAULT}/members`, op(s, 'add_vault_member', { member: s.address, requester: s.address })],
      [`/api/v1/vault/${VAULT}/members`, op(s, 'remove_vault_member', { member: bob.address, requester: s.address, remove: true })],
      [`/api/v1/vault/${VAULT}/threshold`, op(s, 'set_vault_threshold', { threshold: 1, requester: s.address })],
      [`/api/v1/vault/${VAULT}/proposals/${expiring.id}/sign`, op(s, 'sign_vault_proposal', { signer: s.address })],
    ] as const) {
      const r = await postJson(gw(path), body);
      assert.equal(r.status, 403, `${path}: ${JSON.stringify(r.body)}`);
    }

    // The open proposal expires at expires_height.
    await until('the proposal to expire', async () => ((await statusOf(expiring.id as number)) === 'expired' ? true : undefined), 60_000);
    const h = (await getJson(`${rpc()}/health`)).body.height as number;
    assert.ok(h >= (expiring.expires_height as number));
    assert.equal((await sign(bob, expiring.id as number)).status, 400);

    // A threshold change, executed by bob, cancels an open payout; then bob is removed.
    await submitted(`/api/v1/vault/${VAULT}/proposals`, payout(alice, carol.address, 10));
    const toCancel = (await proposalsOf('open'))[0]!;
    await submitted(`/api/v1/vault/${VAULT}/threshold`, op(alice, 'set_vault_threshold', { threshold: 1, requester: alice.address }));
    const lower = (await proposalsOf('open'))[0]!;
    await confirmed((await sign(bob, lower.id as number)).body.tx_hash as string);
    assert.deepEqual([await statusOf(lower.id as number), await statusOf(toCancel.id as number, 2)], ['executed', 'cancelled']);
    await submitted(`/api/v1/vault/${VAULT}/members`, op(alice, 'remove_vault_member', { member: bob.address, requester: alice.address, remove: true }));
    assert.deepEqual((await getJson(`${rpc()}/api/v1/vault/${VAULT}/config`)).body.members, [alice.address]);
    assert.equal((await postJson(`${rpc()}/api/v1/transactions`, signTransfer(alice, { from: VAULT, to: alice.address, value: 1, nonce: 1 }))).status, 400, 'no plain transaction from a vault');
    await sameRootEverywhere(net);
  });

  test('the same kinds of step through the gateway\'s socket methods', async () => {
    const [dora, eve] = (await Promise.all(['it-vault-dora', 'it-vault-eve'].map((l) => funded(l)))) as [Wallet, Wallet];
    const price = await ws.rpc('human_name_price', { name: 'dora-sock' });
    assert.equal((price.result as { price: number }).price, 10_000_000);
    const named = await ws.rpc('register_human', signOperation(dora, { kind: 'register_human', actor: dora.address, target: 'chain:system.name', nonce: ++clock, body: { name: 'dora-sock', owner: dora.address } }));
    assert.equal(named.error ?? null, null, JSON.stringify(named));
    await confirmed((named.result as { tx_hash: string }).tx_hash);
    assert.equal(((await ws.rpc('get_nft', { address: 'chain:dora-sock.human' })).result as { owner: string }).owner, dora.address);
    const moved = await ws.rpc('transfer_nft', signOperation(dora, { kind: 'transfer_nft', actor: dora.address, target: 'chain:dora-sock.human', nonce: ++clock, body: { nft_address: 'chain:dora-sock.human', from: dora.address, to: eve.address } }));
    await confirmed((moved.result as { tx_hash: string }).tx_hash);
    assert.deepEqual(((await ws.rpc('get_my_nfts', { address: eve.address })).result as { nfts: Array<{ address: string }> }).nfts.map((n) => n.address), ['chain:dora-sock.human']);

    const VAULT = 'chain:it-sock-fund.vault';
    await submitted('/api/v1/nodes/register', signOperation(dora, { kind: 'register_vault', actor: dora.address, target: 'chain:system.node', nonce: ++clock, body: { name: 'it-sock-fund', owner: dora.address, node_address: VAULT } }));
    await confirmed((await postJson(gw('/api/v1/transactions'), signTransfer(eve, { to: VAULT, value: 500_000, nonce: 1 }))).body.tx_hash as string);
    const vop = (w: Wallet, kind: string, body: Record<string, unknown>, value = 0) => signOperation(w, { kind, actor: w.address, target: VAULT, nonce: ++clock, body, value });
    // A write through the socket, confirmed on every validator and its event relayed to the
    // socket: the gateway then has seen its block, so the socket reads that follow (answered from
    // the gateway's cache, cleared at each new block) are not older than the write.
    const via = async (method: string, params: Record<string, unknown>) => {
      const r = await ws.rpc(method, params);
      assert.equal(r.error ?? null, null, `${method}: ${JSON.stringify(r)}`);
      const hash = (r.result as { tx_hash: string }).tx_hash;
      const tx = await confirmed(hash);
      await ws.next(`the vault event of ${method} ${hash}`, (e) => e.type.startsWith('vault_') && (e.data as Record<string, unknown> | undefined)?.tx_hash === hash, 30_000);
      return tx;
    };
    await via('add_vault_member', { ...vop(dora, 'add_vault_member', { member: eve.address, requester: dora.address }), vault: VAULT });
    await via('set_vault_threshold', { ...vop(dora, 'set_vault_threshold', { threshold: 2, requester: dora.address }), vault: VAULT });
    assert.equal(((await ws.rpc('get_vault_config', { vault: VAULT })).result as { threshold: number }).threshold, 2);
    assert.deepEqual(((await ws.rpc('list_member_vaults', { address: eve.address })).result as { vaults: Array<{ address: string }> }).vaults.map((v) => v.address), [VAULT]);
    await via('create_vault_proposal', { ...vop(dora, 'create_vault_proposal', { proposer: dora.address, to: eve.address, amount: 20_000 }, 20_000), vault: VAULT });
    const open = ((await ws.rpc('get_vault_proposals', { vault: VAULT, status: 'open' })).result as { proposals: Array<{ id: number }> }).proposals[0]!;
    const eveBefore = await balanceOf(eve.address);
    await via('sign_vault_proposal', { ...vop(eve, 'sign_vault_proposal', { signer: eve.address }), vault: VAULT, id: open.id });
    assert.equal(await balanceOf(VAULT), 480_000n);
    assert.ok((await balanceOf(eve.address)) > eveBefore);
    const refusedSign = await ws.rpc('sign_vault_proposal', { ...vop(eve, 'sign_vault_proposal', { signer: eve.address }), vault: VAULT, id: open.id });
    assert.equal(refusedSign.result, null);
    assert.match(String(refusedSign.error), /executed: only an open proposal/);
    // Above the balance through the socket: refused at the signature that would execute it, naming both amounts; it stays open.
    await via('create_vault_proposal', { ...vop(dora, 'create_vault_proposal', { proposer: dora.address, to: eve.address, amount: 900_000 }, 900_000), vault: VAULT });
    const big = ((await ws.rpc('get_vault_proposals', { vault: VAULT, status: 'open' })).result as { proposals: Array<{ id: number }> }).proposals[0]!;
    const short = await ws.rpc('sign_vault_proposal', { ...vop(eve, 'sign_vault_proposal', { signer: eve.address }), vault: VAULT, id: big.id });
    assert.equal(short.result, null);
    assert.match(String(short.error), /the payout is 900000 ucoin and chain:it-sock-fund\.vault holds 480000/);
    assert.equal(await balanceOf(VAULT), 480_000n);
    // A non-member through the socket: refused with the REST message, nothing recorded.
    const outsider = await funded('it-vault-outsider');
    const countOf = async () => ((await ws.rpc('get_vault_proposals', { vault: VAULT })).result as { proposals: unknown[] }).proposals.length;
    const proposalsBefore = await countOf();
    const notMember = await ws.rpc('create_vault_proposal', { ...vop(outsider, 'create_vault_proposal', { proposer: outsider.address, to: outsider.address, amount: 1 }, 1), vault: VAULT });
    assert.equal(notMember.result, null);
    assert.match(String(notMember.error), /not a member/);
    assert.equal(await countOf(), proposalsBefore);

    // The same signed body to the REST route and to its socket method: both refuse with one
    // message (§45), and neither records anything.
    const refusedAlike = async (method: string, path: string, signed: Record<string, unknown>, pathParams: Record<string, unknown>): Promise<string> => {
      const rest = await postJson(gw(path), signed);
      assert.ok(rest.status >= 400 && rest.status < 500, `${path}: ${rest.status} ${JSON.stringify(rest.body)}`);
      const sock = await ws.rpc(method, { ...signed, ...pathParams });
      assert.deepEqual([sock.result, sock.error], [null, rest.body.error], method);
      return rest.body.error as string;
    };
    // The vault's socket events, relayed from the stored block events: once one arrives the
    // gateway has seen its block, so its cached reads are no older than that block.
    const vaultEvent = async (type: string, id: number, timeoutMs = 30_000): Promise<Record<string, unknown>> => {
      const m = await ws.next(`${type} of proposal ${id}`, (e) => e.type === type && (e.data as Record<string, unknown> | undefined)?.vault === VAULT && (e.data as Record<string, unknown>).proposal_id === id, timeoutMs);
      return m.data as Record<string, unknown>;
    };
    const proposalVia = async (id: number): Promise<Record<string, unknown>> => {
      const list = ((await ws.rpc('get_vault_proposals', { vault: VAULT, limit: 100 })).result as { proposals: Array<Record<string, unknown>> }).proposals;
      const found = list.find((p) => p.id === id);
      assert.ok(found, `proposal ${id} of ${VAULT}`);
      return found;
    };
    const membersVia = async (): Promise<[unknown, unknown]> => {
      const c = (await ws.rpc('get_vault_config', { vault: VAULT })).result as { members: unknown; threshold: unknown };
      return [c.members, c.threshold];
    };
    const membersPath = `/api/v1/vault/${VAULT}/members`;
    const signPath = (id: number): string => `/api/v1/vault/${VAULT}/proposals/${id}/sign`;

    // add_vault_member with remove: true is the removal (§45); refused while it would leave fewer members than the threshold.
    const tooFew = await refusedAlike('add_vault_member', membersPath, vop(dora, 'remove_vault_member', { member: eve.address, requester: dora.address, remove: true }), { vault: VAULT });
    assert.match(tooFew, /would leave 1 members, fewer than the threshold 2/);
    assert.equal(await countOf(), proposalsBefore);

    // The payout left open for want of funds expires: its socket event comes from the block at
    // exactly its expires_height (30 blocks on the devnet), nothing is paid, and signing it is refused.
    const bigOpen = await proposalVia(big.id);
    assert.equal(bigOpen.expires_height, (bigOpen.created_height as number) + 30);
    await vaultEvent('vault_proposal_expired', big.id, 120_000);
    const expiresIn = async (h: number): Promise<boolean> =>
      ((await getJson(`${rpc(1)}/api/v1/blocks/${h}/events`)).body.events as Array<{ type: string; data: Record<string, unknown> }>).some((e) => e.type === 'vault_proposal_expired' && e.data.vault === VAULT && e.data.proposal_id === big.id);
    assert.deepEqual([await expiresIn((bigOpen.expires_height as number) - 1), await expiresIn(bigOpen.expires_height as number)], [false, true]);
    const bigExpired = await proposalVia(big.id);
    assert.deepEqual([bigExpired.status, bigExpired.executed_height, bigExpired.signatures], ['expired', null, [dora.address]]);
    const eveAtExpiry = await balanceOf(eve.address);
    assert.match(await refusedAlike('sign_vault_proposal', signPath(big.id), vop(eve, 'sign_vault_proposal', { signer: eve.address }), { vault: VAULT, id: big.id }), /is expired: only an open proposal can be signed/);
    assert.deepEqual([await balanceOf(VAULT), await balanceOf(eve.address)], [480_000n, eveAtExpiry]);

    // A membership change cancels an open payout: the outsider is to be paid and added; eve's
    // signature executes the addition and, in that same transaction, cancels the payout.
    const outsiderBefore = await balanceOf(outsider.address);
    const pay = (await via('create_vault_proposal', { ...vop(dora, 'create_vault_proposal', { proposer: dora.address, to: outsider.address, amount: 10 }, 10), vault: VAULT })).proposal_id as number;
    const add = (await via('add_vault_member', { ...vop(dora, 'add_vault_member', { member: outsider.address, requester: dora.address }), vault: VAULT })).proposal_id as number;
    const adding = await via('sign_vault_proposal', { ...vop(eve, 'sign_vault_proposal', { signer: eve.address }), vault: VAULT, id: add });
    const cancelled = await vaultEvent('vault_proposal_cancelled', pay);
    assert.deepEqual([cancelled.by_proposal, cancelled.tx_hash], [add, adding.hash]);
    assert.equal((await vaultEvent('vault_proposal_executed', add)).tx_hash, adding.hash);
    assert.deepEqual([(await proposalVia(pay)).status, (await proposalVia(add)).status], ['cancelled', 'executed']);
    assert.deepEqual(await membersVia(), [[dora.address, eve.address, outsider.address], 2]);
    assert.deepEqual([await balanceOf(VAULT), await balanceOf(outsider.address)], [480_000n, outsiderBefore]);
    const eveAtCancel = await balanceOf(eve.address);
    assert.match(await refusedAlike('sign_vault_proposal', signPath(pay), vop(eve, 'sign_vault_proposal', { signer: eve.address }), { vault: VAULT, id: pay }), /is cancelled: only an open proposal can be signed/);
    assert.deepEqual([await balanceOf(VAULT), await balanceOf(eve.address)], [480_000n, eveAtCancel]);

    // The outsider removed again: a remove_member proposal through add_vault_member, executed by
    // eve's signature; the vault leaves their list, and they are refused as a non-member once more.
    const remove = (await via('add_vault_member', { ...vop(dora, 'remove_vault_member', { member: outsider.address, requester: dora.address, remove: true }), vault: VAULT })).proposal_id as number;
    const removing = await via('sign_vault_proposal', { ...vop(eve, 'sign_vault_proposal', { signer: eve.address }), vault: VAULT, id: remove });
    assert.equal((await vaultEvent('vault_proposal_executed', remove)).tx_hash, removing.hash);
    const removal = await proposalVia(remove);
    assert.deepEqual([removal.kind, removal.member, removal.status, removal.signatures], ['remove_member', outsider.address, 'executed', [dora.address, eve.address]]);
    assert.deepEqual(await membersVia(), [[dora.address, eve.address], 2]);
    assert.deepEqual(((await ws.rpc('list_member_vaults', { address: outsider.address })).result as { vaults: unknown[] }).vaults, []);
    const proposalsAfter = await countOf();
    const removedRefused = await refusedAlike('create_vault_proposal', `/api/v1/vault/${VAULT}/proposals`, vop(outsider, 'create_vault_proposal', { proposer: outsider.address, to: outsider.address, amount: 1 }, 1), { vault: VAULT });
    assert.match(removedRefused, /not a member/);
    assert.equal(await countOf(), proposalsAfter);
    assert.deepEqual([await balanceOf(VAULT), await balanceOf(outsider.address)], [480_000n, outsiderBefore]);
    await sameRootEverywhere(net);
  });
});
