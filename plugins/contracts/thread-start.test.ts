import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeChain, signTransfer, wallet } from '../../test/helpers/chain-fixture.js';
import { isChainError } from '../../kernel/sdk.js';
import { contractsPlugin } from './index.js';
import { DEFAULT_THREAD_OPTIONS, processThreads } from './runtime.js';
import { DEPLOY_ADDRESS } from './execute.js';
import { cataloguedPlugin } from '../../test/helpers/catalogued-plugin.js';
import { toHex } from '../../kernel/sdk.js';
import { wat } from './testing/hostile.js';

const SMALL_MODULE = '(module (memory 1) (func (export "alloc") (param i32) (result i32) (i32.const 0)) (func (export "call") (param i32 i32)))';

const alice = wallet(81);
const bob = wallet(82);

// A contract thread is an isolate with Binaryen loaded (~90 MiB resident): a node that has run no
// contract must not carry one (docs/performance.md, "Where a validator's memory goes").
test('the blocks contract thread starts when the node admits a deploy or a contract call, not at boot nor for a plain transfer', async () => {
  const f = await makeChain({ plugins: [contractsPlugin, cataloguedPlugin('analyzer')], accounts: [{ address: alice.address, balance: 10_000_000n }, { address: bob.address, balance: 10_000_000n }] });
  const threads = processThreads(DEFAULT_THREAD_OPTIONS);
  assert.equal(threads.consensus.everStarted, false, 'registering the plugin starts no thread');
  await f.chain.admit(signTransfer(alice, { to: bob.address, value: 1, nonce: 1 }), 0);
  await f.block();
  assert.equal(threads.consensus.everStarted, false, 'a plain transfer starts no thread');
  // A deploy whose bytes are no WebAssembly is refused at admission (400): a refused transaction must not make the node carry a thread.
  await assert.rejects(f.chain.admit(signTransfer(alice, { to: DEPLOY_ADDRESS, value: 0, nonce: 2, gas_limit: 1_000, data: JSON.stringify({ bytecode_hex: '0x0061736d' }) }), 0), (err) => isChainError(err) && err.status === 400);
  assert.equal(threads.consensus.everStarted, false, 'a refused deploy starts no thread');
  await f.chain.admit(signTransfer(alice, { to: DEPLOY_ADDRESS, value: 0, nonce: 2, gas_limit: 1_000, data: JSON.stringify({ bytecode_hex: toHex(wat(SMALL_MODULE)) }) }), 0);
  assert.equal(threads.consensus.everStarted, true, 'an accepted deploy starts it');
});
