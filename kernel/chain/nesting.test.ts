import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeChain, refused, signTransfer, wallet } from '../../test/helpers/chain-fixture.js';
import { proposedBlockCodec } from '../replica/block-codec.js';
import { hashOfCanonical } from '../tx/hash.js';
import { MAX_TX_NESTING } from '../codec/depth.js';

/**
 * A transaction nested deeper than MAX_TX_NESTING never reaches the recursive canonical encoder:
 * refused at admission (400 naming the limit), and a block carrying one is invalid on every node.
 */
const COIN = 10n ** 12n;
const alice = wallet(31);
const bob = wallet(32);

function deep(levels: number): unknown {
  let v: unknown = 1;
  for (let i = 0; i < levels; i++) v = [v];
  return v;
}

test('admission refuses a transfer, an operation and a peer system transaction nested beyond the limit', async () => {
  const f = await makeChain({ accounts: [{ address: alice.address, balance: COIN }] });
  const body = { ...signTransfer(alice, { to: bob.address, value: 3, nonce: 1 }), memo: deep(100_000) };
  await refused(f.chain.admit(body, 0), 400, /nesting depth exceeds the limit of 64/);
  const text = JSON.stringify({ ...signTransfer(alice, { to: bob.address, value: 3, nonce: 1 }), memo: deep(MAX_TX_NESTING + 5) });
  await refused(f.chain.admit(JSON.parse(text), 0, 'local', text), 400, /nesting depth exceeds the limit of 64/);
  await refused(f.chain.admitFromPeer('signed', { op: 'any', args: deep(100_000) }, 0), 400, /nesting depth exceeds the limit of 64/);
  await refused(f.chain.admitFromPeer('system', { type: 'faucet', from: 'chain:system.faucet', to: bob.address, value: 1, x: deep(100_000) }, 0), 400, /nesting depth/);
  assert.equal(f.chain.mempool.size, 0);
  // Within the limit, the depth is not what refuses it (the extra field is).
  const ok = { ...signTransfer(alice, { to: bob.address, value: 3, nonce: 1 }), memo: deep(MAX_TX_NESTING - 2) };
  await assert.rejects(f.chain.admit(ok, 0), (e: Error) => !/nesting depth/.test(e.message));
});

test('a block carrying a too-deeply nested transaction is invalid, the same on every node, without overflowing the stack', async () => {
  const f = await makeChain({ accounts: [{ address: alice.address, balance: COIN }] });
  await f.chain.admit(signTransfer(alice, { to: bob.address, value: 3, nonce: 1 }), 0);
  const block = await f.chain.propose(0, 'chain:v0.node', 1_800_000_000_000);
  const encoded = JSON.parse(JSON.stringify(proposedBlockCodec(f.chain).encode(block))) as Record<string, unknown>;
  // What a byzantine proposer would include: canonical text, correct id, 100 000 levels deep.
  const canonical = '{"from":' + JSON.stringify(alice.address) + ',"memo":' + '['.repeat(100_000) + ']'.repeat(100_000) + '}';
  const hostile = { origin: 'signed', hash: hashOfCanonical(canonical), canonical };
  for (const judge of [f, await makeChain({ accounts: [{ address: alice.address, balance: COIN }] })]) {
    assert.equal(proposedBlockCodec(judge.chain).decode({ ...encoded, txs: [hostile] }), undefined);
    assert.ok(proposedBlockCodec(judge.chain).decode(encoded), 'the same block without it decodes');
  }
  // Rebuilding it directly (any other path into a block) is refused the same way.
  assert.throws(() => f.chain.rebuildTx('signed', { memo: deep(100_000) } as Record<string, unknown>, 1n, 0), /nesting depth exceeds the limit of 64/);
  assert.throws(() => f.chain.rebuildTx('system', { type: 'faucet', from: 'a', to: 'b', value: 1, x: deep(65) } as Record<string, unknown>, 1n, 0), /nesting depth/);
});
