import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StateOverlay, type StateSource } from './overlay.js';
import { accountsReader, accountsWriter } from './accounts.js';

const empty: StateSource = { get: async () => undefined, scan: async () => [] };
const decoder = new TextDecoder();
const keyHex = 'ab'.repeat(1952);

test('a bound key is stored once as raw bytes, beside the account record, and read back as hex', async () => {
  const block = new StateOverlay(empty);
  const accounts = accountsWriter(block);
  assert.equal(await accounts.exists('chain:a'), false);
  await accounts.bindKey('chain:a', keyHex);
  assert.equal(await accounts.exists('chain:a'), true, 'a bound key alone makes the account exist');
  await accounts.credit('chain:a', 500n);
  const changes = new Map(block.changes());
  assert.deepEqual([...changes.keys()], ['acct/chain:a', 'acctkey/chain:a']);
  assert.equal(changes.get('acctkey/chain:a')!.length, 1952);
  assert.equal(decoder.decode(changes.get('acct/chain:a')!), '{"balance":{"$big":"500"},"nonce":{"$big":"0"},"tx_count":0}');
  assert.deepEqual(await accountsReader(block).get('chain:a'), { balance: 500n, nonce: 0n, tx_count: 0, public_key: keyHex });
  assert.deepEqual(await accountsReader(block).get('chain:b'), { balance: 0n, nonce: 0n, tx_count: 0 });
});

test('balance changes of a key-bound account write the small record only', async () => {
  const committed = new StateOverlay(empty);
  await accountsWriter(committed).bindKey('chain:a', keyHex);
  await accountsWriter(committed).credit('chain:a', 10n);
  const tx = committed.child();
  const accounts = accountsWriter(tx);
  const sender = await accounts.get('chain:a');
  // The executor's pattern: the record as read (public_key included) spread into put.
  accounts.put('chain:a', { ...sender, nonce: 1n, tx_count: 1 });
  await accounts.debit('chain:a', 3n);
  assert.deepEqual(tx.changes().map(([k]) => k), ['acct/chain:a']);
  assert.deepEqual(await accounts.get('chain:a'), { balance: 7n, nonce: 1n, tx_count: 1, public_key: keyHex });
  await assert.rejects(accounts.debit('chain:a', 8n), /insufficient balance: chain:a has 7 ucoin, needs 8/);
});

test('a key that is not lowercase hex bytes is refused', async () => {
  const accounts = accountsWriter(new StateOverlay(empty));
  await assert.rejects(accounts.bindKey('chain:a', 'AB'), /lowercase hex/);
  await assert.rejects(accounts.bindKey('chain:a', 'abc'), /lowercase hex/);
});
