import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeChain, signTransfer, wallet } from '../../test/helpers/chain-fixture.js';
import { NOTE_ADDRESS, eventRecorder } from '../../test/helpers/event-recorder.js';
import { sha3Hex0x } from '../crypto/hash.js';
import type { CommittedBlock, Evidence } from '../model/types.js';

const alice = wallet(21);
const bob = wallet(22);
const COIN = 1_000_000n;
const T0 = 1_800_000_000_000;

const note = (nonce: number, data: string): Record<string, unknown> => signTransfer(alice, { to: NOTE_ADDRESS, value: 0, nonce, data });

function offence(round: number): Evidence {
  return { hash: sha3Hex0x(`offence ${round}`), kind: 'duplicate-vote', validator: 'chain:v0.node', height: 1, round, raw: {} };
}

test('a block stores the events of every phase with it, in execution order; a failed transaction leaves none', async () => {
  const f = await makeChain({ plugins: [eventRecorder({ index: true })], accounts: [{ address: alice.address, balance: COIN }] });
  const ok = (await f.chain.admit(note(1, 'hello'), 0)).tx_hash;
  const failed = (await f.chain.admit(note(2, 'fail'), 0)).tx_hash;
  const transfer = (await f.chain.admit(signTransfer(alice, { to: bob.address, value: 5, nonce: 3 }), 0)).tx_hash;
  let committed: CommittedBlock | undefined;
  f.chain.on('committed', (c) => (committed = c));
  // Evidence is verified by validation; finalize alone executes what the proposal carries.
  await f.chain.finalize(await f.chain.propose(0, 'chain:v0.node', T0, [offence(0)]));

  const events = await f.chain.queries.getBlockEvents(1);
  assert.deepEqual(
    events.map((e) => [e.height, e.index, e.phase, e.type, e.tx_hash]),
    [
      [1, 0, 'begin_block', 'block_opened', null],
      [1, 1, 'tx', 'noted', ok],
      [1, 2, 'evidence', 'evidence', null],
      [1, 3, 'evidence', 'offence_seen', null],
      [1, 4, 'end_block', 'block_closed', null],
    ],
  );
  assert.deepEqual(events[1]!.data, { from: alice.address, note: 'hello' });
  assert.deepEqual(events, committed?.events, 'the committed hook sees what the store holds');
  assert.deepEqual(await f.chain.queries.getTxEvents(1, ok), [events[1]]);
  assert.deepEqual(await f.chain.queries.getTxEvents(1, failed), [], 'the failed note emitted before throwing; nothing of it is kept');
  assert.deepEqual(await f.chain.queries.getTxEvents(1, transfer), []);
  const failedReceipt = (await f.chain.queries.getTx(failed))!.receipt;
  assert.equal(failedReceipt.status, 'failed');
  assert.ok(!('events' in failedReceipt) && !('events' in (await f.chain.queries.getTx(ok))!.receipt), 'events are stored once, beside the block, not in receipts');
  assert.deepEqual(await f.chain.queries.getBlockEvents(2), [], 'a height not committed has no events');

  const index = f.chain.queries.pluginIndex('recorder');
  assert.deepEqual(await index.getRecord(`note/${ok}`), { from: alice.address, note: 'hello' });
  assert.equal(await index.get(`note/${failed}`), undefined, 'a failed transaction\'s index writes are dropped with its state writes');
  assert.equal(new TextDecoder().decode(await index.get('opened/1')), 'begin');

  await f.block();
  assert.deepEqual((await f.chain.queries.getBlockEvents(2)).map((e) => [e.index, e.type]), [[0, 'block_opened'], [1, 'block_closed']]);
  assert.equal(await index.get('opened/1'), undefined, 'an index delete staged in endBlock applies with block 2');
  assert.deepEqual((await index.scan('opened/')).map(([k]) => k), ['opened/2']);
});

test('index writes are node-local: two nodes that index differently agree on every state root', async () => {
  const roots = [];
  for (const indexing of [true, false]) {
    const f = await makeChain({ plugins: [eventRecorder({ index: indexing })], accounts: [{ address: alice.address, balance: COIN }] });
    await f.chain.admit(note(1, 'hello'), 0);
    const b1 = await f.block(T0);
    const b2 = await f.block(T0 + 1000);
    assert.equal((await f.chain.queries.pluginIndex('recorder').scan()).length > 0, indexing);
    roots.push([b1.state_root, b2.state_root]);
  }
  assert.deepEqual(roots[0], roots[1]);
});

test('emit refuses what the store could not hold or the socket could not carry, failing the transaction that emitted it', async () => {
  const f = await makeChain({ plugins: [eventRecorder()], accounts: [{ address: alice.address, balance: COIN }] });
  const float = (await f.chain.admit(note(1, 'float'), 0)).tx_hash;
  const badType = (await f.chain.admit(note(2, 'Bad-Type'), 0)).tx_hash;
  await f.block(T0);
  assert.match((await f.chain.queries.getTx(float))!.receipt.error ?? '', /event noted: data cannot be stored/);
  assert.match((await f.chain.queries.getTx(badType))!.receipt.error ?? '', /event type "Bad-Type" must be lower_snake_case/);
  assert.deepEqual((await f.chain.queries.getBlockEvents(1)).map((e) => e.phase), ['begin_block', 'end_block'], 'neither transaction left an event');
});
