import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { labelledWallet, signOperation, signOwnLayout, signTransfer, type Wallet } from '../helpers/chain-fixture.js';
import { getJson, postJson, until, waitConfirmed } from '../helpers/node-process.js';
import { failsInBlock as injectedFails, sameRootEverywhere as sameRoots, startTestDevnet, type TestDevnet } from '../helpers/devnet.js';
import { toHex } from '../../kernel/sdk.js';
import { leastValueScoring, loadModel } from '../../plugins/sentinel/model.js';
import { identityMessages } from '../../plugins/identity/public.js';
import { wat } from '../../plugins/contracts/testing/hostile.js';

/**
 * Issue 29's attacks on signatures, session caps, the sentinel and block space (items 3, 5, 6,
 * 7) and issue 30's §89–90 conformance, on one real 4-validator devnet, sent through the public
 * API as the attacker (or a spec client) would. Each refusal is seen at admission and, where a
 * rule depends on state, again in a block whose proposer skipped checkTx (`/test/inject` of the
 * test build puts the transaction in every validator's pool). Signature rules that need no state
 * (a replayed v4 signature, v2 where v4 is required) make a block invalid instead: a proposer
 * drops such a transaction, and validators refuse a block carrying it
 * (kernel/chain/strong-signatures.test.ts).
 */
const HOLD_BLOCKS = 3;
const model = loadModel();
let clock = Date.now();
const nextNonce = (): number => ++clock;
/** A contract that does nothing and succeeds: what a call's attached value needs. */
const ACCEPT_WAT = '(module (memory (export "memory") 1) (func (export "alloc") (param i32) (result i32) (i32.const 1024)) (func (export "call") (param i32 i32)))';

describe('hostile signing, session caps, value and block space on a real devnet', () => {
  let net: TestDevnet;
  let chainId = '';
  const rpc = (i = 0): string => net.rpcUrls[i]!;
  const gw = (path: string): string => `${net.gatewayUrl}${path}`;
  const account = async (address: string, i = 0) => (await getJson(`${rpc(i)}/api/v1/accounts/${address}`)).body;
  const balanceOf = async (address: string, i = 0): Promise<number> => (await account(address, i)).balance as number;
  const txNonce = async (address: string): Promise<number> => (await account(address)).next_nonce as number;
  const height = async (): Promise<number> => (await getJson(`${rpc()}/health`)).body.height as number;

  /** Applied by every validator, so reads that follow may go to any of them. */
  async function everywhere(hash: string): Promise<Record<string, unknown>> {
    let tx: Record<string, unknown> = {};
    for (const url of net.rpcUrls) tx = await waitConfirmed(url, hash);
    return tx;
  }
  async function confirmed(path: string, body: Record<string, unknown>, path0 = gw(path)): Promise<Record<string, unknown>> {
    const r = await postJson(path0, body);
    assert.equal(r.status, 200, `${path}: ${JSON.stringify(r.body)}`);
    const tx = await everywhere(r.body.tx_hash as string);
    assert.equal(tx.status, 'confirmed', JSON.stringify(tx));
    return tx;
  }
  async function refused(path: string, body: Record<string, unknown>, status: number, re: RegExp): Promise<void> {
    const r = await postJson(gw(path), body);
    assert.equal(r.status, status, `${path}: ${JSON.stringify(r.body)}`);
    assert.match(r.body.error as string, re);
  }
  /** Into every validator's pool past admission: included, and failed in the block. */
  const failsInBlock = (body: Record<string, unknown>, re: RegExp, opName?: string) => injectedFails(net, body, re, opName);
  const sameRootEverywhere = () => sameRoots(net);
  async function funded(label: string): Promise<Wallet> {
    const w = labelledWallet(label);
    const f = await postJson(gw('/api/v1/faucet'), { address: w.address, public_key: w.publicKeyHex });
    assert.equal(f.status, 200, JSON.stringify(f.body));
    await everywhere(f.body.tx_hash as string);
    return w;
  }
  /** The least value a fresh wallet's first transfer to a new recipient scores `bp` (basis points) with. */
  async function valueScoring(w: Wallet, bp: bigint): Promise<number> {
    return Number(leastValueScoring(model, bp, { gas_price: 1n, nonce: 1n, last_nonce: 0n, balance: BigInt(await balanceOf(w.address)), tx_count_last_10: 0n, recipient_tx_count: 0n, is_self_transfer: false }));
  }
  const op = (w: Wallet, kind: string, actor: string, target: string, body: Record<string, unknown>, extra: { value?: number; version?: 'v2' | 'v3' | 'v4'; nonce?: number } = {}) =>
    signOperation(w, { kind, actor, target, value: extra.value ?? 0, nonce: extra.nonce ?? nextNonce(), body, ...(extra.version ? { version: extra.version } : {}) });

  before(async () => {
    net = await startTestDevnet({
      cli: resolve('dist/test/fixtures/test-chain.js'),
      enablePlugins: ['memo'],
      env: { CHAIN_SENTINEL_POLICY_ENABLED: '1', CHAIN_SENTINEL_HOLD_BLOCKS: String(HOLD_BLOCKS), CHAIN_SENTINEL_CONFIRM_EXPIRY_BLOCKS: '1000' },
    });
    chainId = (await getJson(`${rpc()}/api/v1/status`)).body.chain_id as string;
  });
  after(async () => net?.stop());

  describe('reuse a signature (decisions.md §94)', () => {
    test('GET /api/v1/status names the chain (and the gateway\'s network status, for its clients); a transfer signed ch-tx-v4 for another network is 401 here', async () => {
      assert.match(chainId, /^devnet-[0-9a-f]{6}$/);
      await until('the gateway to name the chain', async () => ((await getJson(gw('/api/v1/network/status'))).body.chain_id === chainId ? true : undefined));
      const a = await funded('hs-chain-a');
      const elsewhere = signTransfer(a, { to: labelledWallet('hs-chain-b').address, value: 5, nonce: 1, chainId: 'devnet-000000' });
      await refused('/api/v1/transactions', elsewhere, 401, /invalid signature: it verifies under none of ch-tx-v4/);
      await confirmed('/api/v1/transactions', signTransfer(a, { to: labelledWallet('hs-chain-b').address, value: 5, nonce: 1 }));
    });

    test('a pending revoke_session resubmitted as grant_session to the attacker\'s key, a sponsor_disallow as sponsor_allow: 401; the honest ones apply', async () => {
      const owner = await funded('hs-session-owner');
      const agent = labelledWallet('hs-session-agent');
      const attacker = labelledWallet('hs-session-attacker');
      await confirmed('/api/v1/session/grant', op(owner, 'grant_session', owner.address, 'chain:system.session', { account: owner.address, session_pk: agent.publicKeyHex, scope: '*', cap: 1000, expiry_block: (await height()) + 10_000 }));
      const revoke = op(owner, 'revoke_session', owner.address, 'chain:system.session', { account: owner.address, session_pk: agent.publicKeyHex });
      const pending = await postJson(gw('/api/v1/session/revoke'), revoke);
      assert.equal(pending.status, 200, JSON.stringify(pending.body));
      // The attacker reads the pending revoke and sends its signature with a grant of its own key.
      const hijack = { ...revoke, session_pk: attacker.publicKeyHex, scope: '*', cap: 1_000_000_000, expiry_block: (await height()) + 10_000 };
      await refused('/api/v1/session/grant', hijack, 401, /invalid signature/);
      await everywhere(pending.body.tx_hash as string);
      const grants = (await getJson(`${rpc(2)}/api/v1/session/list/${owner.address}`)).body.grants as Array<{ session_pk: string; status: string }>;
      assert.deepEqual(grants.map((g) => [g.session_pk, g.status]), [[agent.publicKeyHex, 'revoked']], 'no grant to the attacker');

      // sponsor_allow and sponsor_disallow have the same body: under v3 one signature served both.
      const sponsor = await funded('hs-sponsor');
      const victim = labelledWallet('hs-sponsor-beneficiary');
      await confirmed('/api/v1/sponsor/deposit', op(sponsor, 'sponsor_deposit', sponsor.address, 'chain:system.sponsor', { address: sponsor.address, amount: 10_000 }, { value: 10_000 }));
      await confirmed('/api/v1/sponsor/allow', op(sponsor, 'sponsor_allow', sponsor.address, 'chain:system.sponsor', { address: sponsor.address, beneficiary: victim.address }));
      const disallow = op(sponsor, 'sponsor_disallow', sponsor.address, 'chain:system.sponsor', { address: sponsor.address, beneficiary: victim.address });
      await confirmed('/api/v1/sponsor/disallow', disallow);
      await refused('/api/v1/sponsor/allow', { ...disallow, nonce: nextNonce() }, 401, /invalid signature/);
      await refused('/api/v1/sponsor/allow', disallow, 401, /invalid signature/);
    });

    test('update_node_profile replayed as unjail, a vote replayed as a proposal: 401', async () => {
      const v0 = net.validatorKey(0);
      const owner = { keys: v0.keys, publicKeyHex: v0.file.public_key, address: v0.file.address } as unknown as Wallet;
      const node = v0.file.node_address!;
      const profile = op(owner, 'update_node_profile', node, 'chain:system.node', { description: 'validator zero' });
      await confirmed(`/api/v1/nodes/${node}/profile`, profile);
      const unjail = { address: node, nonce: profile.nonce, public_key: profile.public_key, signature: profile.signature };
      await refused(`/api/v1/nodes/${node}/unjail`, unjail, 401, /invalid signature/);
      const vote = op(owner, 'vote', node, 'chain:system.governance', { id: '1', voter: node, accept: true });
      const proposal = { proposer: node, title: 'replayed', description: 'a vote\'s signature', kind: 'text', voting_duration: 100, nonce: vote.nonce, public_key: vote.public_key, signature: vote.signature };
      await refused('/api/v1/governance/propose', proposal, 401, /invalid signature/);
    });

    test('own layouts and v2 cover no price: a relayer\'s gas_price is charged as base_fee; a gas_limit there is 400', async () => {
      const a = await funded('hs-price-a');
      const key = labelledWallet('hs-price-new-key');
      const nonce = nextNonce();
      const body = { owner: a.address, add: key.publicKeyHex, remove: '' };
      const rotation = signOwnLayout(a, identityMessages.rotate(body, BigInt(nonce)), body, nonce);
      await refused('/api/v1/identity/rotate', { ...rotation, gas_limit: 5_000 }, 400, /gas_limit needs a ch-tx-v4 signature: rotate_key's own layout does not cover it/);
      const before = await balanceOf(a.address);
      const raised = await confirmed('/api/v1/identity/rotate', { ...rotation, gas_price: 100_000 });
      assert.deepEqual([raised.gas_price, raised.gas, raised.fee], [1, 60, 60], 'the own layout pays base_fee, whatever the relayer wrote');
      const transfer = { ...signTransfer(a, { to: key.address, value: 7, nonce: await txNonce(a.address), version: 'v2' }), gas_price: 50_000 };
      const t = await confirmed('/api/v1/transactions', transfer);
      assert.deepEqual([t.gas_price, t.fee], [1, 21]);
      assert.equal(await balanceOf(a.address), before - 60 - 7 - 21);
    });
  });

  describe('spend past a session key\'s cap (decisions.md §95)', () => {
    test('register_node through a session key with a 1 000-ucoin cap: 401, and failed in a block with nothing charged; a gas_price above base_fee likewise', async () => {
      const owner = await funded('hs-cap-owner');
      const agent = labelledWallet('hs-cap-agent');
      await confirmed('/api/v1/session/grant', op(owner, 'grant_session', owner.address, 'chain:system.session', { account: owner.address, session_pk: agent.publicKeyHex, scope: '*', cap: 1000, expiry_block: (await height()) + 10_000 }));
      const register = op(agent, 'register_node', owner.address, 'chain:system.node', { name: 'capped-by-session', owner: owner.address });
      await refused('/api/v1/nodes/register', register, 401, /session spend cap exceeded: 0 of 1000 ucoin spent, 10000000 more asked/);
      const before = await balanceOf(owner.address);
      await failsInBlock(register, /session spend cap exceeded/, 'register_node');
      const pricey = signTransfer(agent, { from: owner.address, to: labelledWallet('hs-cap-shop').address, value: 1, nonce: await txNonce(owner.address), gas_price: 5_000 });
      await refused('/api/v1/transactions', pricey, 401, /session key may not set gas_price above base_fee/);
      await failsInBlock(pricey, /session key may not set gas_price above base_fee/);
      assert.equal(await balanceOf(owner.address), before, 'nothing bonded, nothing paid');
      // Within the cap the key still works, and spent counts the value.
      await confirmed('/api/v1/transactions', signTransfer(agent, { from: owner.address, to: labelledWallet('hs-cap-shop').address, value: 400, nonce: await txNonce(owner.address) }));
      const grants = (await getJson(`${rpc(1)}/api/v1/session/list/${owner.address}`)).body.grants as Array<{ spent: number }>;
      assert.equal(grants[0]!.spent, 400);
      await sameRootEverywhere();
    });

    test('a sponsor pool is checked against the largest fee a transaction can be charged, not gas_price × 100', async () => {
      const sponsor = await funded('hs-pool-sponsor');
      const user = await funded('hs-pool-user');
      await confirmed('/api/v1/sponsor/deposit', op(sponsor, 'sponsor_deposit', sponsor.address, 'chain:system.sponsor', { address: sponsor.address, amount: 150 }, { value: 150 }));
      await confirmed('/api/v1/sponsor/allow', op(sponsor, 'sponsor_allow', sponsor.address, 'chain:system.sponsor', { address: sponsor.address, beneficiary: user.address }));
      const pool = async () => (await getJson(`${rpc()}/api/v1/sponsor/${sponsor.address}`)).body.balance as number;
      // gas_price 2 × 100 = 200 > 150 held, but 90 gas may cost 180: the user pays, the pool is untouched.
      const before = await balanceOf(user.address);
      await confirmed('/api/v1/transactions', signTransfer(user, { to: sponsor.address, value: 1, nonce: await txNonce(user.address), gas_limit: 90, gas_price: 2 }));
      assert.equal(await pool(), 150);
      assert.equal(await balanceOf(user.address), before - 1 - 42 - 69);
      await confirmed('/api/v1/transactions', signTransfer(user, { to: sponsor.address, value: 1, nonce: await txNonce(user.address) }));
      assert.equal(await pool(), 150 - 21, 'a transfer whose largest fee the pool holds is paid by it');
    });
  });

  describe('move value past the sentinel (decisions.md §99)', () => {
    test('a transfer scoring 0.97 to validator-1.node and to a contract call: refused at admission, failed in a block, the value stays; in the hold range a .node payment is held and released to the node\'s owner', async () => {
      const deployer = await funded('hs-sentinel-deployer');
      const deploy = await confirmed('/api/v1/transactions', signTransfer(deployer, { to: 'chain:system.deploy', value: 0, nonce: await txNonce(deployer.address), data: JSON.stringify({ bytecode_hex: toHex(wat(ACCEPT_WAT)), name: 'accepts value' }), gas_limit: 200 }));
      const contract = ((deploy.events as Array<{ type: string; data: { address: string } }>).find((e) => e.type === 'contract_deployed'))!.data.address;
      const node = net.validatorKey(1).file.node_address!;
      const nodeOwner = net.validatorKey(1).file.address;
      for (const [label, to, data] of [['node', node, undefined], ['call', contract, JSON.stringify({ function: 'pay', args: {} })]] as const) {
        const s = await funded(`hs-sentinel-${label}`);
        const value = await valueScoring(s, 9_700n);
        const drain = signTransfer(s, { to, value, nonce: 1, ...(data !== undefined ? { data } : {}) });
        await refused('/api/v1/transactions', drain, 400, /sentinel: transaction scored 0\.9[7-9]\d\d .*at or above sentinel_reject_threshold 85/);
        const before = await balanceOf(s.address);
        const failed = await failsInBlock(drain, /sentinel_reject_threshold/);
        assert.equal(await balanceOf(s.address), before - (failed.fee as number), `${label}: only the fee left the sender`);
      }
      assert.equal(await balanceOf(contract), 0, 'nothing reached the contract');

      const payer = await funded('hs-sentinel-held');
      const value = await valueScoring(payer, 6_300n);
      const ownerBefore = await balanceOf(nodeOwner);
      const r = await postJson(gw('/api/v1/transactions'), signTransfer(payer, { to: node, value, nonce: 1 }));
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal((r.body.held as { releases: string }).releases, 'automatic');
      const tx = await everywhere(r.body.tx_hash as string);
      assert.equal(tx.status, 'confirmed');
      const releaseAt = (tx.block as number) + HOLD_BLOCKS;
      await until(`height ${releaseAt}`, async () => ((await height()) >= releaseAt ? true : undefined), 30_000);
      await until('the release on validator 2', async () => ((await getJson(`${rpc(2)}/health`)).body.height as number) >= releaseAt ? true : undefined, 30_000);
      // The owner's balance also earns fee shares as a proposer: the release is at least the value.
      assert.ok((await balanceOf(nodeOwner, 2)) - ownerBefore >= value, 'released to the owner of the .node (decisions.md §30)');
      assert.equal(await balanceOf(node, 2), 0, 'never to the .node itself');
      await sameRootEverywhere();
    });
  });

  describe('reserve a block (issue 29, item 7)', () => {
    test('a transfer that declares the whole block\'s gas pays base_fee for all of it (fee = gas used × gas_price, the rest as unused_gas_fee); transfers sent behind it are still included', async () => {
      const attacker = await funded('hs-block-attacker');
      const others = await Promise.all(['hs-block-1', 'hs-block-2', 'hs-block-3'].map(funded));
      const maxGas = Number(((await getJson(`${rpc()}/api/v1/governance/params`)).body.params as Record<string, { value: number }>).max_block_gas!.value);
      const before = await balanceOf(attacker.address);
      const reserve = await postJson(gw('/api/v1/transactions'), signTransfer(attacker, { to: others[0]!.address, value: 1, nonce: 1, gas_limit: maxGas }));
      assert.equal(reserve.status, 200, JSON.stringify(reserve.body));
      const behind = await Promise.all(others.map(async (w, i) => (await postJson(gw('/api/v1/transactions'), signTransfer(w, { to: attacker.address, value: 1, nonce: 1 }))).body.tx_hash as string));
      const r = await everywhere(reserve.body.tx_hash as string);
      assert.deepEqual([r.status, r.gas, r.fee, r.unused_gas_fee], ['confirmed', 21, 21, maxGas - 21], 'fee = gas used × gas_price; the reserved rest burned at base_fee');
      const blocks = await Promise.all(behind.map(async (h) => (await everywhere(h)).block as number));
      assert.ok(Math.max(...blocks) <= (r.block as number) + 2, `the transfers behind it were included within two blocks (${blocks.join(', ')} after ${String(r.block)})`);
      assert.equal(await balanceOf(attacker.address), before - 1 - maxGas + 3, 'the whole block\'s gas at base fee, as filling it would cost (plus the three transfers it received)');
    });
  });

  describe('conformance (decisions.md §89–90), as a client of the spec writes it', () => {
    test('confirm a held transfer with part 2\'s ch-tx-v2|<owner>|chain:system.trust|0|<nonce>; cancel one with ch-tx-v4 and the hash in the body; v4 without it is 401', async () => {
      /** A fresh wallet's transfer held until its owner confirms (step-up). */
      const hold = async (label: string): Promise<{ o: Wallet; hash: string; to: string; value: number }> => {
        const o = await funded(label);
        const to = labelledWallet(`${label}-to`).address;
        const value = await valueScoring(o, 7_200n);
        const r = await postJson(gw('/api/v1/transactions'), signTransfer(o, { to, value, nonce: 1 }));
        assert.equal(r.status, 200, JSON.stringify(r.body));
        assert.equal((r.body.held as { needs_owner: boolean }).needs_owner, true, JSON.stringify(r.body));
        await everywhere(r.body.tx_hash as string);
        return { o, hash: r.body.tx_hash as string, to, value };
      };
      const first = await hold('hs-89-first');
      // Part 2's layout, the owner in the body and nothing else of the act.
      const v2 = op(first.o, 'held_confirm', first.o.address, 'chain:system.trust', { owner: first.o.address }, { version: 'v2' });
      await confirmed(`/api/v1/transactions/${first.hash}/confirm`, v2);
      assert.equal(await balanceOf(first.to), first.value, 'released to the recipient');
      const second = await hold('hs-89-second');
      const { o } = second;
      await refused(`/api/v1/transactions/${second.hash}/cancel`, op(o, 'held_cancel', o.address, 'chain:system.trust', {}), 401, /ch-tx-v4 does not cover the URL: put hash in the signed body/);
      const balance = await balanceOf(o.address);
      // No owner field: it is the signing key's address.
      await confirmed(`/api/v1/transactions/${second.hash}/cancel`, op(o, 'held_cancel', o.address, 'chain:system.trust', { hash: second.hash }));
      assert.equal(await balanceOf(o.address), balance + second.value - 30, 'the held coins came back, less the cancel\'s fee');
      assert.equal(await balanceOf(second.to), 0);
    });

    test('identity with part 1\'s bodies: request (target, new_key), approve (target, guardian), withdraw (target); an approval signed for an earlier request does not count for a later one, at admission or in a block', async () => {
      const target = await funded('hs-90-target');
      const [g1, g2] = [await funded('hs-90-g1'), await funded('hs-90-g2')];
      const requester = await funded('hs-90-requester');
      const fresh = labelledWallet('hs-90-fresh');
      const own = <B extends Record<string, unknown>>(w: Wallet, layout: (b: B, n: bigint) => string, signed: B, sent: Record<string, unknown>) => {
        const nonce = nextNonce();
        return signOwnLayout(w, layout(signed, BigInt(nonce)), sent, nonce);
      };
      await confirmed('/api/v1/identity/recovery/setup', own(target, identityMessages.setup, { owner: target.address, guardians: [g1.address, g2.address], threshold: 2, timelock: 1_000 }, { owner: target.address, guardians: [g1.address, g2.address], threshold: 2, timelock: 1_000 }));
      const request = () => own(requester, identityMessages.request, { requester: requester.address, target: target.address, new_key: fresh.publicKeyHex }, { target: target.address, new_key: fresh.publicKeyHex });
      await confirmed('/api/v1/identity/recovery/request', request());
      const recovery = async () => ((await getJson(`${rpc()}/api/v1/identity/recovery/${target.address}`)).body.request ?? {}) as { id?: number; approvals?: string[]; requester?: string };
      assert.equal((await recovery()).requester, requester.address);
      const approve = (g: Wallet, id: number) => own(g, identityMessages.approve, { guardian: g.address, target: target.address, request_id: id }, { target: target.address, guardian: g.address });
      await confirmed('/api/v1/identity/recovery/approve', approve(g1, 1));
      const keptBack = approve(g2, 1);
      await confirmed('/api/v1/identity/recovery/withdraw', own(requester, identityMessages.withdraw, { requester: requester.address, target: target.address }, { target: target.address }));
      await confirmed('/api/v1/identity/recovery/request', request());
      assert.equal((await recovery()).id, 2);
      await refused('/api/v1/identity/recovery/approve', keptBack, 401, /does not verify over the recovery_approve layout for request_id 2/);
      const before = await balanceOf(g2.address);
      const failed = await failsInBlock(keptBack, /does not verify over the recovery_approve layout for request_id 2/, 'recovery_approve');
      assert.equal(failed.fee, 0);
      assert.equal(await balanceOf(g2.address), before, 'never signed for request 2: nothing charged');
      await confirmed('/api/v1/identity/recovery/approve', approve(g2, 2));
      assert.deepEqual((await recovery()).approvals, [g2.address]);
      await sameRootEverywhere();
    });
  });
});
