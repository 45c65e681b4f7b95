import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeChain, signTransfer, statusOf, wallet } from '../../test/helpers/chain-fixture.js';
import { NOTE_ADDRESS, eventRecorder } from '../../test/helpers/event-recorder.js';
import { kernelRoutes } from '../../test/helpers/kernel-routes.js';
import { isChainError } from '../errors.js';
import { verifyStateProof } from '../light-client/index.js';
import { parseHex } from '../codec/hex.js';
import { utf8Bytes } from '../codec/utf8.js';

const alice = wallet(23);

test('GET /api/v1/blocks/:height/events lists the block\'s events; heights are refused exactly as /blocks/:height refuses them', async () => {
  const f = await makeChain({ plugins: [eventRecorder()], accounts: [{ address: alice.address, balance: 1_000_000n }] });
  const get = kernelRoutes(f);
  const ok = (await f.chain.admit(signTransfer(alice, { to: NOTE_ADDRESS, value: 0, nonce: 1, data: 'hi' }), 0)).tx_hash;
  await f.block();
  const answer = await get('/api/v1/blocks/:height/events', { height: '1' });
  assert.deepEqual(answer, {
    height: 1,
    events: [
      { height: 1, index: 0, tx_hash: null, phase: 'begin_block', type: 'block_opened', data: { height: 1 } },
      { height: 1, index: 1, tx_hash: ok, phase: 'tx', type: 'noted', data: { from: alice.address, note: 'hi' } },
      { height: 1, index: 2, tx_hash: null, phase: 'end_block', type: 'block_closed', data: { height: 1 } },
    ],
    total: 3,
  });
  for (const height of ['2', '0', 'x', '1e3', '-1']) {
    const events = await statusOf(get('/api/v1/blocks/:height/events', { height }));
    assert.equal(events, await statusOf(get('/api/v1/blocks/:height', { height })), `height "${height}"`);
    assert.equal(events, height === '2' ? 404 : 400, `height "${height}"`);
  }
  await assert.rejects(get('/api/v1/blocks/:height/events', { height: '2' }), /block 2 not found \(latest is 1\)/);
});

test('GET /api/v1/blocks/latest, Gateway only in part 1, is a 404 saying so on a node, not a 400 for the height "latest"', async () => {
  const f = await makeChain({ accounts: [] });
  const get = kernelRoutes(f);
  assert.equal(await statusOf(get('/api/v1/blocks/latest', {})), 404);
  await assert.rejects(get('/api/v1/blocks/latest', {}), /served by the gateway only/);
});

test('GET /api/v1/transactions/:hash carries the transaction\'s own events: none while pending or after failing', async () => {
  const f = await makeChain({ plugins: [eventRecorder()], accounts: [{ address: alice.address, balance: 1_000_000n }] });
  const get = kernelRoutes(f);
  const ok = (await f.chain.admit(signTransfer(alice, { to: NOTE_ADDRESS, value: 0, nonce: 1, data: 'hi' }), 0)).tx_hash;
  const failed = (await f.chain.admit(signTransfer(alice, { to: NOTE_ADDRESS, value: 0, nonce: 2, data: 'fail' }), 0)).tx_hash;
  const pending = await get('/api/v1/transactions/:hash', { hash: ok });
  assert.equal(pending.status, 'pending');
  assert.deepEqual(pending.events, []);
  await f.block();
  const confirmed = await get('/api/v1/transactions/:hash', { hash: ok });
  assert.equal(confirmed.status, 'confirmed');
  assert.deepEqual(confirmed.events, [{ height: 1, index: 1, tx_hash: ok, phase: 'tx', type: 'noted', data: { from: alice.address, note: 'hi' } }]);
  const { events: _events, ...rest } = confirmed;
  const listed = (await get('/api/v1/blocks/:height/transactions', { height: '1' })).transactions as Array<Record<string, unknown>>;
  assert.deepEqual(rest, listed[0], 'every other field as the list shows it');
  const refused = await get('/api/v1/transactions/:hash', { hash: failed });
  assert.equal(refused.status, 'failed');
  assert.deepEqual(refused.events, []);
});

test('the gas estimate lists the price of state growth, and a transaction that paid it shows storage_fee (issue 29 item 8)', async () => {
  const f = await makeChain({ plugins: [eventRecorder()], accounts: [{ address: alice.address, balance: 1_000_000n }], genesisParams: { storage_free_bytes: '100', storage_byte_price: '7' } });
  const get = kernelRoutes(f);
  const estimate = await get('/api/v1/gas/estimate', {});
  assert.deepEqual([estimate.storage_byte_price, estimate.storage_byte_price_human, estimate.storage_free_bytes], [7n, '0.000007 COIN', 100n]);
  const small = (await f.chain.admit(signTransfer(alice, { to: NOTE_ADDRESS, value: 0, nonce: 1, data: 'hi' }), 0)).tx_hash;
  await f.block();
  const big = (await f.chain.admit(signTransfer(alice, { to: NOTE_ADDRESS, value: 0, nonce: 2, data: 'x'.repeat(300) }), 0)).tx_hash;
  await f.block();
  const within = await get('/api/v1/transactions/:hash', { hash: small });
  assert.equal('storage_fee' in within, false, 'absent when none was charged');
  const paid = await get('/api/v1/transactions/:hash', { hash: big });
  assert.equal(paid.status, 'confirmed');
  // The note record grew from 'hi' to 300 characters: 298 net new bytes, 198 beyond the allowance.
  assert.deepEqual([paid.storage_fee, paid.storage_fee_human], [198n * 7n, '0.001386 COIN']);
});

test('GET /api/v1/state/proof?height= proves a key against that block\'s state root: the old value at the old height, the new at the new (decisions.md §66)', async () => {
  const f = await makeChain({ plugins: [eventRecorder()], accounts: [{ address: alice.address, balance: 1_000_000n }] });
  const get = kernelRoutes(f);
  const key = `acct/${alice.address}`;
  await f.chain.admit(signTransfer(alice, { to: NOTE_ADDRESS, value: 0, nonce: 1, data: 'one' }), 0);
  await f.block();
  await f.chain.admit(signTransfer(alice, { to: NOTE_ADDRESS, value: 0, nonce: 2, data: 'two' }), 0);
  await f.block();
  const root = async (h: number): Promise<string> => (await f.chain.queries.getBlock(h))!.state_root;
  const proofs = await Promise.all(['height=1', 'height=2', ''].map((q) => get('/api/v1/state/proof', {}, `key=${encodeURIComponent(key)}&${q}`)));
  assert.deepEqual(proofs.map((p) => [p.height, p.state_root]), [[1, await root(1)], [2, await root(2)], [2, await root(2)]]);
  assert.deepEqual(proofs[1], proofs[2], 'no height is the head');
  assert.notEqual(proofs[0]!.value_hex, proofs[1]!.value_hex, 'the account changed between the heights (nonce, fee)');
  for (const p of proofs) {
    assert.equal(p.exists, true);
    const value = Buffer.from(p.value_hex as string, 'hex');
    assert.ok(verifyStateProof(parseHex(p.state_root as string)!, utf8Bytes(key), value, p.proof), `height ${String(p.height)} verifies`);
  }
  // Each value proves only at its own height.
  assert.equal(verifyStateProof(parseHex(proofs[1]!.state_root as string)!, utf8Bytes(key), Buffer.from(proofs[0]!.value_hex as string, 'hex'), proofs[0]!.proof), false);
  // Absence at a past height verifies too.
  const absent = await get('/api/v1/state/proof', {}, 'key=acct%2Fnobody&height=1');
  assert.deepEqual([absent.exists, absent.value_hex], [false, null]);
  assert.ok(verifyStateProof(parseHex(absent.state_root as string)!, utf8Bytes('acct/nobody'), null, absent.proof));
  await assert.rejects(get('/api/v1/state/proof', {}, `key=${key}&height=3`), (e) => isChainError(e) && e.status === 404 && /block 3 not found \(latest is 2\)/.test(e.message));
  for (const height of ['0', '-1', 'x', '1.5', '1e3', '99999999999999999999']) {
    await assert.rejects(get('/api/v1/state/proof', {}, `key=${key}&height=${encodeURIComponent(height)}`), (e) => isChainError(e) && e.status === 400 && e.message.includes(`height must be a positive integer, got "${height}"`), `height "${height}"`);
  }
  await assert.rejects(get('/api/v1/state/proof', {}, `key=${key}&height=1&height=2`), (e) => isChainError(e) && e.status === 400 && /height must be a positive integer/.test(e.message));
});

test('a node\'s /state/root fills its own shard\'s entry only; /shards carries its validators, their hash and cross_shard totals', async () => {
  const f = await makeChain({ shard: { id: 0, count: 2 } });
  const get = kernelRoutes(f);
  const root = await get('/api/v1/state/root', {});
  assert.deepEqual(root.shard_roots, [f.chain.head.state_root, null]);
  assert.deepEqual(root.shard_heights, [f.chain.head.height, null]);
  assert.equal(root.global_root, null);
  const shards = (await get('/api/v1/shards', {})).shards as Array<Record<string, unknown>>;
  assert.equal(shards.length, 1);
  assert.equal((shards[0]!.validators as unknown[]).length, 1);
  assert.match(shards[0]!.validators_hash as string, /^0x[0-9a-f]{64}$/);
  assert.deepEqual(shards[0]!.cross_shard, { locked: 0n, locked_human: '0 COIN', sent: 0n, sent_human: '0 COIN', refunded: 0n, refunded_human: '0 COIN', received: 0n, received_human: '0 COIN' });
});
