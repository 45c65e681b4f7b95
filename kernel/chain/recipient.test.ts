import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeChain, signTransfer, wallet } from '../../test/helpers/chain-fixture.js';
import { accountsReader } from '../state/accounts.js';
import { ChainError } from '../errors.js';
import { recipientProblem } from './recipient.js';

const alice = wallet(61);
const bob = wallet(62);
const COIN = 1_000_000n;

const NOBODYS = ['chain:0123456789abcd.human', 'chain:0123456789abcdef.human', 'chain:a.human', 'chain:x.node', 'chain:foo.vault', 'chain:foo.agent', 'chain:foo.app', 'chain:ibc.escrow.x'];

test('a plain transfer to an address nobody can own is refused at admission with 400 naming it', async () => {
  const f = await makeChain({ accounts: [{ address: alice.address, balance: 10n * COIN }] });
  for (const to of NOBODYS) {
    await assert.rejects(f.chain.admit(signTransfer(alice, { to, value: 1000, nonce: 1 }), 0), (e: unknown) => {
      assert.ok(e instanceof ChainError, String(e));
      assert.equal(e.status, 400);
      assert.ok(e.message.includes(to), `${e.message} names ${to}`);
      return true;
    });
  }
  // A key-derived address (15 hex), an account that exists and a validator record are valid.
  await f.chain.admit(signTransfer(alice, { to: bob.address, value: 1000, nonce: 1 }), 0);
  await f.block();
  await f.chain.admit(signTransfer(alice, { to: 'chain:v0.node', value: 1, nonce: 2 }), 0);
  await f.block();
  assert.equal((await accountsReader(f.chain.queries.state).get(alice.address)).nonce, 2n);
});

test('a transfer to nobody\'s address in a block whose proposer skipped checkTx fails in consensus: fee and nonce kept, no coins moved', async () => {
  const f = await makeChain({ accounts: [{ address: alice.address, balance: 10n * COIN }] });
  const to = 'chain:a.human';
  const tx = f.chain.rebuildTx('signed', signTransfer(alice, { to, value: 1000, nonce: 1 }), 1n, 0);
  f.chain.mempool.add(tx); // straight into the pool, as a proposer that skips admission would
  const block = await f.block();
  assert.deepEqual(block.tx_hashes, [tx.hash]);
  const stored = await f.chain.queries.getTx(tx.hash);
  assert.equal(stored?.receipt.status, 'failed');
  assert.match(stored?.receipt.error ?? '', /chain:a\.human is not a valid recipient/);
  const accounts = accountsReader(f.chain.queries.state);
  assert.equal((await accounts.get(alice.address)).balance, 10n * COIN - 21n, 'the fee is paid, the value stays');
  assert.equal((await accounts.get(alice.address)).nonce, 1n);
  assert.equal(await accounts.exists(to), false, 'nothing was credited to the unowned address');
});

test('signing for an address the key is not bound to is 401 before any balance or nonce check', async () => {
  const f = await makeChain({ accounts: [{ address: alice.address, balance: 10n * COIN }] });
  for (const from of ['chain:system.stake', 'chain:v0.node', bob.address]) {
    // Unfunded and with a wrong nonce: the binding is still what the outsider is told about.
    await assert.rejects(f.chain.admit(signTransfer(alice, { from, to: alice.address, value: 5, nonce: 7 }), 0), (e: unknown) => {
      assert.ok(e instanceof ChainError);
      assert.equal(e.status, 401, `${from}: ${e.message}`);
      assert.match(e.message, new RegExp(`public key is not bound to ${from.replace(/\./g, '\\.')}`));
      return true;
    });
  }
});

test('a system address holding coins is no recipient (part 1, Address kinds: reserved to name operations)', async () => {
  const pool = 'chain:system.sponsor-pool.0123456789abcde';
  const f = await makeChain({ accounts: [{ address: alice.address, balance: 10n * COIN }, { address: pool, balance: 5n * COIN }] });
  const state = f.chain.queries.state;
  assert.equal((await accountsReader(state).get(pool)).balance, 5n * COIN, 'an account with a balance');
  const refusal = await recipientProblem(f.hooks, () => assert.fail('no plugin is asked about a system address'), state, pool);
  assert.equal(refusal?.status, 400);
  assert.match(refusal!.message, /chain:system\.sponsor-pool\.0123456789abcde is not a valid recipient: chain:system\.\* addresses are reserved/);
  assert.equal(await recipientProblem(f.hooks, () => assert.fail('not asked'), state, alice.address), null);
});
