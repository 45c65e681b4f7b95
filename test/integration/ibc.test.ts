import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import { ml_dsa65 } from '@noble/post-quantum/ml-dsa.js';
import { labelledWallet, signOperation, type Wallet } from '../helpers/chain-fixture.js';
import { getJson, postJson, until, waitConfirmed } from '../helpers/node-process.js';
import { failsInBlock, sameRootEverywhere, startTestDevnet, type TestDevnet } from '../helpers/devnet.js';
import { counterpartyHeader, ibcSigners } from '../helpers/ibc-chain.js';
import { tempDir } from '../helpers/temp-dir.js';
import { toHex } from '../../kernel/codec/hex.js';
import { sha3 } from '../../kernel/crypto/hash.js';
import { makeKeyFile, writeKeyFile } from '../../kernel/crypto/keyfile.js';
import { nobleProvider } from '../../kernel/crypto/noble-provider.js';
import { ibcCommitmentKey, ibcValsetValue, verifyStateProof } from '../../kernel/light-client/index.js';
import { commitmentValue, transferText, voucherDenom } from '../../plugins/ibc/public.js';

/**
 * IBC v2 on two real devnets side by side (decisions.md §63–70), 2 validators each, their own
 * chain ids, folders and ports, talked to as a client would:
 * - headers: each chain serves commit headers at the interval, checked here with an independent
 *   ML-DSA-65 library against the blocks they name, the validator set through its proof;
 * - the plugin on A against a synthetic counterparty (ibc-z), whose headers test keys sign over a
 *   real state tree: operator-only and v4-only, a client, a proven packet, a forged one failing
 *   in the block of a proposer that skipped admission;
 * - the shipped relayer (`node dist/cli/main.js relayer`) joining A and B: clients, transfers,
 *   redeem, the counterparty's coin, a refused packet refunded by a proven timeout, a relayer
 *   killed with SIGKILL mid-flight and restarted; supply matched across the two chains and every
 *   validator of each chain on one state root.
 */
const A_ID = 'ibc-a';
const B_ID = 'ibc-b';
const INTERVAL = 4;
let a: TestDevnet;
let b: TestDevnet;
let clock = Date.now();
const relayerKey = makeKeyFile(nobleProvider, sha3('it-ibc-relayer'));
const relayerKeyFile = join(tempDir('ibc-relayer-'), 'relayer.json');
const relayerWallet: Wallet = { keys: relayerKey.keys, publicKeyHex: relayerKey.file.public_key, address: relayerKey.file.address };

before(async () => {
  writeKeyFile(relayerKeyFile, relayerKey.file);
  // The relayer's key is an operator of both chains (§63), beside each devnet's validator-0.
  const env = { CHAIN_IBC_OPERATOR_PUBKEYS: relayerKey.file.public_key };
  const genesisParams = { ibc_header_interval: String(INTERVAL), ibc_timeout_blocks: '60' };
  [a, b] = await Promise.all([
    startTestDevnet({ validators: 2, chainId: A_ID, cli: resolve('dist/test/fixtures/test-chain.js'), enablePlugins: ['memo'], env, genesisParams }),
    startTestDevnet({ validators: 2, chainId: B_ID, env, genesisParams }),
  ]);
});

after(async () => {
  await stopRelayer();
  await Promise.all([a?.stop(), b?.stop()]);
});

const hex = (s: unknown): Uint8Array => Uint8Array.from(Buffer.from(String(s).replace(/^0x/, ''), 'hex'));
const chainIdOf = (net: TestDevnet): string => (net === a ? A_ID : B_ID);

/** A signed ibc_* operation naming `net`'s chain (ch-tx-v4, or v2 to be refused). */
function op(net: TestDevnet, w: Pick<Wallet, 'keys' | 'publicKeyHex' | 'address'>, kind: string, body: Record<string, unknown>, version: 'v2' | 'v4' = 'v4'): Record<string, unknown> {
  return signOperation(w, { kind, actor: w.address, target: 'chain:system.ibc', nonce: ++clock, value: typeof body['amount'] === 'number' && kind !== 'ibc_ack' ? body['amount'] : 0, body: { from: w.address, ...body }, version, chainId: chainIdOf(net) });
}

/** Submits through the gateway and waits until every validator applied it; answers the transaction. */
async function confirmed(net: TestDevnet, path: string, body: Record<string, unknown>): Promise<Record<string, unknown>> {
  const r = await postJson(`${net.gatewayUrl}${path}`, body);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  let tx: Record<string, unknown> = {};
  for (const url of net.rpcUrls) tx = await waitConfirmed(url, r.body.tx_hash as string);
  assert.equal(tx.status, 'confirmed', JSON.stringify(tx));
  return tx;
}

async function funded(net: TestDevnet, w: Wallet): Promise<void> {
  const r = await postJson(`${net.gatewayUrl}/api/v1/faucet`, { address: w.address, public_key: w.publicKeyHex });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  for (const url of net.rpcUrls) await waitConfirmed(url, r.body.tx_hash as string);
}

const balance = async (net: TestDevnet, addr: string): Promise<number> => Number((await getJson(`${net.gatewayUrl}/api/v1/accounts/${addr}`)).body.balance ?? 0);
async function voucher(net: TestDevnet, addr: string, denom: string): Promise<number> {
  const held = await getJson(`${net.gatewayUrl}/api/v1/ibc/voucher/${addr}`);
  assert.equal(held.status, 200, JSON.stringify(held.body));
  return Number((held.body.vouchers as Array<Record<string, unknown>>).find((v) => v.denom === denom)?.amount ?? 0);
}
async function channel(net: TestDevnet, ch: string): Promise<Record<string, unknown>> {
  const list = await getJson(`${net.gatewayUrl}/api/v1/ibc/channels?limit=100`);
  const found = (list.body.channels as Array<Record<string, unknown>>).find((c) => c.channel === ch);
  assert.ok(found, `channel ${ch} on ${chainIdOf(net)}`);
  return found;
}
async function supply(net: TestDevnet, trace: string): Promise<number> {
  const list = await getJson(`${net.gatewayUrl}/api/v1/ibc/denoms?limit=100`);
  return Number((list.body.denoms as Array<Record<string, unknown>>).find((d) => d.trace === trace)?.supply ?? 0);
}
async function packet(net: TestDevnet, id: string, direction: 'in' | 'out'): Promise<Record<string, unknown> | undefined> {
  const r = await getJson(`${net.gatewayUrl}/api/v1/ibc/packets?${new URLSearchParams({ id, direction })}`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return (r.body.packets as Array<Record<string, unknown>>)[0];
}
/** Waits (on events the chain shows, never a fixed sleep) until the outbound packet is settled. */
async function settled(net: TestDevnet, id: string, status: 'committed' | 'timed_out', timeoutMs = 90_000): Promise<Record<string, unknown>> {
  return until(`${id} ${status} on ${chainIdOf(net)}`, async () => {
    const p = await packet(net, id, 'out');
    if (p && p.status !== 'locked' && p.status !== status) throw new Error(`${id} is ${String(p.status)}, not ${status}`);
    return p?.status === status ? p : undefined;
  }, timeoutMs);
}

// ---------------------------------------------------------------------------------------------
// Commit headers (§64, §66)

async function headerAtLeast(rpc: string, height: number): Promise<Record<string, unknown>> {
  return until(`a header at or above ${height} from ${rpc}`, async () => {
    const r = await getJson(`${rpc}/api/v1/ibc/header/latest`);
    return r.status === 200 && Number(r.body.height) >= height ? r.body : undefined;
  }, 90_000);
}

/** A header checked as a counterparty checks it, from the block it names. */
async function checkHeader(rpc: string, chainId: string, header: Record<string, unknown>): Promise<void> {
  const h = Number(header.height);
  assert.equal(header.chain_id, chainId);
  const block = await getJson(`${rpc}/api/v1/blocks/${h}`);
  assert.equal(block.status, 200);
  assert.equal(header.block_hash, block.body.hash);
  assert.equal(header.state_root, block.body.state_root);
  const message = `ch-pq-lc-v1|${chainId}|${h}|${String(block.body.hash)}|${String(block.body.state_root)}`;
  assert.equal(header.message, message);
  const signatures = header.signatures as Array<Record<string, unknown>>;
  const validators = header.validators as Array<{ public_key: string; power: number }>;
  let signed = 0n;
  const signers = new Set<string>();
  for (const s of signatures) {
    assert.ok(ml_dsa65.verify(hex(s.signature), new TextEncoder().encode(message), hex(s.public_key)), `${String(s.validator)}'s signature verifies`);
    assert.ok(!signers.has(String(s.public_key)), 'one signature per key');
    signers.add(String(s.public_key));
    signed += BigInt(Number(s.power));
  }
  const total = validators.reduce((n, v) => n + BigInt(v.power), 0n);
  assert.equal(BigInt(Number(header.signed_power)), signed);
  assert.equal(BigInt(Number(header.total_power)), total);
  assert.ok(3n * signed > 2n * total, 'more than 2/3 of the power signed');
  const keys = validators.map((v) => v.public_key);
  assert.deepEqual(keys, [...keys].sort(), 'validators ascending by public key');
  assert.equal(validators.length, 2);
  const valset = ibcValsetValue(validators.map((v) => ({ public_key: v.public_key, power: BigInt(v.power) })));
  assert.ok(verifyStateProof(hex(header.state_root), new TextEncoder().encode('ibc/valset'), new TextEncoder().encode(valset), header.validators_proof), 'validators proven under state_root');
}

test('two devnets run side by side, each with its own chain id', async () => {
  for (const [net, id] of [[a, A_ID], [b, B_ID]] as const) {
    for (const rpc of net.rpcUrls) assert.equal((await getJson(`${rpc}/api/v1/status`)).body.chain_id, id);
  }
});

test('each chain serves commit headers at the interval, signed by more than 2/3 of its power and proven against the block they name', async () => {
  for (const [net, id] of [[a, A_ID], [b, B_ID]] as const) {
    const header = await headerAtLeast(net.rpcUrls[0]!, INTERVAL);
    assert.equal(Number(header.height) % INTERVAL, 0, 'at a multiple of the interval (no packet yet)');
    await checkHeader(net.rpcUrls[0]!, id, header);
    // Every validator serves the same header (both signed it), and so does the gateway.
    const other = await getJson(`${net.rpcUrls[1]}/api/v1/ibc/header/${String(header.height)}`);
    assert.equal(other.status, 200);
    await checkHeader(net.rpcUrls[1]!, id, other.body);
    assert.equal(other.body.block_hash, header.block_hash);
    assert.equal((await getJson(`${net.gatewayUrl}/api/v1/ibc/header/${String(header.height)}`)).status, 200);
    assert.equal((await getJson(`${net.rpcUrls[0]}/api/v1/ibc/header/${Number(header.height) + 1}`)).status, 404, 'no header between intervals');
  }
});

test("a state proof at an old height verifies under that block's root", async () => {
  const first = await headerAtLeast(b.rpcUrls[0]!, INTERVAL);
  const old = Number(first.height);
  await headerAtLeast(b.rpcUrls[0]!, old + INTERVAL);
  const proof = await getJson(`${b.rpcUrls[0]}/api/v1/state/proof?key=ibc/valset&height=${old}`);
  assert.equal(proof.status, 200);
  assert.equal(proof.body.height, old);
  assert.equal(proof.body.state_root, first.state_root);
  assert.equal(proof.body.exists, true);
  assert.ok(verifyStateProof(hex(first.state_root), new TextEncoder().encode('ibc/valset'), hex(proof.body.value_hex), proof.body.proof));
});

test('the test vector is the same on both chains', async () => {
  const va = await getJson(`${a.rpcUrls[0]}/api/v1/ibc/pq/test-vector`);
  const vb = await getJson(`${b.rpcUrls[1]}/api/v1/ibc/pq/test-vector`);
  assert.equal(va.status, 200);
  assert.deepEqual(va.body, vb.body);
  assert.ok(ml_dsa65.verify(hex(va.body.signature), new TextEncoder().encode(String(va.body.message)), hex(va.body.public_key)));
});

test('a restarted validator still serves the headers it served, and the chain goes on making them', async () => {
  const header = await headerAtLeast(b.rpcUrls[1]!, INTERVAL);
  await b.stopValidator(1);
  await b.startValidator(1);
  const again = await getJson(`${b.rpcUrls[1]}/api/v1/ibc/header/${String(header.height)}`);
  assert.equal(again.status, 200);
  assert.deepEqual(again.body, header);
  await checkHeader(b.rpcUrls[1]!, B_ID, await headerAtLeast(b.rpcUrls[1]!, Number(header.height) + INTERVAL));
});

// ---------------------------------------------------------------------------------------------
// The plugin on A against a synthetic counterparty

test('operator-only and v4-only at the gateway; a client of a synthetic chain and a proven packet; a forged one fails in the block', async () => {
  const Z = 'ibc-z';
  const CH = 'ch-z';
  const key = a.validatorKey(0);
  const operator: Wallet = { keys: key.keys, publicKeyHex: toHex(key.keys.publicKey), address: key.file.address };
  const alice = labelledWallet('it-ibc-alice');
  await funded(a, alice);

  const open = { channel: CH, port: 'transfer', counterparty_chain: Z, allowed_denoms: ['ucoin', 'uatom'] };
  assert.equal((await postJson(`${a.gatewayUrl}/api/v1/ibc/channel/open`, op(a, alice, 'ibc_channel_open', open))).status, 403);
  assert.equal((await postJson(`${a.gatewayUrl}/api/v1/ibc/channel/open`, op(a, operator, 'ibc_channel_open', open, 'v2'))).status, 401);
  await confirmed(a, '/api/v1/ibc/channel/open', op(a, operator, 'ibc_channel_open', open));
  assert.equal((await channel(a, CH)).state, 'open');

  const set = ibcSigners([10, 10, 10]);
  const fields = { sender: 'cosmos1sender', receiver: alice.address, denom: 'uatom', amount: 77, memo: '' };
  const value = commitmentValue(10_000, transferText({ ...fields, amount: 77n, channel: CH }));
  const h = await counterpartyHeader({ chainId: Z, height: 10, validators: set, records: { [ibcCommitmentKey(CH, 1)]: value } });
  await confirmed(a, '/api/v1/ibc/client/update', op(a, operator, 'ibc_client_update', { header: h.header }));
  const client = await getJson(`${a.gatewayUrl}/api/v1/ibc/client/${Z}`);
  assert.equal(client.status, 200, JSON.stringify(client.body));
  assert.deepEqual(client.body.heights, [10]);
  assert.equal((await getJson(`${a.gatewayUrl}/api/v1/ibc/client/ibc-y`)).status, 404);

  const proof = (await h.prove(ibcCommitmentKey(CH, 1))).proof;
  const recv = { packet_id: `${Z}/${CH}/1`, ...fields, timeout_height: 10_000, proof_height: 10, proof };
  // A proposer that skips admission cannot credit a forged amount.
  await failsInBlock(a, op(a, operator, 'ibc_recv', { ...recv, amount: 7_700 }), /proof does not prove/, 'ibc_recv');
  await confirmed(a, '/api/v1/ibc/recv', op(a, operator, 'ibc_recv', recv));
  assert.equal(await voucher(a, alice.address, voucherDenom(`transfer/${CH}/uatom`)), 77);

  await confirmed(a, '/api/v1/ibc/transfer', op(a, alice, 'ibc_transfer', { channel: CH, dest_chain: Z, receiver: 'cosmos1bob', denom: 'ucoin', amount: 1234 }));
  assert.equal(await balance(a, `chain:ibc.escrow.${CH}`), 1234);
  const packets = await getJson(`${a.gatewayUrl}/api/v1/ibc/packets?direction=out&channel=${CH}`);
  assert.equal(packets.status, 200, JSON.stringify(packets.body));
  assert.deepEqual((packets.body.packets as Array<Record<string, unknown>>).map((p) => [p.status, p.amount, p.amount_human]), [['locked', 1234, '0.001234 COIN']]);
  await sameRootEverywhere(a);
});

// ---------------------------------------------------------------------------------------------
// The shipped relayer between A and B (§70)

let relayer: ChildProcess | undefined;
let relayerLines: string[] = [];

/** Starts `chain relayer` as an operator would; resolves once it printed `relayer ready`. */
async function startRelayer(): Promise<void> {
  relayerLines = [];
  const child = spawn(process.execPath, [resolve('dist/cli/main.js'), 'relayer', '--a', a.rpcUrls[0]!, '--b', b.rpcUrls[0]!, '--key', relayerKeyFile, '--interval-ms', '200'], { stdio: ['ignore', 'pipe', 'pipe'] });
  relayer = child;
  let partial = '';
  child.stdout.on('data', (chunk: Buffer) => {
    const text = partial + chunk.toString('utf8');
    const lines = text.split('\n');
    partial = lines.pop() ?? '';
    relayerLines.push(...lines);
  });
  child.stderr.on('data', (chunk: Buffer) => relayerLines.push(chunk.toString('utf8')));
  await relayerLine(/relayer ready/, 90_000);
}

function relayerLine(re: RegExp, timeoutMs = 60_000, from = 0): Promise<string> {
  return until(`a relayer line matching ${re} (last lines: ${relayerLines.slice(-5).join(' | ')})`, async () => {
    if (relayer && relayer.exitCode !== null) throw new Error(`the relayer exited ${relayer.exitCode}: ${relayerLines.slice(-10).join('\n')}`);
    return relayerLines.slice(from).find((l) => re.test(l));
  }, timeoutMs);
}

async function stopRelayer(signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
  const child = relayer;
  relayer = undefined;
  if (!child || child.exitCode !== null) return child?.exitCode ?? null;
  const exited = new Promise<number | null>((res) => child.once('exit', (code) => res(code)));
  child.kill(signal);
  return exited;
}

const alice = labelledWallet('it-ibc-relay-alice');
const bob = labelledWallet('it-ibc-relay-bob');
const A_ON_B = voucherDenom('transfer/ch-1/ucoin'); // A's coin on B, and B's coin on A: same channel id, same native denom
const outId = (net: TestDevnet, ch: string, seq: number): string => `${chainIdOf(net)}/${ch}/${seq}`;

test('operators open channels on both chains; the relayer creates a client of each chain on the other', async () => {
  await Promise.all([funded(a, relayerWallet), funded(b, relayerWallet), funded(a, alice), funded(b, bob)]);
  for (const [net, other] of [[a, B_ID], [b, A_ID]] as const) {
    await confirmed(net, '/api/v1/ibc/channel/open', op(net, relayerWallet, 'ibc_channel_open', { channel: 'ch-1', port: 'transfer', counterparty_chain: other, allowed_denoms: ['ucoin'] }));
    // ch-2: B takes only uatom, so A's coin sent on it is refused at B and must come back by timeout.
    await confirmed(net, '/api/v1/ibc/channel/open', op(net, relayerWallet, 'ibc_channel_open', { channel: 'ch-2', port: 'transfer', counterparty_chain: other, allowed_denoms: [net === a ? 'ucoin' : 'uatom'] }));
  }
  await startRelayer();
  const onA = await getJson(`${a.gatewayUrl}/api/v1/ibc/client/${B_ID}`);
  const onB = await getJson(`${b.gatewayUrl}/api/v1/ibc/client/${A_ID}`);
  assert.equal(onA.status, 200, JSON.stringify(onA.body));
  assert.equal(onB.status, 200, JSON.stringify(onB.body));
  assert.equal((onA.body.validators as unknown[]).length, 2);
});

test('A → B: exact debit into escrow, a voucher on B, committed and the escrow burned on A', async () => {
  const before = await balance(a, alice.address);
  const tx = await confirmed(a, '/api/v1/ibc/transfer', op(a, alice, 'ibc_transfer', { channel: 'ch-1', dest_chain: B_ID, receiver: bob.address, denom: 'ucoin', amount: 5000 }));
  assert.equal(await balance(a, alice.address), before - 5000 - Number(tx.fee), 'the amount and the fee, to the ucoin');
  assert.equal(await balance(a, 'chain:ibc.escrow.ch-1'), 5000);
  const id = outId(a, 'ch-1', 1);
  await settled(a, id, 'committed');
  assert.equal(await voucher(b, bob.address, A_ON_B), 5000);
  const inbound = await packet(b, id, 'in');
  assert.equal(inbound?.status, 'received');
  assert.equal(inbound?.credited_denom, A_ON_B);
  assert.equal(await balance(a, 'chain:ibc.escrow.ch-1'), 0, 'the escrow is burned at the ack');
  assert.equal((await channel(a, 'ch-1')).outstanding, 5000);
  assert.equal(await supply(b, 'transfer/ch-1/ucoin'), 5000);
});

test('redeem back to A credits the native coin; B\'s own coin goes to A as a voucher; outstanding equals the other side\'s supply', async () => {
  const aliceBefore = await balance(a, alice.address);
  await confirmed(b, '/api/v1/ibc/redeem', op(b, bob, 'ibc_redeem', { channel: 'ch-1', dest_chain: A_ID, receiver: alice.address, denom: A_ON_B, amount: 2000 }));
  await settled(b, outId(b, 'ch-1', 1), 'committed');
  assert.equal(await balance(a, alice.address), aliceBefore + 2000);
  assert.equal(await voucher(b, bob.address, A_ON_B), 3000);

  const bobBefore = await balance(b, bob.address);
  const tx = await confirmed(b, '/api/v1/ibc/transfer', op(b, bob, 'ibc_transfer', { channel: 'ch-1', dest_chain: A_ID, receiver: alice.address, denom: 'ucoin', amount: 700 }));
  assert.equal(await balance(b, bob.address), bobBefore - 700 - Number(tx.fee));
  await settled(b, outId(b, 'ch-1', 2), 'committed');
  assert.equal(await voucher(a, alice.address, A_ON_B), 700);

  assert.equal((await channel(a, 'ch-1')).outstanding, await supply(b, 'transfer/ch-1/ucoin'));
  assert.equal((await channel(b, 'ch-1')).outstanding, await supply(a, 'transfer/ch-1/ucoin'));
  assert.equal((await channel(a, 'ch-1')).outstanding, 3000);
  assert.equal((await channel(b, 'ch-1')).outstanding, 700);
});

test('a packet B will not take is refunded to the ucoin after timeout_height through a proven timeout, never credited', async () => {
  const before = await balance(a, alice.address);
  const from = relayerLines.length;
  const tx = await confirmed(a, '/api/v1/ibc/transfer', op(a, alice, 'ibc_transfer', { channel: 'ch-2', dest_chain: B_ID, receiver: bob.address, denom: 'ucoin', amount: 900 }));
  const id = outId(a, 'ch-2', 1);
  await relayerLine(/ibc_recv refused/, 60_000, from);
  const p = await settled(a, id, 'timed_out', 120_000);
  assert.equal(await balance(a, alice.address), before - Number(tx.fee), 'refunded to the ucoin: only the fee is gone');
  assert.equal(await balance(a, 'chain:ibc.escrow.ch-2'), 0);
  assert.equal(await packet(b, id, 'in'), undefined, 'never received on B');
  assert.equal(await supply(b, 'transfer/ch-2/ucoin'), 0);
  // The refund came after B's client of A reached the timeout, proven on A.
  const clientOnB = await getJson(`${b.gatewayUrl}/api/v1/ibc/client/${A_ID}`);
  assert.ok(Number(clientOnB.body.latest_height) >= Number(p.timeout_height));
});

test('a relayer killed with SIGKILL mid-flight and restarted leaves every packet committed or timed out, nothing credited twice', async () => {
  const bobVoucher = await voucher(b, bob.address, A_ON_B);
  const aliceVoucher = await voucher(a, alice.address, A_ON_B);
  const from = relayerLines.length;
  const sent: Array<[TestDevnet, string]> = [];
  for (let i = 0; i < 3; i++) {
    await confirmed(a, '/api/v1/ibc/transfer', op(a, alice, 'ibc_transfer', { channel: 'ch-1', dest_chain: B_ID, receiver: bob.address, denom: 'ucoin', amount: 100 + i }));
    sent.push([a, outId(a, 'ch-1', 2 + i)]);
  }
  for (let i = 0; i < 2; i++) {
    await confirmed(b, '/api/v1/ibc/transfer', op(b, bob, 'ibc_transfer', { channel: 'ch-1', dest_chain: A_ID, receiver: alice.address, denom: 'ucoin', amount: 10 + i }));
    sent.push([b, outId(b, 'ch-1', 3 + i)]);
  }
  // Killed right after a submission, with the operation possibly still in a pool.
  await relayerLine(/submitted ibc_(recv|client_update)/, 60_000, from);
  assert.equal(await stopRelayer('SIGKILL'), null);
  await startRelayer();
  for (const [net, id] of sent) await settled(net, id, 'committed');
  assert.equal(await voucher(b, bob.address, A_ON_B), bobVoucher + 100 + 101 + 102, 'each packet credited once on B');
  assert.equal(await voucher(a, alice.address, A_ON_B), aliceVoucher + 10 + 11, 'each packet credited once on A');
  for (const net of [a, b]) {
    const locked = await getJson(`${net.gatewayUrl}/api/v1/ibc/packets?direction=out&status=locked&channel=ch-1`);
    assert.equal(locked.body.total, 0);
    const received = await getJson(`${net.gatewayUrl}/api/v1/ibc/packets?direction=in&limit=100`);
    const ids = (received.body.packets as Array<Record<string, unknown>>).map((p) => p.id);
    assert.equal(new Set(ids).size, ids.length, 'no packet received twice');
  }
  assert.equal((await channel(a, 'ch-1')).outstanding, await supply(b, 'transfer/ch-1/ucoin'));
  assert.equal((await channel(b, 'ch-1')).outstanding, await supply(a, 'transfer/ch-1/ucoin'));
  assert.equal(await stopRelayer('SIGTERM'), 0, 'SIGTERM stops it cleanly');
  await sameRootEverywhere(a);
  await sameRootEverywhere(b);
});
