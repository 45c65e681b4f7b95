import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeChain, signTransfer, wallet } from '../../test/helpers/chain-fixture.js';
import { toHex } from '../../kernel/sdk.js';
import { contractsPlugin } from './index.js';
import { DEFAULT_THREAD_OPTIONS, processThreads } from './runtime.js';
import { DEPLOY_ADDRESS } from './execute.js';
import { wat } from './testing/hostile.js';
import { cataloguedPlugin } from '../../test/helpers/catalogued-plugin.js';

const alice = wallet(83);

// Its own file (process): the contract threads are shared by a process, and this node must not
// have admitted any contract transaction before the block below.
test('a deploy put in a block past admission (a proposer that skipped checkTx) starts the blocks thread on demand and is confirmed', async () => {
  const f = await makeChain({ plugins: [contractsPlugin, cataloguedPlugin('analyzer')], accounts: [{ address: alice.address, balance: 10_000_000n }] });
  const threads = processThreads(DEFAULT_THREAD_OPTIONS);
  assert.equal(threads.consensus.everStarted, false);
  const bytes = wat('(module (memory 1) (func (export "alloc") (param i32) (result i32) (i32.const 0)) (func (export "call") (param i32 i32)))');
  const tx = f.chain.rebuildTx('signed', signTransfer(alice, { to: DEPLOY_ADDRESS, value: 0, nonce: 1, gas_limit: 1_000, data: JSON.stringify({ bytecode_hex: toHex(bytes) }) }), 1n, 0);
  f.chain.mempool.add(tx);
  await f.block();
  const got = await f.chain.queries.getTx(tx.hash);
  assert.equal(got?.receipt.status, 'confirmed', got?.receipt.error ?? undefined);
  assert.equal(threads.consensus.everStarted, true, 'the block started the thread it needed');
});
