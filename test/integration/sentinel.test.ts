import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { labelledWallet, signOperation, signOwnLayout, signTransfer, type Wallet } from '../helpers/chain-fixture.js';
import { getJson, postJson, until, waitConfirmed } from '../helpers/node-process.js';
import { startTestDevnet, type TestDevnet } from '../helpers/devnet.js';
import { WsClient, type Msg } from '../../plugins/gateway/testing/process.js';
import { formatCoin, toHex } from '../../kernel/sdk.js';
import { leastValueScoring, loadModel } from '../../plugins/sentinel/model.js';
import { heldMessages } from '../../plugins/sentinel/operations/held.js';

/**
 * The sentinel (issue 26) on a real 4-validator devnet, through the gateway and its WebSocket:
 * the policy layer switched on by config (`CHAIN_SENTINEL_POLICY_ENABLED`), short hold, expiry
 * and trust delays. Each scenario uses fresh wallets, so the score of its transfer is known from
 * the model alone (a first transfer to a new recipient, nothing sent in the last 10 blocks).
 */
const HOLD_BLOCKS = 3;
const EXPIRY_BLOCKS = 6;
const TRUST_BLOCKS = 6;
const EXPORT_TOKEN = 'it-export-token';
const model = loadModel();
let clock = Date.now();
/** Transactions whose decisions the log must show, by the kinds it must show for each. */
const decided: Array<{ hash: string; kinds: string[] }> = [];

describe('sentinel on a real devnet', () => {
  let net: TestDevnet;
  let ws: WsClient;
  const rpc = (i = 0): string => net.rpcUrls[i]!;
  const gw = (path: string): string => `${net.gatewayUrl}${path}`;
  const balanceOf = async (address: string, i = 0): Promise<bigint> => BigInt((await getJson(`${rpc(i)}/api/v1/accounts/${address}`)).body.balance as number);
  const height = async (): Promise<number> => (await getJson(`${rpc()}/health`)).body.height as number;
  const event = (type: string, hash: string): Promise<Msg> => ws.next(`${type} of ${hash}`, (m) => m.type === type && (m.data as { tx_hash?: string }).tx_hash === hash, 30_000);

  async function funded(label: string): Promise<Wallet> {
    const w = labelledWallet(label);
    const f = await postJson(gw('/api/v1/faucet'), { address: w.address, public_key: w.publicKeyHex });
    assert.equal(f.status, 200, JSON.stringify(f.body));
    for (const url of net.rpcUrls) await waitConfirmed(url, f.body.tx_hash as string);
    return w;
  }
  /** The least value scoring `bp` for `w`'s first transfer to a new recipient. */
  async function valueScoring(w: Wallet, bp: bigint): Promise<number> {
    return Number(leastValueScoring(model, bp, { gas_price: 1n, nonce: 1n, last_nonce: 0n, balance: await balanceOf(w.address), tx_count_last_10: 0n, recipient_tx_count: 0n, is_self_transfer: false }));
  }
  async function submit(w: Wallet, to: string, value: number, nonce = 1): Promise<Record<string, unknown>> {
    const r = await postJson(gw('/api/v1/transactions'), signTransfer(w, { to, value, nonce }));
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body;
  }
  async function confirmedEverywhere(hash: string): Promise<Record<string, unknown>> {
    let tx: Record<string, unknown> = {};
    for (const url of net.rpcUrls) tx = await waitConfirmed(url, hash);
    assert.equal(tx.status, 'confirmed', JSON.stringify(tx));
    return tx;
  }
  const heldAction = (w: Wallet, hash: string, action: 'confirm' | 'cancel', signer: Wallet = w) => {
    const nonce = ++clock;
    return postJson(gw(`/api/v1/transactions/${hash}/${action}`), signOwnLayout(signer, heldMessages[action]({ owner: w.address, hash }, BigInt(nonce)), { owner: w.address }, nonce));
  };
  async function sameRootEverywhere(): Promise<void> {
    const h = Math.min(...(await Promise.all(net.rpcUrls.map(async (u) => (await getJson(`${u}/health`)).body.height as number))));
    const roots = await Promise.all(net.rpcUrls.map(async (u) => (await getJson(`${u}/api/v1/blocks/${h}`)).body.state_root));
    assert.equal(new Set(roots).size, 1, `state roots at height ${h}: ${roots.join(', ')}`);
  }

  before(async () => {
    net = await startTestDevnet({
      cli: resolve('dist/test/fixtures/test-chain.js'),
      enablePlugins: ['memo'],
      env: { AI_EXPORT_TOKEN: EXPORT_TOKEN, CHAIN_SENTINEL_POLICY_ENABLED: '1', CHAIN_SENTINEL_HOLD_BLOCKS: String(HOLD_BLOCKS), CHAIN_SENTINEL_CONFIRM_EXPIRY_BLOCKS: String(EXPIRY_BLOCKS), CHAIN_TRUST_ACTIVATION_BLOCKS: String(TRUST_BLOCKS) },
    });
    ws = await WsClient.connect(`${net.gatewayUrl.replace('http', 'ws')}/ws`);
  });
  after(async () => {
    ws?.close();
    await net?.stop();
  });

  test('the parameters hold the overrides; the unsigned scorer answers through the node', async () => {
    const params = (await getJson(`${rpc()}/api/v1/governance/params`)).body;
    const text = JSON.stringify(params);
    for (const [k, v] of [['sentinel_policy_enabled', 1], ['sentinel_hold_blocks', HOLD_BLOCKS], ['sentinel_reject_threshold', 85], ['trust_activation_blocks', TRUST_BLOCKS]] as const) {
      assert.match(text, new RegExp(`"${k}"[^}]*"value":"?${v}"?`), `${k} = ${v} in ${text.slice(0, 300)}`);
    }
    const s = await postJson(`${rpc()}/api/v1/sentinel/score`, { value: 850_000, gas_price: 1, nonce: 5, last_nonce: 4, balance: 1_000_000, tx_count_last_10: 0, recipient_tx_count: 0, is_self_transfer: false });
    assert.equal(s.status, 200, JSON.stringify(s.body));
    assert.deepEqual({ score: s.body.score, anomalous: s.body.anomalous, category: s.body.category }, { score: 0.8717, anomalous: true, category: 'drain' });
    const bad = await postJson(`${rpc()}/api/v1/sentinel/score`, { value: -1 });
    assert.equal(bad.status, 400);
  });

  test('a drain-like transfer is refused with 400 at the reject threshold, and fails in a block whose proposer skipped checkTx', async () => {
    const a = await funded('sent-it-a');
    const body = signTransfer(a, { to: labelledWallet('sent-it-a-to').address, value: await valueScoring(a, 9_000n), nonce: 1 });
    const r = await postJson(gw('/api/v1/transactions'), body);
    assert.equal(r.status, 400, JSON.stringify(r.body));
    assert.match(r.body.error as string, /at or above sentinel_reject_threshold 85/);
    let hash = '';
    for (const url of net.rpcUrls) hash = (await postJson(`${url}/test/inject`, body)).body.injected as string;
    for (const url of net.rpcUrls) await waitConfirmed(url, hash);
    const tx = await waitConfirmed(rpc(1), hash);
    assert.equal(tx.status, 'failed', JSON.stringify(tx));
    assert.match(tx.error as string, /sentinel_reject_threshold/);
    await sameRootEverywhere();
  });

  test('an anomalous transfer is accepted with the sentinel fields and tx_anomaly; held, listed, tx_held, then released after sentinel_hold_blocks with tx_released', async () => {
    const b = await funded('sent-it-b');
    const to = labelledWallet('sent-it-b-to').address;
    const value = await valueScoring(b, 6_300n);
    const r = await submit(b, to, value);
    assert.equal(r.sentinel_category, 'drain');
    assert.ok((r.sentinel_score as number) >= 0.63 && (r.sentinel_score as number) < 0.7, String(r.sentinel_score));
    assert.match(r.sentinel_warning as string, /anomalous/);
    assert.equal((r.held as { releases: string }).releases, 'automatic');
    const anomaly = await event('tx_anomaly', r.tx_hash as string);
    assert.deepEqual({ score: (anomaly.data as Msg).score, category: (anomaly.data as Msg).category }, { score: r.sentinel_score, category: 'drain' });
    const heldEv = (await event('tx_held', r.tx_hash as string)).data as Record<string, unknown>;
    assert.equal(heldEv.to, to);
    assert.equal(heldEv.score, r.sentinel_score, 'the score a number, as in the submission answer');
    assert.equal(heldEv.value_human, formatCoin(BigInt(value)));
    const tx = await confirmedEverywhere(r.tx_hash as string);
    const listed = await until('the hold through the gateway', async () => {
      const l = await getJson(gw(`/api/v1/held/${b.address}`));
      return l.status === 200 && l.body.total === 1 ? l.body : undefined;
    });
    const h = (listed.held as Array<Record<string, unknown>>)[0]!;
    assert.deepEqual([h.tx_hash, h.status, h.releases, h.release_height], [r.tx_hash, 'held', 'automatic', (tx.block as number) + HOLD_BLOCKS]);
    assert.equal(await balanceOf(to), 0n);
    const released = (await event('tx_released', r.tx_hash as string)).data as Record<string, unknown>;
    assert.equal(released.height, (tx.block as number) + HOLD_BLOCKS);
    for (let i = 0; i < net.rpcUrls.length; i++) await until(`release on validator ${i}`, async () => ((await balanceOf(to, i)) === BigInt(value) ? true : undefined));
    decided.push({ hash: r.tx_hash as string, kinds: ['anomaly', 'hold', 'release'] });
    await sameRootEverywhere();
  });

  test('step-up: refunded after sentinel_confirm_expiry_blocks when nobody confirms', async () => {
    const c = await funded('sent-it-c');
    const value = await valueScoring(c, 7_500n);
    const before = await balanceOf(c.address);
    const r = await submit(c, labelledWallet('sent-it-c-to').address, value);
    assert.deepEqual([(r.held as Msg).releases, (r.held as Msg).needs_owner], ['owner_confirmation', true]);
    const tx = await confirmedEverywhere(r.tx_hash as string);
    await event('tx_held', r.tx_hash as string);
    const refund = (await event('tx_refunded', r.tx_hash as string)).data as Record<string, unknown>;
    assert.equal(refund.height, (tx.block as number) + EXPIRY_BLOCKS);
    await until('the refund', async () => ((await balanceOf(c.address)) === before - 21n ? true : undefined));
    decided.push({ hash: r.tx_hash as string, kinds: ['anomaly', 'hold', 'refund'] });
    await sameRootEverywhere();
  });

  test('step-up: a session key cannot confirm (401); the owner\'s main key confirms and the transfer is released', async () => {
    const d = await funded('sent-it-d');
    const agent = labelledWallet('sent-it-d-agent');
    const g = await postJson(gw('/api/v1/session/grant'), signOperation(d, { actor: d.address, target: 'chain:system.session', nonce: ++clock, body: { account: d.address, session_pk: agent.publicKeyHex, scope: '*', cap: 1_000_000, expiry_block: (await height()) + 100_000 } }));
    assert.equal(g.status, 200, JSON.stringify(g.body));
    await confirmedEverywhere(g.body.tx_hash as string);
    const to = labelledWallet('sent-it-d-to').address;
    const value = await valueScoring(d, 7_500n);
    const r = await submit(d, to, value);
    await confirmedEverywhere(r.tx_hash as string);
    const bySession = await heldAction(d, r.tx_hash as string, 'confirm', agent);
    assert.equal(bySession.status, 401, JSON.stringify(bySession.body));
    assert.match(bySession.body.error as string, /only a main key of the account may confirm a held transfer/);
    const stranger = await funded('sent-it-d-stranger');
    const byStranger = await postJson(gw(`/api/v1/transactions/${r.tx_hash as string}/confirm`), signOwnLayout(stranger, heldMessages.confirm({ owner: stranger.address, hash: r.tx_hash as string }, BigInt(++clock)), { owner: stranger.address }, clock));
    assert.equal(byStranger.status, 403, JSON.stringify(byStranger.body));
    const ok = await heldAction(d, r.tx_hash as string, 'confirm');
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    const confirm = await confirmedEverywhere(ok.body.tx_hash as string);
    assert.equal(confirm.type, 'held_confirm');
    await event('tx_released', r.tx_hash as string);
    assert.equal(await balanceOf(to), BigInt(value));
    await sameRootEverywhere();
  });

  test('a cancel returns the coins with tx_cancelled', async () => {
    const e = await funded('sent-it-e');
    const before = await balanceOf(e.address);
    const r = await submit(e, labelledWallet('sent-it-e-to').address, await valueScoring(e, 7_500n));
    await confirmedEverywhere(r.tx_hash as string);
    const c = await heldAction(e, r.tx_hash as string, 'cancel');
    assert.equal(c.status, 200, JSON.stringify(c.body));
    await confirmedEverywhere(c.body.tx_hash as string);
    await event('tx_cancelled', r.tx_hash as string);
    assert.equal(await balanceOf(e.address), before - 21n - 30n);
    const again = await heldAction(e, r.tx_hash as string, 'cancel');
    assert.equal(again.status, 400);
    assert.match(again.body.error as string, /no longer held: cancelled/);
    decided.push({ hash: r.tx_hash as string, kinds: ['anomaly', 'hold', 'cancel'] });
  });

  test('a trusted recipient is held before its activation height and not after; the list shows added_height and active_from', async () => {
    const f = await funded('sent-it-f');
    const agent = labelledWallet('sent-it-f-agent');
    const to = labelledWallet('sent-it-f-to').address;
    const add = await postJson(gw('/api/v1/trust/add'), signOperation(f, { actor: f.address, target: 'chain:system.trust', nonce: ++clock, body: { owner: f.address, recipient: to } }));
    assert.equal(add.status, 200, JSON.stringify(add.body));
    const added = (await confirmedEverywhere(add.body.tx_hash as string)).block as number;
    const bySession = await postJson(gw('/api/v1/trust/remove'), signOperation(agent, { actor: f.address, target: 'chain:system.trust', nonce: ++clock, body: { owner: f.address, recipient: to } }));
    assert.equal(bySession.status, 401, 'not a key of the account at all');
    const list = await until('the trust list through the gateway', async () => {
      const l = await getJson(gw(`/api/v1/trust/${f.address}`));
      return l.status === 200 && l.body.total === 1 ? l.body : undefined;
    });
    assert.deepEqual((list.trusted as Array<Record<string, unknown>>).map((t) => [t.recipient, t.added_height, t.active_from]), [[to, added, added + TRUST_BLOCKS]]);

    const early = await submit(f, to, await valueScoring(f, 6_300n));
    assert.ok(early.held, 'not trusted yet: held');
    const tx = await confirmedEverywhere(early.tx_hash as string);
    await event('tx_released', early.tx_hash as string);
    // Past the activation height and the 10-block window of the first transfer.
    await until('activation', async () => ((await height()) >= Math.max(added + TRUST_BLOCKS, (tx.block as number) + 11) ? true : undefined), 60_000);
    const balance = await balanceOf(f.address);
    const received = BigInt((await getJson(`${rpc()}/api/v1/accounts/${to}`)).body.tx_count as number);
    const value = Number(leastValueScoring(model, 6_500n, { gas_price: 1n, nonce: 2n, last_nonce: 1n, balance, tx_count_last_10: 0n, recipient_tx_count: received, is_self_transfer: false }));
    const before = await balanceOf(to);
    const late = await submit(f, to, value, 2);
    assert.ok((late.sentinel_score as number) >= 0.65, `a score the policy holds: ${String(late.sentinel_score)}`);
    assert.equal(late.held, undefined, 'trusted: not held');
    await confirmedEverywhere(late.tx_hash as string);
    assert.equal(await balanceOf(to), before + BigInt(value));
    await sameRootEverywhere();
  });

  test('the decision log lists every verdict, hold, release, refund and cancel, with model, kind, subject, decision, confidence and height; oracle_decision on the socket', async () => {
    for (const { hash, kinds } of decided) {
      const log = await until(`the log of ${hash}`, async () => {
        const l = await getJson(gw(`/api/v1/oracle/log?model=sentinel&subject=${hash}`));
        return l.status === 200 && l.body.total === kinds.length ? l.body : undefined;
      });
      const entries = log.entries as Array<Record<string, unknown>>;
      assert.deepEqual(entries.map((e) => e.kind).reverse(), kinds, 'newest first');
      for (const e of entries) {
        assert.equal(e.model, 'sentinel');
        assert.equal(typeof e.confidence, 'number');
        assert.ok((e.confidence as number) >= 0.6 && (e.confidence as number) < 0.85, String(e.confidence));
        assert.equal(typeof e.height, 'number');
      }
      const one = await getJson(gw(`/api/v1/oracle/log/${entries[0]!.id as number}`));
      assert.deepEqual(one.body, entries[0]);
      const viaSocket = await ws.rpc('get_oracle_log', { subject: hash, kind: kinds[2]! });
      assert.equal(((viaSocket.result as Record<string, unknown>).entries as unknown[]).length, 1, JSON.stringify(viaSocket));
      const heard = await ws.next(`oracle_decision ${kinds[2]!} of ${hash}`, (m) => m.type === 'oracle_decision' && (m.data as Msg).subject === hash && (m.data as Msg).kind === kinds[2]);
      assert.deepEqual(Object.keys(heard.data as object).filter((k) => ['model', 'kind', 'subject', 'decision', 'confidence', 'timestamp'].includes(k)).sort(), ['confidence', 'decision', 'kind', 'model', 'subject', 'timestamp']);
      assert.equal(typeof (heard.data as Msg).confidence, 'number', 'a fraction on the socket as in REST (part 1, Transaction scoring; decisions.md §92)');
    }
    assert.equal((await getJson(gw('/api/v1/oracle/log/999999'))).status, 404);
    const byKind = await getJson(gw('/api/v1/oracle/log?kind=refund&limit=1'));
    assert.equal(byKind.body.limit, 1);
    assert.ok((byKind.body.total as number) >= 1);
  });

  test('the model registry: the sentinel\'s model active from genesis; a new entry pending until validators holding more than 2/3 of the power registered it', async () => {
    const registry = (await getJson(gw('/api/v1/models/registry'))).body;
    const genesis = (registry.models as Array<Record<string, unknown>>).find((m) => m.name === 'sentinel')!;
    assert.deepEqual([genesis.version, genesis.weights_hash, genesis.status], ['1.0.0', model.weightsHash, 'active']);
    const validators = ((await getJson(`${rpc()}/api/v1/validators`)).body.validators as Array<{ address: string; power?: number }>).map((v) => v.address).sort();
    assert.equal(validators.length, 4);
    const body = { name: 'fraud-scorer', version: '2.0.0', weights_hash: '0x' + 'ab'.repeat(32), architecture: 'logistic-regression-fixed-point', params_count: 8, accuracy: 0.91 };
    const asValidator = (i: number) => {
      const k = net.validatorKey(Number(validators[i]!.match(/validator-(\d+)/)![1]));
      return signOperation({ keys: k.keys, publicKeyHex: toHex(k.keys.publicKey) }, { actor: validators[i]!, target: 'chain:models.registry', nonce: ++clock, body: { from: validators[i]!, ...body } });
    };
    const outsider = await funded('sent-it-outsider');
    const refused = await postJson(gw('/api/v1/models/register'), signOperation(outsider, { actor: outsider.address, target: 'chain:models.registry', nonce: ++clock, body: { from: outsider.address, ...body } }));
    assert.equal(refused.status, 403, JSON.stringify(refused.body));
    let id = '';
    for (let i = 0; i < 3; i++) {
      const r = await postJson(gw('/api/v1/models/register'), asValidator(i));
      assert.equal(r.status, 200, JSON.stringify(r.body));
      const tx = await confirmedEverywhere(r.body.tx_hash as string);
      const reg = (tx.events as Array<{ type: string; data: Record<string, unknown> }>).find((e) => e.type === 'model_registered')!.data;
      id = reg.id as string;
      const entry = await until(`registry entry after ${i + 1} registrations`, async () => {
        const e = await getJson(gw(`/api/v1/models/registry/${id}`));
        return e.status === 200 && (e.body.votes as unknown[]).length === i + 1 ? e.body : undefined;
      });
      assert.equal(entry.status, i < 2 ? 'pending' : 'active', `${i + 1} of 4 equal validators`);
      if (i < 2) {
        const update = await ws.next(`model_voting_update with ${i + 1} votes`, (m) => m.type === 'model_voting_update' && ((m.data as { models: Array<{ id: string; votes: number }> }).models.some((x) => x.id === id && x.votes === i + 1)));
        assert.equal(typeof (update.data as Msg).height, 'number');
      }
    }
    const again = await postJson(gw('/api/v1/models/register'), asValidator(0));
    assert.equal(again.status, 409, JSON.stringify(again.body));
    const viaSocket = await ws.rpc('get_model_registry_entry', { id });
    assert.equal((viaSocket.result as Msg).status, 'active');
    const status = (await getJson(gw('/api/v1/ai/status'))).body;
    assert.ok((status.active as number) >= 2, JSON.stringify(status));
    assert.equal((status.sentinel as Msg).policy_enabled, 1);
    await sameRootEverywhere();
  });

  test('the export streams JSON Lines in ascending height and refuses a request without the token', async () => {
    const url = `${rpc()}/api/v1/ai/export/blocks?from=1&to=20`;
    const without = await fetch(url);
    assert.equal(without.status, 401);
    assert.match(((await without.json()) as { error: string }).error, /AI_EXPORT_TOKEN/);
    assert.equal((await fetch(url, { headers: { authorization: 'Bearer wrong' } })).status, 401);
    const ok = await fetch(url, { headers: { authorization: `Bearer ${EXPORT_TOKEN}` } });
    assert.equal(ok.status, 200);
    assert.match(ok.headers.get('content-type') ?? '', /application\/x-ndjson/);
    const blocks = (await ok.text()).trim().split('\n').map((l) => JSON.parse(l) as { height: number });
    assert.deepEqual(blocks.map((b) => b.height), Array.from({ length: 20 }, (_, i) => i + 1));
    const oracle = await fetch(`${rpc()}/api/v1/ai/export/oracle`, { headers: { authorization: `Bearer ${EXPORT_TOKEN}` } });
    const entries = (await oracle.text()).trim().split('\n').map((l) => JSON.parse(l) as { height: number; subject: string });
    assert.ok(entries.some((e) => e.subject === decided[0]!.hash));
    assert.deepEqual(entries.map((e) => e.height), [...entries.map((e) => e.height)].sort((a, b) => a - b));
    // Through the gateway: streamed through with the client's token.
    assert.equal((await fetch(gw('/api/v1/ai/export/blocks?from=1&to=5'))).status, 401);
    const viaGateway = await fetch(gw('/api/v1/ai/export/blocks?from=3&to=7'), { headers: { authorization: `Bearer ${EXPORT_TOKEN}` } });
    assert.equal(viaGateway.status, 200);
    assert.deepEqual((await viaGateway.text()).trim().split('\n').map((l) => (JSON.parse(l) as { height: number }).height), [3, 4, 5, 6, 7]);
    const txs = await fetch(`${rpc()}/api/v1/ai/export/txs?from=1`, { headers: { authorization: `Bearer ${EXPORT_TOKEN}` } });
    assert.ok((await txs.text()).includes(decided[0]!.hash));
    assert.equal((await getJson(gw('/api/v1/ai/status'))).body.export_token_required, true, 'the devnet runs its gateway with the same environment');
  });
});
