import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeChain, signTransfer, wallet } from '../../test/helpers/chain-fixture.js';

const COIN = 1_000_000n;

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
