import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FIXTURE_CHAIN_ID, certifiedBlock, genesisDoc, labelledWallet, makeChain, refused, signOperation, type Fixture, type Wallet } from '../../test/helpers/chain-fixture.js';
import { provenGet } from '../../test/helpers/proven-read.js';
import { counterpartyHeader, ibcSigners, inboundTransfer, type CounterpartyHeader } from '../../test/helpers/ibc-chain.js';
import { RouteTable, lightClient, type NodeServices } from '../../kernel/sdk.js';
import { ibcPlugin } from './index.js';
import { channels, clients, commitments, denoms, openPackets, packets, receipts, vouchers } from './store.js';
import { commitmentValue, escrowAddress, transferText, voucherDenom, voucherHash } from './packets.js';
import { heldSupply, ibcHoldings } from '../../test/helpers/supply-model.js';

/**
 * The ibc plugin on one chain (`test-chain`) against a synthetic counterparty `ibc-b` whose
 * headers are signed by real ML-DSA-65 test keys over a real state tree: every rule at admission
 * and again in a block whose proposer skipped admission, with balances, escrow and voucher supply
 * exact after each step.
 */
const operator = labelledWallet('ibc-operator');
const alice = labelledWallet('ibc-alice');
const mallory = labelledWallet('ibc-mallory');
const COIN = 1_000_000n;
const START = 100n * COIN;
const B = 'ibc-b';
const CH = 'ch-1';
const SET = ibcSigners([10, 10, 10]);
let nonce = 1_900_000_000_000;
const next = (): number => ++nonce;
const TARGET = 'chain:system.ibc';

function op(w: Wallet, kind: string, body: Record<string, unknown>, o: { version?: 'v2' | 'v3' | 'v4'; value?: number } = {}): Record<string, unknown> {
  return signOperation(w, { kind, actor: w.address, target: TARGET, nonce: next(), value: o.value ?? (typeof body['amount'] === 'number' && kind !== 'ibc_ack' ? (body['amount'] as number) : 0), body: { from: w.address, ...body }, version: o.version ?? 'v4' });
}

async function admit(f: Fixture, kind: string, body: Record<string, unknown>): Promise<string> {
  const r = await f.chain.admitOperation(kind, body, {}, 0);
  await f.block();
  const stored = (await f.chain.queries.getTx(r.tx_hash))!;
  assert.equal(stored.receipt.status, 'confirmed', `${kind}: ${stored.receipt.error ?? ''}`);
  return r.tx_hash;
}

/** Puts an operation straight into the pool, as a proposer that skips admission would, and commits a block. */
async function injected(f: Fixture, kind: string, body: Record<string, unknown>): Promise<{ status: string; error: string | null }> {
  const tx = f.chain.rebuildTx('signed', f.operations.envelope(kind, body, {}), 1n, 0);
  f.chain.mempool.add(tx);
  await f.block();
  const stored = await f.chain.queries.getTx(tx.hash);
  return { status: stored!.receipt.status, error: stored!.receipt.error };
}

const ACCOUNTS = [operator, alice, mallory].map((w) => ({ address: w.address, balance: START }));

async function chain(genesisParams: Record<string, string> = {}, services?: { query?: NodeServices['query'] }): Promise<Fixture> {
  return makeChain({
    plugins: [ibcPlugin],
    pluginConfig: [{ name: 'ibc', options: { operator_pubkeys: operator.publicKeyHex } }],
    accounts: ACCOUNTS,
    genesisParams,
    ...(services ? { services } : {}),
  });
}

async function get(f: Fixture, path: string, params: Record<string, string> = {}, query = ''): Promise<Record<string, unknown>> {
  const routes = new RouteTable();
  f.hooks.routes.call(routes);
  const route = routes.list().find((r) => r.method === 'GET' && r.path === path)!;
  return (await route.handler({ method: 'GET', path: route.path, params, query: new URLSearchParams(query), headers: {}, body: undefined, ip: '127.0.0.1' })) as Record<string, unknown>;
}

/** A chain with channel ch-1 to ibc-b (ucoin and uatom) and a client of ibc-b created at height 10. */
async function connected(genesisParams: Record<string, string> = {}): Promise<Fixture> {
  const f = await chain(genesisParams);
  await admit(f, 'ibc_channel_open', op(operator, 'ibc_channel_open', { channel: CH, port: 'transfer', counterparty_chain: B, allowed_denoms: ['ucoin', 'uatom'] }));
  const h = await counterpartyHeader({ chainId: B, height: 10, validators: SET });
  await admit(f, 'ibc_client_update', op(operator, 'ibc_client_update', { header: h.header }));
  return f;
}

/** A counterparty header at `height` holding `records`, signed by its whole set. */
const headerWith = (height: number, records: Record<string, string>): Promise<CounterpartyHeader> => counterpartyHeader({ chainId: B, height, validators: SET, records });

/** An inbound transfer's body fields and the counterparty's commitment of them. */
const inbound = (sequence: number, o: { denom?: string; amount?: number; receiver?: string; timeout?: number } = {}) => inboundTransfer({ ...o, counterparty: B, channel: CH, sequence, receiver: o.receiver ?? alice.address });

async function updateClient(f: Fixture, h: CounterpartyHeader): Promise<void> {
  await admit(f, 'ibc_client_update', op(operator, 'ibc_client_update', { header: h.header }));
}

const balance = async (f: Fixture, a: string): Promise<bigint> => (await f.account(a)).balance;

test('operators only, ch-tx-v4 only: non-operator 403, v2 and v3 401, unknown channel 404, taken 409, malformed 400', async () => {
  const f = await chain();
  const open = { channel: CH, port: 'transfer', counterparty_chain: B, allowed_denoms: ['ucoin'] };
  await refused(f.chain.admitOperation('ibc_channel_open', op(mallory, 'ibc_channel_open', open), {}, 0), 403, /not an IBC operator/);
  await refused(f.chain.admitOperation('ibc_channel_open', op(operator, 'ibc_channel_open', open, { version: 'v2' }), {}, 0), 401, /ch-tx-v4 only/);
  await refused(f.chain.admitOperation('ibc_channel_open', op(operator, 'ibc_channel_open', open, { version: 'v3' }), {}, 0), 401, /ch-tx-v4 only/);
  await refused(f.chain.admitOperation('ibc_channel_open', op(operator, 'ibc_channel_open', { ...open, counterparty_chain: FIXTURE_CHAIN_ID }), {}, 0), 400, /this chain's own id/);
  await refused(f.chain.admitOperation('ibc_channel_open', op(operator, 'ibc_channel_open', { ...open, channel: 'Bad_Id' }), {}, 0), 400, /1-32 of a-z/);
  // decisions.md §92: a malformed body is 400 whoever sends it, an operator or not.
  await refused(f.chain.admitOperation('ibc_channel_open', op(mallory, 'ibc_channel_open', { ...open, channel: 'Bad_Id' }), {}, 0), 400, /1-32 of a-z/);
  await refused(f.chain.admitOperation('ibc_channel_open', op(operator, 'ibc_channel_open', { ...open, allowed_denoms: [] }), {}, 0), 400, /1 to 16 base denoms/);
  await refused(f.chain.admitOperation('ibc_channel_pause', op(operator, 'ibc_channel_pause', { channel: 'nope', paused: true }), {}, 0), 404, /no channel nope/);
  await admit(f, 'ibc_channel_open', op(operator, 'ibc_channel_open', open));
  await refused(f.chain.admitOperation('ibc_channel_open', op(operator, 'ibc_channel_open', open), {}, 0), 409, /already open/);
  const listed = await get(f, '/api/v1/ibc/channels');
  assert.equal(listed['total'], 1);
  assert.deepEqual((listed['channels'] as Array<Record<string, unknown>>)[0], {
    channel: CH, port: 'transfer', counterparty_chain: B, allowed_denoms: ['ucoin'], state: 'open', escrow_address: 'chain:ibc.escrow.ch-1',
    escrow_balance: 0n, escrow_balance_human: '0 COIN', outstanding: 0n, outstanding_human: '0 COIN', next_sequence: 1, opened_height: 1, updated_height: 1,
  });
  // A proposer that skips admission: the non-operator's open fails in the block, nothing written.
  const forged = await injected(f, 'ibc_channel_open', op(mallory, 'ibc_channel_open', { ...open, channel: 'ch-m' }));
  assert.equal(forged.status, 'failed');
  assert.match(forged.error!, /not an IBC operator/);
  assert.equal(await channels.get(f.pluginState('ibc'), 'ch-m'), undefined);
});

test('client: created from an operator header, then only rising headers signed by > 2/3 of the trusted set, with proven set changes', async () => {
  const f = await connected();
  const client = await get(f, '/api/v1/ibc/client/:chainId', { chainId: B });
  assert.equal(client['latest_height'], 10);
  assert.deepEqual(client['heights'], [10]);
  assert.equal(client['total_power'], 30n);
  await refused(get(f, '/api/v1/ibc/client/:chainId', { chainId: 'ibc-z' }), 404, /no client of ibc-z/);
  assert.equal(await f.pluginState('ibc').get(lightClient.ibcClientHeightKey(B).slice('ibc/'.length)).then((v) => (v ? new TextDecoder().decode(v) : undefined)), '10');

  const stale = await counterpartyHeader({ chainId: B, height: 10, validators: SET });
  await refused(f.chain.admitOperation('ibc_client_update', op(operator, 'ibc_client_update', { header: stale.header }), {}, 0), 400, /above the client's latest_height 10/);
  const twoThirds = await counterpartyHeader({ chainId: B, height: 11, validators: SET, signers: SET.slice(0, 2) });
  await refused(f.chain.admitOperation('ibc_client_update', op(operator, 'ibc_client_update', { header: twoThirds.header }), {}, 0), 400, /not more than 2\/3/);
  const own = await counterpartyHeader({ chainId: FIXTURE_CHAIN_ID, height: 11, validators: SET });
  await refused(f.chain.admitOperation('ibc_client_update', op(operator, 'ibc_client_update', { header: own.header }), {}, 0), 400, /this chain's own id/);
  // A new set signed by the trusted one, but with a set the header's state does not hold.
  const newSet = ibcSigners([5, 5, 5, 5], 90);
  const change = await counterpartyHeader({ chainId: B, height: 12, validators: newSet, signers: SET });
  const unproven = { ...change.header, validators: SET.map((v) => ({ public_key: v.public_key, power: 10 })) };
  await refused(f.chain.admitOperation('ibc_client_update', op(operator, 'ibc_client_update', { header: unproven }), {}, 0), 400, /validators_proof/);
  await refused(f.chain.admitOperation('ibc_client_update', op(mallory, 'ibc_client_update', { header: change.header }), {}, 0), 403, /not an IBC operator/);

  // Byzantine proposer: the under-signed update fails in the block; the client stays at 10.
  const inBlock = await injected(f, 'ibc_client_update', op(operator, 'ibc_client_update', { header: twoThirds.header }));
  assert.equal(inBlock.status, 'failed');
  assert.match(inBlock.error!, /not more than 2\/3/);
  assert.equal((await get(f, '/api/v1/ibc/client/:chainId', { chainId: B }))['latest_height'], 10);

  await updateClient(f, change);
  const moved = await get(f, '/api/v1/ibc/client/:chainId', { chainId: B });
  assert.equal(moved['latest_height'], 12);
  assert.deepEqual(moved['heights'], [10, 12]);
  assert.equal(moved['total_power'], 20n);
  // From now on only the new set signs.
  const oldSigners = await counterpartyHeader({ chainId: B, height: 13, validators: newSet, signers: SET });
  await refused(f.chain.admitOperation('ibc_client_update', op(operator, 'ibc_client_update', { header: oldSigners.header }), {}, 0), 400, /not more than 2\/3/);
});

test('recv: proven once, vouchers minted; replay, forged field, another packet\'s proof, unverified height, paused, timed out all 400 with nothing moved', async () => {
  const f = await connected();
  const one = inbound(1);
  const two = inbound(2, { amount: 7 });
  const h = await headerWith(20, { [one.key]: one.value, [two.key]: two.value });
  await updateClient(f, h);
  const proofOf = async (key: string) => (await h.prove(key)).proof;
  const recvBody = (x: ReturnType<typeof inbound>, extra: Record<string, unknown> = {}) => ({ ...x.body, proof_height: 20, ...extra });

  await refused(f.chain.admitOperation('ibc_recv', op(mallory, 'ibc_recv', recvBody(one, { proof: await proofOf(one.key) })), {}, 0), 403, /not an IBC operator/);
  await refused(f.chain.admitOperation('ibc_recv', op(operator, 'ibc_recv', recvBody(one, { amount: 5001, proof: await proofOf(one.key) })), {}, 0), 400, /proof does not prove ibc\/commitments\/ch-1\/1/);
  await refused(f.chain.admitOperation('ibc_recv', op(operator, 'ibc_recv', recvBody(one, { proof: await proofOf(two.key) })), {}, 0), 400, /proof does not prove/);
  await refused(f.chain.admitOperation('ibc_recv', op(operator, 'ibc_recv', recvBody(one, { proof_height: 15, proof: await proofOf(one.key) })), {}, 0), 400, /proof_height 15 is not a verified height/);
  await refused(f.chain.admitOperation('ibc_recv', op(operator, 'ibc_recv', { ...recvBody(one, { proof: await proofOf(one.key) }), packet_id: `${B}/ch-9/1` }), {}, 0), 404, /no channel ch-9/);
  await refused(f.chain.admitOperation('ibc_recv', op(operator, 'ibc_recv', { ...recvBody(one, { proof: await proofOf(one.key) }), packet_id: `ibc-c/${CH}/1` }), {}, 0), 400, /not channel ch-1's counterparty/);

  await admit(f, 'ibc_channel_open', op(operator, 'ibc_channel_open', { channel: 'ch-2', port: 'transfer', counterparty_chain: 'ibc-c', allowed_denoms: ['uatom'] }));
  await refused(f.chain.admitOperation('ibc_recv', op(operator, 'ibc_recv', { ...recvBody(one, { proof: await proofOf(one.key) }), packet_id: 'ibc-c/ch-2/1' }), {}, 0), 404, /no client of ibc-c/);

  // A forged recv from a proposer that skips admission fails in the block: no voucher.
  const forged = await injected(f, 'ibc_recv', op(operator, 'ibc_recv', recvBody(one, { amount: 5_000_000, proof: await proofOf(one.key) })));
  assert.equal(forged.status, 'failed');
  assert.match(forged.error!, /proof does not prove/);
  const hash = voucherHash(`transfer/${CH}/uatom`);
  assert.equal(await vouchers.get(f.pluginState('ibc'), alice.address, hash), undefined);

  await admit(f, 'ibc_recv', op(operator, 'ibc_recv', recvBody(one, { proof: await proofOf(one.key) })));
  assert.equal(await vouchers.get(f.pluginState('ibc'), alice.address, hash), 5000n);
  assert.deepEqual(new TextDecoder().decode(await receipts.get(f.pluginState('ibc'), CH, 1)), one.value);
  await refused(f.chain.admitOperation('ibc_recv', op(operator, 'ibc_recv', recvBody(one, { proof: await proofOf(one.key) })), {}, 0), 400, /already received/);
  const replay = await injected(f, 'ibc_recv', op(operator, 'ibc_recv', recvBody(one, { proof: await proofOf(one.key) })));
  assert.match(replay.error!, /already received/);
  assert.equal(await vouchers.get(f.pluginState('ibc'), alice.address, hash), 5000n, 'credited once');

  const denomList = await get(f, '/api/v1/ibc/denoms');
  assert.deepEqual(denomList['denoms'], [{ denom: voucherDenom(`transfer/${CH}/uatom`), trace: `transfer/${CH}/uatom`, base_denom: 'uatom', channel: CH, supply: 5000n, supply_human: '5000 uatom' }]);
  const held = await get(f, '/api/v1/ibc/voucher/:addr', { addr: alice.address });
  assert.deepEqual(held['vouchers'], [{ denom: voucherDenom(`transfer/${CH}/uatom`), trace: `transfer/${CH}/uatom`, amount: 5000n, amount_human: '5000 uatom' }]);
  const inList = await get(f, '/api/v1/ibc/packets', {}, 'direction=in');
  const rec = (inList['packets'] as Array<Record<string, unknown>>)[0]!;
  assert.equal(rec['status'], 'received');
  assert.equal(rec['credited_denom'], voucherDenom(`transfer/${CH}/uatom`));
  assert.equal(rec['proof_height'], 20);
  // By id: looked up through the index, each filter still applied.
  const byId = (dir: string, id: string) => get(f, '/api/v1/ibc/packets', {}, `id=${encodeURIComponent(id)}${dir ? `&direction=${dir}` : ''}`).then((l) => l['packets'] as Array<Record<string, unknown>>);
  assert.deepEqual((await byId('in', String(rec['id']))).map((p) => p['id']), [rec['id']]);
  assert.deepEqual(await byId('out', String(rec['id'])), []);
  assert.deepEqual(await byId('', `${B}/${CH}/99`), []);
  assert.deepEqual(await byId('', 'not an id'), []);

  // Paused: refused; resumed: accepted.
  await admit(f, 'ibc_channel_pause', op(operator, 'ibc_channel_pause', { channel: CH, paused: true }));
  await refused(f.chain.admitOperation('ibc_recv', op(operator, 'ibc_recv', recvBody(two, { proof: await proofOf(two.key) })), {}, 0), 400, /paused/);
  await admit(f, 'ibc_channel_pause', op(operator, 'ibc_channel_pause', { channel: CH, paused: false }));

  // A packet whose timeout the client has reached: 400, nothing credited.
  const late = inbound(3, { timeout: 25 });
  const h2 = await headerWith(25, { [late.key]: late.value });
  await updateClient(f, h2);
  await refused(f.chain.admitOperation('ibc_recv', op(operator, 'ibc_recv', { ...late.body, proof_height: 25, proof: (await h2.prove(late.key)).proof }), {}, 0), 400, /timed out: the client of ibc-b is at 25/);
  // A denom the channel does not allow.
  const odd = inbound(4, { denom: 'uosmo' });
  const h3 = await headerWith(26, { [odd.key]: odd.value });
  await updateClient(f, h3);
  await refused(f.chain.admitOperation('ibc_recv', op(operator, 'ibc_recv', { ...odd.body, proof_height: 26, proof: (await h3.prove(odd.key)).proof }), {}, 0), 400, /uosmo is not in channel ch-1's allowed_denoms/);
});

test('transfer → ack burns the escrow; the coin coming back is credited natively; supply conserved to the ucoin', async () => {
  const f = await connected();
  const escrow = escrowAddress(CH);
  const send = { channel: CH, dest_chain: B, receiver: 'cosmos1bob', denom: 'ucoin', amount: 1000 };
  await refused(f.chain.admitOperation('ibc_transfer', op(alice, 'ibc_transfer', { ...send, dest_chain: 'ibc-c' }), {}, 0), 400, /not channel ch-1's counterparty/);
  await refused(f.chain.admitOperation('ibc_transfer', op(alice, 'ibc_transfer', { ...send, denom: 'uatom' }), {}, 0), 400, /not the native denom/);
  await refused(f.chain.admitOperation('ibc_transfer', op(alice, 'ibc_transfer', { ...send, receiver: 'a|b' }), {}, 0), 400, /without \|/);
  await refused(f.chain.admitOperation('ibc_transfer', op(alice, 'ibc_transfer', { ...send, channel: 'ch-9' }), {}, 0), 404, /no channel ch-9/);
  await refused(f.chain.admitOperation('ibc_transfer', op(alice, 'ibc_transfer', send, { version: 'v2' }), {}, 0), 401, /ch-tx-v4 only/);

  const aliceBefore = await balance(f, alice.address);
  const txHash = await admit(f, 'ibc_transfer', op(alice, 'ibc_transfer', send));
  const fee = (await f.chain.queries.getTx(txHash))!.receipt.fee;
  assert.equal(await balance(f, alice.address), aliceBefore - 1000n - fee);
  assert.equal(await balance(f, escrow), 1000n);
  const sentAt = f.chain.head.height;
  const timeout = sentAt + 10;
  const text = transferText({ denom: 'ucoin', amount: 1000n, sender: alice.address, receiver: 'cosmos1bob', channel: CH, memo: '' });
  const value = commitmentValue(timeout, text);
  assert.equal(new TextDecoder().decode(await commitments.get(f.pluginState('ibc'), CH, 1)), value);
  const id = `${FIXTURE_CHAIN_ID}/${CH}/1`;
  const out = (await get(f, '/api/v1/ibc/packets', {}, `id=${encodeURIComponent(id)}`))['packets'] as Array<Record<string, unknown>>;
  assert.equal(out.length, 1);
  assert.equal(out[0]!['status'], 'locked');
  assert.equal(out[0]!['timeout_height'], timeout);
  assert.equal(out[0]!['amount'], 1000n);
  const lockedIds = async (q = 'status=locked'): Promise<unknown[]> => ((await get(f, '/api/v1/ibc/packets', {}, q))['packets'] as Array<Record<string, unknown>>).map((p) => p['id']);
  assert.deepEqual(await lockedIds(), [id], 'the relayer\'s poll lists it from the open packets');
  assert.deepEqual(await lockedIds('status=locked&channel=ch-9'), []);
  assert.deepEqual(await lockedIds('status=locked&direction=in'), []);

  // The counterparty's receipt proves delivery.
  const receiptKey = lightClient.ibcReceiptKey(CH, 1);
  const h = await headerWith(30, { [receiptKey]: value });
  await updateClient(f, h);
  await refused(f.chain.admitOperation('ibc_ack', op(operator, 'ibc_ack', { id, proof_height: 30, proof: (await h.prove(lightClient.ibcReceiptKey(CH, 2))).proof }), {}, 0), 400, /proof does not prove the counterparty's ibc\/receipts\/ch-1\/1/);
  await refused(f.chain.admitOperation('ibc_ack', op(operator, 'ibc_ack', { id: `${FIXTURE_CHAIN_ID}/${CH}/9`, proof_height: 30, proof: (await h.prove(receiptKey)).proof }), {}, 0), 404, /no outbound packet/);
  const burnedBefore = f.chain.head.total_burned;
  const ackHash = await admit(f, 'ibc_ack', op(operator, 'ibc_ack', { id, proof_height: 30, proof: (await h.prove(receiptKey)).proof }));
  const ackFeeBurned = (await f.chain.queries.getTx(ackHash))!.receipt.fee_burned;
  assert.equal(f.chain.head.total_burned - burnedBefore, 1000n + ackFeeBurned, 'the escrow is burned');
  assert.equal(await balance(f, escrow), 0n);
  assert.equal(await commitments.get(f.pluginState('ibc'), CH, 1), undefined, 'the commitment is deleted at the ack');
  assert.deepEqual(await lockedIds(), [], 'an acknowledged packet leaves the open packets');
  assert.deepEqual(await openPackets.scan(f.pluginState('ibc')), []);
  assert.deepEqual(((await get(f, '/api/v1/ibc/packets', {}, 'status=committed'))['packets'] as Array<Record<string, unknown>>).map((p) => p['id']), [id]);
  const ch = (await channels.get(f.pluginState('ibc'), CH))!;
  assert.deepEqual({ escrow: ch.escrow_balance, outstanding: ch.outstanding }, { escrow: 0n, outstanding: 1000n });
  await refused(f.chain.admitOperation('ibc_ack', op(operator, 'ibc_ack', { id, proof_height: 30, proof: (await h.prove(receiptKey)).proof }), {}, 0), 400, /is committed, not locked/);

  // 400 of it come back: credited natively, outstanding shrinks; more than outstanding is refused.
  const back = inbound(1, { denom: `transfer/${CH}/ucoin`, amount: 400 });
  const tooMuch = inbound(2, { denom: `transfer/${CH}/ucoin`, amount: 700 });
  const h2 = await headerWith(31, { [back.key]: back.value, [tooMuch.key]: tooMuch.value });
  await updateClient(f, h2);
  const aliceMid = await balance(f, alice.address);
  await admit(f, 'ibc_recv', op(operator, 'ibc_recv', { ...back.body, proof_height: 31, proof: (await h2.prove(back.key)).proof }));
  assert.equal(await balance(f, alice.address), aliceMid + 400n);
  assert.equal((await channels.get(f.pluginState('ibc'), CH))!.outstanding, 600n);
  await refused(f.chain.admitOperation('ibc_recv', op(operator, 'ibc_recv', { ...tooMuch.body, proof_height: 31, proof: (await h2.prove(tooMuch.key)).proof }), {}, 0), 400, /600 ucoin outstanding, less than the 700/);

  // Supply to the ucoin: every balance (the escrow's included) plus every burn is genesis plus
  // the native coin that came back, which the channel's outstanding bounded.
  const held = await heldSupply(f.chain.queries.state);
  const ibc = await ibcHoldings(f.chain.queries.state);
  assert.equal(ibc.escrowAccounts, 0n);
  assert.equal(ibc.outstanding, 600n);
  assert.equal(held.total + f.chain.head.total_burned, 3n * START + 400n);
  await assertVouchersBacked(f);
});

/** Every voucher denom's supply is exactly what its holders (escrows included) hold. */
async function assertVouchersBacked(f: Fixture): Promise<void> {
  const ibc = await ibcHoldings(f.chain.queries.state);
  for (const [hash, supply] of ibc.voucherSupply) assert.equal(ibc.vouchersHeld.get(hash) ?? 0n, supply, `ibc/${hash}`);
  for (const hash of ibc.vouchersHeld.keys()) assert.ok(ibc.voucherSupply.has(hash), `vouchers of an unknown denom ${hash}`);
}

test('timeout refunds only on proof of non-receipt with the counterparty client at or past the timeout; redeem escrows vouchers', async () => {
  const f = await connected({ ibc_timeout_blocks: '3' });
  const escrow = escrowAddress(CH);
  const aliceBefore = await balance(f, alice.address);
  const txHash = await admit(f, 'ibc_transfer', op(alice, 'ibc_transfer', { channel: CH, dest_chain: B, receiver: 'cosmos1bob', denom: 'ucoin', amount: 2500, memo: 'hi' }));
  const fee = (await f.chain.queries.getTx(txHash))!.receipt.fee;
  const timeout = f.chain.head.height + 3;
  const id = `${FIXTURE_CHAIN_ID}/${CH}/1`;
  const clientKey = lightClient.ibcClientHeightKey(FIXTURE_CHAIN_ID);
  const receiptKey = lightClient.ibcReceiptKey(CH, 1);
  const early = await headerWith(40, { [clientKey]: String(timeout - 1) });
  await updateClient(f, early);
  const body = async (h: CounterpartyHeader, height: number, clientHeight: number) => ({ id, proof_height: height, proof: (await h.prove(receiptKey)).proof, client_height: clientHeight, client_proof: (await h.prove(clientKey)).proof });
  await refused(f.chain.admitOperation('ibc_timeout', op(operator, 'ibc_timeout', await body(early, 40, timeout - 1)), {}, 0), 400, /below the packet's timeout_height/);
  // A client height the proof does not show.
  await refused(f.chain.admitOperation('ibc_timeout', op(operator, 'ibc_timeout', await body(early, 40, timeout)), {}, 0), 400, /client_proof does not prove/);
  // Received after all: the receipt is there, no refund.
  const delivered = await headerWith(41, { [clientKey]: String(timeout), [receiptKey]: 'x' });
  await updateClient(f, delivered);
  await refused(f.chain.admitOperation('ibc_timeout', op(operator, 'ibc_timeout', await body(delivered, 41, timeout)), {}, 0), 400, /absent/);
  const due = await headerWith(42, { [clientKey]: String(timeout) });
  await updateClient(f, due);
  await admit(f, 'ibc_timeout', op(operator, 'ibc_timeout', await body(due, 42, timeout)));
  assert.equal(await balance(f, alice.address), aliceBefore - fee, 'refunded to the ucoin, the fee kept');
  assert.equal(await balance(f, escrow), 0n);
  const rec = (await get(f, '/api/v1/ibc/packets', {}, 'direction=out'))['packets'] as Array<Record<string, unknown>>;
  assert.equal(rec[0]!['status'], 'timed_out');
  assert.equal(rec[0]!['memo'], 'hi');
  assert.deepEqual(await openPackets.scan(f.pluginState('ibc')), [], 'a timed-out packet leaves the open packets');

  // Vouchers leave through redeem on their own channel, locked in the escrow.
  const inb = inbound(1, { amount: 900 });
  const h = await headerWith(43, { [inb.key]: inb.value });
  await updateClient(f, h);
  await admit(f, 'ibc_recv', op(operator, 'ibc_recv', { ...inb.body, proof_height: 43, proof: (await h.prove(inb.key)).proof }));
  const denom = voucherDenom(`transfer/${CH}/uatom`);
  const hash = voucherHash(`transfer/${CH}/uatom`);
  await refused(f.chain.admitOperation('ibc_redeem', op(alice, 'ibc_redeem', { channel: CH, dest_chain: B, receiver: 'cosmos1bob', denom, amount: 901 }), {}, 0), 400, /insufficient vouchers/);
  await refused(f.chain.admitOperation('ibc_transfer', op(alice, 'ibc_transfer', { channel: CH, dest_chain: B, receiver: 'cosmos1bob', denom, amount: 1 }), {}, 0), 400, /not the native denom/);
  await admit(f, 'ibc_redeem', op(alice, 'ibc_redeem', { channel: CH, dest_chain: B, receiver: 'cosmos1bob', denom, amount: 300 }));
  const state = f.pluginState('ibc');
  assert.equal(await vouchers.get(state, alice.address, hash), 600n);
  assert.equal(await vouchers.get(state, escrow, hash), 300n);
  const redeemValue = commitmentValue(f.chain.head.height + 3, transferText({ denom: `transfer/${CH}/uatom`, amount: 300n, sender: alice.address, receiver: 'cosmos1bob', channel: CH, memo: '' }));
  assert.equal(new TextDecoder().decode(await commitments.get(state, CH, 2)), redeemValue, 'a redeem names its trace');
  const acked = await headerWith(44, { [lightClient.ibcReceiptKey(CH, 2)]: redeemValue });
  await updateClient(f, acked);
  await admit(f, 'ibc_ack', op(operator, 'ibc_ack', { id: `${FIXTURE_CHAIN_ID}/${CH}/2`, proof_height: 44, proof: (await acked.prove(lightClient.ibcReceiptKey(CH, 2))).proof }));
  assert.equal(await vouchers.get(state, escrow, hash), undefined);
  assert.equal((await denoms.get(state, hash))!.supply, 600n, 'supply = minted less burned = what holders hold');
  await assertVouchersBacked(f);
  const held = await heldSupply(f.chain.queries.state);
  assert.equal(held.total + f.chain.head.total_burned, 3n * START, 'a refund and voucher moves create and destroy no ucoin');
  const all = await packets.scan(state);
  assert.deepEqual(all.map((e) => e.value.status), ['timed_out', 'received', 'committed']);
});

test('limits: ibc_max_packet and ibc_max_channel_escrow (escrow + outstanding) refuse with 400 naming the limit, in the block too', async () => {
  const f = await connected({ ibc_max_packet: '5000', ibc_max_channel_escrow: '6000' });
  const send = (amount: number) => op(alice, 'ibc_transfer', { channel: CH, dest_chain: B, receiver: 'cosmos1bob', denom: 'ucoin', amount });
  await refused(f.chain.admitOperation('ibc_transfer', send(5001), {}, 0), 400, /above ibc_max_packet 5000/);
  await admit(f, 'ibc_transfer', send(5000));
  await refused(f.chain.admitOperation('ibc_transfer', send(1001), {}, 0), 400, /above ibc_max_channel_escrow 6000/);
  const before = await balance(f, alice.address);
  const inBlock = await injected(f, 'ibc_transfer', send(1001));
  assert.equal(inBlock.status, 'failed');
  assert.match(inBlock.error!, /ibc_max_channel_escrow/);
  assert.ok(before - (await balance(f, alice.address)) < 1001n, 'only the fee moved');
  assert.equal(await balance(f, escrowAddress(CH)), 5000n);
});

test('attestations: an operator sends one on an attest channel (timestamp the block\'s) and receives the counterparty\'s on a proof', async () => {
  const f = await connected();
  await admit(f, 'ibc_channel_open', op(operator, 'ibc_channel_open', { channel: 'att', port: 'attest', counterparty_chain: B, allowed_denoms: [] }));
  const att = { channel: 'att', bytecode_hash: '0x' + 'ab'.repeat(32), score: 42, model: 'analyzer-v1', subject: 'chain:0123456789.app' };
  await refused(f.chain.admitOperation('ibc_attest', op(mallory, 'ibc_attest', att), {}, 0), 403, /not an IBC operator/);
  await refused(f.chain.admitOperation('ibc_attest', op(operator, 'ibc_attest', { ...att, channel: CH }), {}, 0), 400, /attestations travel on an attest channel/);
  await refused(f.chain.admitOperation('ibc_attest', op(operator, 'ibc_attest', { ...att, score: 101 }), {}, 0), 400, /score must be 0 to 100/);
  await refused(f.chain.admitOperation('ibc_transfer', op(alice, 'ibc_transfer', { channel: 'att', dest_chain: B, receiver: 'x', denom: 'ucoin', amount: 1 }), {}, 0), 400, /coins travel on a transfer channel/);
  await admit(f, 'ibc_attest', op(operator, 'ibc_attest', att));
  const block = await f.chain.queries.getBlock(f.chain.head.height);
  const sent = (await packets.scan(f.pluginState('ibc'))).map((e) => e.value).find((p) => p.kind === 'attest')!;
  assert.equal(sent.timestamp, block!.header.timestamp);
  const text = `ch-ibc-attest-v1|${att.bytecode_hash}|42|analyzer-v1|${block!.header.timestamp}|${att.subject}`;
  assert.equal(new TextDecoder().decode(await commitments.get(f.pluginState('ibc'), 'att', 1)), commitmentValue(sent.timeout_height, text));

  const theirs = `ch-ibc-attest-v1|${'0x' + 'cd'.repeat(32)}|7|their-model|1700000000000|chain:x.app`;
  const key = lightClient.ibcCommitmentKey('att', 1);
  const h = await headerWith(50, { [key]: commitmentValue(900, theirs) });
  await updateClient(f, h);
  const body = { packet_id: `${B}/att/1`, kind: 'attest', bytecode_hash: '0x' + 'cd'.repeat(32), score: 7, model: 'their-model', timestamp: 1_700_000_000_000, subject: 'chain:x.app', timeout_height: 900, proof_height: 50, proof: (await h.prove(key)).proof };
  await refused(f.chain.admitOperation('ibc_recv', op(operator, 'ibc_recv', { ...body, score: 8 }), {}, 0), 400, /proof does not prove/);
  await refused(f.chain.admitOperation('ibc_recv', op(operator, 'ibc_recv', { ...body, kind: 'transfer' }), {}, 0), 400, /cannot arrive on attest channel/);
  await admit(f, 'ibc_recv', op(operator, 'ibc_recv', body));
  const got = ((await get(f, '/api/v1/ibc/packets', {}, 'kind=attest&direction=in'))['packets'] as Array<Record<string, unknown>>)[0]!;
  assert.deepEqual({ status: got['status'], score: got['score'], model: got['model'], amount: got['amount'] }, { status: 'received', score: 7, model: 'their-model', amount: undefined });
});

test('a redeem that times out gives the vouchers back to the sender', async () => {
  const f = await connected({ ibc_timeout_blocks: '2' });
  const inb = inbound(1, { amount: 50 });
  const h = await headerWith(20, { [inb.key]: inb.value });
  await updateClient(f, h);
  await admit(f, 'ibc_recv', op(operator, 'ibc_recv', { ...inb.body, proof_height: 20, proof: (await h.prove(inb.key)).proof }));
  const denom = voucherDenom(`transfer/${CH}/uatom`);
  const hash = voucherHash(`transfer/${CH}/uatom`);
  await admit(f, 'ibc_redeem', op(alice, 'ibc_redeem', { channel: CH, dest_chain: B, receiver: 'cosmos1bob', denom, amount: 50 }));
  assert.equal(await vouchers.get(f.pluginState('ibc'), alice.address, hash), undefined);
  const timeout = f.chain.head.height + 2;
  const clientKey = lightClient.ibcClientHeightKey(FIXTURE_CHAIN_ID);
  const due = await headerWith(21, { [clientKey]: String(timeout + 5) });
  await updateClient(f, due);
  const receiptKey = lightClient.ibcReceiptKey(CH, 1);
  await admit(f, 'ibc_timeout', op(operator, 'ibc_timeout', { id: `${FIXTURE_CHAIN_ID}/${CH}/1`, proof_height: 21, proof: (await due.prove(receiptKey)).proof, client_height: timeout + 5, client_proof: (await due.prove(clientKey)).proof }));
  assert.equal(await vouchers.get(f.pluginState('ibc'), alice.address, hash), 50n);
  assert.equal(await vouchers.get(f.pluginState('ibc'), escrowAddress(CH), hash), undefined);
  await assertVouchersBacked(f);
});

test('start-up refuses CHAIN_IBC_REQUIRE_HEADER or _PACKET_COMMITMENT off and a malformed operator key, naming the variable', async () => {
  const boot = (options: Record<string, unknown>) => makeChain({ plugins: [ibcPlugin], pluginConfig: [{ name: 'ibc', options }] });
  await assert.rejects(boot({ require_header: false }), /CHAIN_IBC_REQUIRE_HEADER/);
  await assert.rejects(boot({ require_packet_commitment: false }), /CHAIN_IBC_REQUIRE_PACKET_COMMITMENT/);
  await assert.rejects(boot({ operator_pubkeys: 'abcd' }), /CHAIN_IBC_OPERATOR_PUBKEYS: "abcd…" is not an ML-DSA-65 public key/);
});

test('?prove=true on a client read proves the client\'s record, and a client of this chain checks it (§84–85)', async () => {
  const services: { query?: NodeServices['query'] } = {};
  const f = await chain({}, services);
  const h = await counterpartyHeader({ chainId: B, height: 10, validators: SET });
  await f.chain.admitOperation('ibc_client_update', op(operator, 'ibc_client_update', { header: h.header }), {}, 0);
  await certifiedBlock(f);
  await certifiedBlock(f);
  const { answer, keys } = await provenGet(f, services, genesisDoc(ACCOUNTS), '/api/v1/ibc/client/:chainId', { chainId: B });
  assert.deepEqual([answer.latest_height, answer.heights], [10, [10]]);
  assert.deepEqual(keys, [[clients.stateKey(B), true]]);
});
