import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ml_dsa65 } from '@noble/post-quantum/ml-dsa.js';
import { startTestDevnet, type TestDevnet } from '../helpers/devnet.js';
import { getJson } from '../helpers/node-process.js';
import { ibcValsetValue, verifyStateProof } from '../../kernel/light-client/index.js';

/**
 * decisions.md §63, §64, §66, §70 on two devnets side by side (2 validators each, their own chain
 * ids, folders and ports): each serves commit headers at the interval, and every header is
 * checked here as a counterparty would: the signatures with an independent ML-DSA-65 library over
 * the text rebuilt from the block it names, their power, and the validator set through its proof
 * under the block's state root with the kernel's light client.
 */
const INTERVAL = 4;
let a: TestDevnet;
let b: TestDevnet;

before(async () => {
  a = await startTestDevnet({ validators: 2, chainId: 'ibc-a', genesisParams: { ibc_header_interval: String(INTERVAL) } });
  b = await startTestDevnet({ validators: 2, chainId: 'ibc-b', genesisParams: { ibc_header_interval: String(INTERVAL) } });
});

after(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
});

const hex = (s: unknown): Uint8Array => Uint8Array.from(Buffer.from(String(s).replace(/^0x/, ''), 'hex'));

async function headerAtLeast(rpc: string, height: number): Promise<Record<string, unknown>> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const r = await getJson(`${rpc}/api/v1/ibc/header/latest`);
    if (r.status === 200 && Number(r.body.height) >= height) return r.body;
    if (Date.now() > deadline) throw new Error(`no header at or above ${height} from ${rpc} (last answer ${r.status} ${JSON.stringify(r.body).slice(0, 200)})`);
    await new Promise((res) => setTimeout(res, 200));
  }
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
  for (const [net, id] of [[a, 'ibc-a'], [b, 'ibc-b']] as const) {
    for (const rpc of net.rpcUrls) assert.equal((await getJson(`${rpc}/api/v1/status`)).body.chain_id, id);
  }
});

test('each chain serves commit headers at the interval, signed by more than 2/3 of its power and proven against the block they name', async () => {
  for (const [net, id] of [[a, 'ibc-a'], [b, 'ibc-b']] as const) {
    const header = await headerAtLeast(net.rpcUrls[0]!, INTERVAL);
    assert.equal(Number(header.height) % INTERVAL, 0, 'at a multiple of the interval');
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

test('a state proof at an old height verifies under that block\'s root', async () => {
  const first = await headerAtLeast(a.rpcUrls[0]!, INTERVAL);
  const old = Number(first.height);
  await headerAtLeast(a.rpcUrls[0]!, old + INTERVAL);
  const proof = await getJson(`${a.rpcUrls[0]}/api/v1/state/proof?key=ibc/valset&height=${old}`);
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
  await checkHeader(b.rpcUrls[1]!, 'ibc-b', await headerAtLeast(b.rpcUrls[1]!, Number(header.height) + INTERVAL));
});
