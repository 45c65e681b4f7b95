import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeChain, signTransfer, wallet } from '../../test/helpers/chain-fixture.js';

const COIN = 1_000_000n;
/** Stored with the block as it is; the chain does not read it back in these tests. */
const CERTIFICATE = { bytes: new Uint8Array([1]), signers: ['chain:v0.node'] };

test('a submission arriving while the chain validates or stores a block is admitted after it, and the block is not held', async () => {
  const senders = [wallet(31), wallet(32)];
  const f = await makeChain({ accounts: senders.map((w) => ({ address: w.address, balance: 10n * COIN })) });
  await f.chain.admit(signTransfer(senders[0]!, { to: wallet(41).address, value: 5, nonce: 1 }), 0);
  const p = await f.chain.propose(0, 'chain:v0.node', 1_000_000);
  const order: string[] = [];
  const validating = f.chain.validate(p).then((reason) => order.push(`validated ${reason}`));
  const admitted = f.chain.admit(signTransfer(senders[1]!, { to: wallet(42).address, value: 7, nonce: 1 }), 0).then(() => order.push('admitted'));
  await Promise.all([validating, admitted]);
  assert.deepEqual(order, ['validated null', 'admitted']);
  const storing = f.chain.finalize(p).then(() => order.push('stored'));
  const second = f.chain.admit(signTransfer(senders[0]!, { to: wallet(41).address, value: 5, nonce: 2 }), 0).then(() => order.push('admitted again'));
  await Promise.all([storing, second]);
  assert.deepEqual(order.slice(2), ['stored', 'admitted again']);
  assert.equal(f.chain.gate.heldCount, 2);
  // Both waiting submissions are in the mempool for the next block.
  assert.equal(f.chain.mempool.size, 2);
  await f.close();
});

test('commitDecided validates, makes the commit, and stores as one block step; a block that does not fit gets no commit', async () => {
  const senders = [wallet(33), wallet(34)];
  const f = await makeChain({ accounts: senders.map((w) => ({ address: w.address, balance: 10n * COIN })) });
  await f.chain.admit(signTransfer(senders[0]!, { to: wallet(43).address, value: 5, nonce: 1 }), 0);
  const p = await f.chain.propose(0, 'chain:v0.node', 1_000_000);

  // A proposal whose header does not match its hash: refused, and the commit is never asked for.
  let asked = 0;
  const refused = await f.chain.commitDecided({ ...p, header: { ...p.header, tx_count: p.header.tx_count + 1 } }, async () => {
    asked++;
    return CERTIFICATE;
  });
  assert.deepEqual(refused, { reason: 'block hash does not match its header' });
  assert.equal(asked, 0);
  assert.equal(f.chain.head.height, 0);

  // Between validation and store (while the commit is being made), an arriving admission waits for the store.
  const order: string[] = [];
  let admitted: Promise<unknown> | undefined;
  // The height the chain had when an admission got through the gate: the store's, not before it
  // (a gate opened between making the commit and storing would let it in at height 0).
  let passedAtHeight: Promise<number> | undefined;
  const applied = await f.chain.commitDecided(p, async () => {
    admitted = f.chain.admit(signTransfer(senders[1]!, { to: wallet(44).address, value: 7, nonce: 1 }), 0).then(() => order.push('admitted'));
    passedAtHeight = f.chain.gate.passage().then(() => f.chain.head.height);
    await new Promise((resolve) => setImmediate(resolve));
    order.push('commit made');
    return CERTIFICATE;
  });
  order.push('stored');
  await admitted;
  assert.ok('record' in applied);
  assert.equal(applied.record.header.height, 1);
  assert.equal(f.chain.head.height, 1);
  assert.deepEqual(order, ['commit made', 'stored', 'admitted']);
  assert.equal(await passedAtHeight, 1);
  await f.close();
});
