import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeChain, signTransfer, wallet, VALIDATOR_KEY } from '../../test/helpers/chain-fixture.js';
import { nobleProvider } from '../crypto/noble-provider.js';
import { toHex, parseHex } from '../codec/hex.js';
import { MemoryStore } from '../store/level-store.js';
import { checkSnapshot, entriesHash, signSnapshot, type StateSnapshot } from './snapshot.js';
import { verifyCheckpoint } from './snapshot-routes.js';
import { checkpointMessage } from './snapshot.js';

const alice = wallet(31);
const trusted = [{ address: 'chain:v0.node', public_key: toHex(VALIDATOR_KEY.publicKey) }];
const signer = { address: 'chain:v0.node', keys: VALIDATOR_KEY };

async function snapshotOfBusyChain(): Promise<StateSnapshot> {
  const f = await makeChain({ accounts: [{ address: alice.address, balance: 10_000_000n }] });
  await f.chain.admit(signTransfer(alice, { to: wallet(32).address, value: 77, nonce: 1 }), 0);
  await f.block();
  await f.block();
  const entries = (await f.chain.stateEntries()).map(([k, v]) => [k, toHex(v)] as [string, string]);
  return signSnapshot({ chain_id: 'test-chain', block: (await f.chain.store.getBlock(2))!, entries }, signer, nobleProvider);
}

test('a signed snapshot verifies and a fresh node installs it at the same root', async () => {
  const snap = await snapshotOfBusyChain();
  const checked = checkSnapshot(JSON.parse(JSON.stringify(snap)), 'test-chain', trusted, nobleProvider);
  assert.ok(checked.ok, checked.ok ? '' : checked.reason);
  // A fresh store (no genesis yet) takes the snapshot and opens at its height.
  const { ChainStore } = await import('../store/chain-store.js');
  const kv = new MemoryStore();
  const f2 = await makeChainWithoutGenesis(kv);
  await f2.installSnapshot(checked.block, snap.entries.map(([k, v]) => [k, parseHex(v)!] as const));
  const store = new ChainStore(kv);
  const meta = await store.load();
  assert.equal(meta.height, 2);
  assert.equal(meta.state_root, snap.state_root);
  // Block 2 came without its transactions or certificate: peers are served from block 3 on.
  assert.equal(store.firstFullHeight, 3);
  assert.equal(f2.store.firstFullHeight, 3);
});

test('a tampered snapshot is refused', async () => {
  const snap = await snapshotOfBusyChain();
  const entries = snap.entries.map(([k, v]) => [k, v] as [string, string]);
  const idx = entries.findIndex(([k]) => k === `acct/${alice.address}`);
  entries[idx] = [entries[idx]![0], toHex(new TextEncoder().encode('{"balance":{"$big":"999999999999"},"nonce":{"$big":"1"},"tx_count":1}'))];
  const altered = { ...snap, entries };
  let r = checkSnapshot(altered, 'test-chain', trusted, nobleProvider);
  assert.equal(r.ok, false);
  assert.match((r as { reason: string }).reason, /entries_hash/);
  r = checkSnapshot({ ...altered, entries_hash: entriesHash(entries) }, 'test-chain', trusted, nobleProvider);
  assert.match((r as { reason: string }).reason, /signature does not verify/);
  r = checkSnapshot(snap, 'test-chain', [{ address: 'chain:other.node', public_key: snap.public_key }], nobleProvider);
  assert.match((r as { reason: string }).reason, /not a trusted validator/);
  // The signature covers the block's hash, not its text: a text that is no block, or no text at
  // all, is caught by decoding it.
  r = checkSnapshot({ ...snap, block: 42 }, 'test-chain', trusted, nobleProvider);
  assert.match((r as { reason: string }).reason, /snapshot block is malformed/);
  r = checkSnapshot({ ...snap, block: '{"header":' }, 'test-chain', trusted, nobleProvider);
  assert.match((r as { reason: string }).reason, /snapshot block is malformed/);
  // Even a trusted signer cannot make a node accept entries that do not hash to the block's root.
  const malicious = signSnapshot({ chain_id: 'test-chain', block: await decodeBlock(snap), entries }, signer, nobleProvider);
  const ok = checkSnapshot(malicious, 'test-chain', trusted, nobleProvider);
  assert.ok(ok.ok);
  const f2 = await makeChainWithoutGenesis(new MemoryStore());
  await assert.rejects(f2.installSnapshot((ok as { block: import('../chain/types.js').BlockRecord }).block, entries.map(([k, v]) => [k, parseHex(v)!] as const)), /hash to state root/);
});

test('checkpoint signatures verify and bind height, hash and root', () => {
  const c = { height: 100, block_hash: '0x' + '11'.repeat(32), state_root: '0x' + '22'.repeat(32), public_key: toHex(VALIDATOR_KEY.publicKey) };
  const signature = toHex(nobleProvider.sign(checkpointMessage('test-chain', c.height, c.block_hash, c.state_root), VALIDATOR_KEY.secretKey));
  assert.ok(verifyCheckpoint({ ...c, signature }, 'test-chain', nobleProvider));
  assert.equal(verifyCheckpoint({ ...c, height: 200, signature }, 'test-chain', nobleProvider), false);
  assert.equal(verifyCheckpoint({ ...c, signature }, 'other-chain', nobleProvider), false);
});

async function decodeBlock(snap: StateSnapshot): Promise<import('../chain/types.js').BlockRecord> {
  const { jsonRecord } = await import('../state/record-codec.js');
  return jsonRecord<import('../chain/types.js').BlockRecord>().decode(new TextEncoder().encode(snap.block));
}

/** A Chain over an empty store, before genesis: the state a node is in when it bootstraps from a snapshot. */
async function makeChainWithoutGenesis(kv: MemoryStore): Promise<import('../chain/chain.js').Chain> {
  const pino = (await import('pino')).default;
  const { Registry } = await import('prom-client');
  const { createHooks } = await import('../hooks.js');
  const { PluginHost } = await import('../host/host.js');
  const { ParamRegistry } = await import('../state/params.js');
  const { ChainStore } = await import('../store/chain-store.js');
  const { Chain } = await import('../chain/chain.js');
  const { CachingVerifier } = await import('../crypto/verifier.js');
  const { validateConfig } = await import('../config/load.js');
  const config = validateConfig({ network: 'unit', env: 'testnet' });
  const hooks = createHooks();
  const params = new ParamRegistry();
  const log = pino({ level: 'silent' });
  const host = new PluginHost<unknown>({ config, hooks, catalogue: new Map(), params, log, metrics: new Registry(), services: {}, profile: 'node' });
  return new Chain({ store: new ChainStore(kv), hooks, host, params, verifier: new CachingVerifier(nobleProvider), log, env: 'testnet', chainId: 'test-chain', shard: 0, requireTxV3: false, mempool: { maxTxs: 10, maxPerSender: 10 }, paramOverrides: {} });
}
