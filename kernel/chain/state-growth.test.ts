import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeChain, signTransfer, wallet, type Fixture } from '../../test/helpers/chain-fixture.js';
import { NOTE_ADDRESS, eventRecorder } from '../../test/helpers/event-recorder.js';
import { heldSupply } from '../../test/helpers/supply-model.js';
import { NodeFault } from '../errors.js';
import { StateOverlay } from '../state/overlay.js';
import { isPricedKey, STATE_GROWTH_PARAMS, storageFeeOf } from './state-growth.js';
import { definePlugin } from '../host/plugin.js';
import { KERNEL_NAMESPACES } from '../host/kernel-namespaces.js';

/**
 * The price of state growth (issue 29 item 8, chain/state-growth.ts), on the kernel's own path:
 * a transaction pays per net new byte beyond the free allowance, the fee is burned and counted,
 * a payer who cannot pay fails in the block with fee and nonce kept, and ordinary transactions
 * keep the fee part 1 gives them. Every transaction here is also put in a block past admission,
 * as a proposer that skips checkTx would.
 */
const alice = wallet(131);
const bob = wallet(132);
const FREE = 1_000;
const PRICE = 10n;

/** The bytes a note of `text` from `from` stores: its record's key and its JSON value. */
const noteBytes = (from: string, text: string): number => `recorder/note/${from}`.length + `{"note":"${text}"}`.length;

async function chain(balance = 10_000_000n): Promise<Fixture> {
  return makeChain({ plugins: [eventRecorder()], accounts: [{ address: alice.address, balance }, { address: bob.address, balance }], genesisParams: { storage_free_bytes: String(FREE), storage_byte_price: String(PRICE) } });
}

let nonces = new Map<string, number>();
/** A note from `w` into the next block without admission (as a proposer skipping checkTx would put it). */
function inject(f: Fixture, w: typeof alice, text: string): string {
  const nonce = (nonces.get(w.address) ?? 0) + 1;
  nonces.set(w.address, nonce);
  const tx = f.chain.rebuildTx('signed', signTransfer(w, { to: NOTE_ADDRESS, value: 0, nonce, data: text, version: 'v3' }), 1n, 0);
  f.chain.mempool.add(tx);
  return tx.hash;
}

test('within the free allowance nothing is charged but gas; one byte beyond it costs storage_byte_price, burned and counted in fees_burned and total_burned', async () => {
  nonces = new Map();
  const f = await chain();
  const fixed = noteBytes(alice.address, '');
  const atEdge = 'a'.repeat(FREE - fixed);
  assert.equal(noteBytes(alice.address, atEdge), FREE);
  const h1 = inject(f, alice, atEdge);
  const b1 = await f.block();
  const r1 = (await f.chain.queries.getTx(h1))!.receipt;
  assert.equal(r1.status, 'confirmed');
  assert.equal(r1.storage_fee, undefined);
  assert.equal(b1.fees_burned, r1.fee_burned);
  // Bob's first note: one byte past the allowance.
  const over = 'b'.repeat(FREE - noteBytes(bob.address, '') + 1);
  const before = (await f.account(bob.address)).balance;
  const h2 = inject(f, bob, over);
  const b2 = await f.block();
  const r2 = (await f.chain.queries.getTx(h2))!.receipt;
  assert.deepEqual([r2.status, r2.storage_fee], ['confirmed', PRICE]);
  assert.equal((await f.account(bob.address)).balance, before - r2.fee - PRICE, 'balance down by the fee and the storage fee, exactly');
  assert.equal(b2.fees_burned, r2.fee_burned + PRICE);
  assert.equal(f.chain.head.total_burned, b1.fees_burned + b2.fees_burned);
  // Rewriting the record with the same length adds nothing.
  const h3 = inject(f, bob, over.replace('b', 'c'));
  await f.block();
  assert.equal((await f.chain.queries.getTx(h3))!.receipt.storage_fee, undefined);
});

test('a payer who cannot pay the storage fee fails the transaction in the block: nothing it wrote is kept, its fee and nonce are', async () => {
  nonces = new Map();
  const f = await chain(2_000n);
  const big = 'x'.repeat(FREE + 500);
  const before = await f.account(alice.address);
  const h = inject(f, alice, big);
  await f.block();
  const r = (await f.chain.queries.getTx(h))!.receipt;
  assert.equal(r.status, 'failed');
  assert.match(r.error!, /insufficient balance for the storage fee: the transaction stores \d+ new bytes of plugin state, \d+ beyond the 1000 free \(storage_free_bytes 1000\), at 10 ucoin each/);
  assert.equal(r.storage_fee, undefined);
  const after = await f.account(alice.address);
  assert.equal(after.balance, before.balance - r.fee);
  assert.equal(after.nonce, before.nonce + 1n);
  assert.equal(await f.chain.queries.state.get(`recorder/note/${alice.address}`), undefined);
});

test('the supply is conserved to the ucoin with storage fees burned: balances + total_burned = genesis', async () => {
  nonces = new Map();
  const f = await chain();
  const genesis = 20_000_000n;
  for (let i = 0; i < 4; i++) {
    inject(f, i % 2 ? alice : bob, 'n'.repeat(FREE * (i + 1)));
    inject(f, i % 2 ? bob : alice, 'short');
    await f.block();
    const held = await heldSupply(f.chain.queries.state);
    assert.equal(held.total + f.chain.head.total_burned, genesis, `after block ${i + 1}`);
  }
  assert.ok(f.chain.head.total_burned > 4n * 21n, 'storage fees were burned');
});

/** A transfer of 1 000 ucoin from alice to a new account on a chain of `genesisParams`: it pays its 21 gas, no storage fee. */
async function transferToNewAccountPaysItsFee(genesisParams: Record<string, string>, freshSeed: number): Promise<Fixture> {
  const f = await makeChain({ accounts: [{ address: alice.address, balance: 1_000_000n }], genesisParams });
  const fresh = wallet(freshSeed);
  const before = (await f.account(alice.address)).balance;
  const sent = await f.chain.admit(signTransfer(alice, { to: fresh.address, value: 1_000, nonce: 1 }), 0);
  await f.block();
  const r = (await f.chain.queries.getTx(sent.tx_hash))!.receipt;
  assert.deepEqual([r.status, r.fee, r.storage_fee], ['confirmed', 21n, undefined]);
  assert.equal((await f.account(alice.address)).balance, before - 1_000n - 21n);
  assert.equal((await f.account(fresh.address)).balance, 1_000n, 'the new account was written (acct/)');
  return f;
}

test('an ordinary transfer, even to a new account, pays exactly its fee: the allowance covers it at the default parameters', async () => {
  await transferToNewAccountPaysItsFee({}, 133);
});

test('growth is net: a deletion counts negative, and state that shrinks pays nothing', async () => {
  const base = new StateOverlay({ get: async (k) => (k === 'ns/a' ? new Uint8Array(100) : undefined), scan: async () => [] });
  const child = base.child();
  child.delete('ns/a');
  child.set('ns/b', new Uint8Array(10));
  assert.equal(await child.growth(), BigInt(4 + 10 - (4 + 100)));
  assert.equal(storageFeeOf(-90n, { bytePrice: 10n, freeBytes: 0n }), 0n);
  assert.equal(storageFeeOf(5n, { bytePrice: 10n, freeBytes: 0n }), 50n);
});

test('a node-local failure in a handler (NodeFault) stops the block instead of failing the transaction: no node records an outcome another would not', async () => {
  nonces = new Map();
  const f = await chain();
  inject(f, alice, 'fault');
  await assert.rejects(f.block(), (e: unknown) => e instanceof NodeFault);
  assert.equal(f.chain.head.height, 0, 'nothing was committed');
});

/**
 * A plugin that stores `data` as a record and declares the first `n` characters of it sized by
 * the protocol (`ctx.protocolSizedBytes`), as a plugin recording a public key does: data
 * `<n>:<text>`.
 */
const KEEPER_ADDRESS = 'chain:system.keeper';
function keeper() {
  return definePlugin({
    name: 'keeper',
    kind: 'state',
    description: 'stores a record, part of it declared sized by the protocol',
    systemAddresses: [{ address: KEEPER_ADDRESS, gas: 30 }],
    register(api) {
      api.hooks.executeTx.for(KEEPER_ADDRESS).tapPromise(api.name, async (ctx, tx) => {
        const [n, text] = (tx.data ?? '0:').split(':') as [string, string];
        ctx.protocolSizedBytes(Number(n));
        ctx.store.setRecord(`kept/${tx.from}`, { text });
        return undefined;
      });
    },
  });
}

test('the default allowance is 4 096 bytes of plugin state per transaction (docs/decisions.md L1)', () => {
  const free = STATE_GROWTH_PARAMS.find((p) => p.key === 'storage_free_bytes')!;
  const price = STATE_GROWTH_PARAMS.find((p) => p.key === 'storage_byte_price')!;
  assert.deepEqual([free.default, price.default], [4_096n, 10n]);
  // 8 KiB of a plugin's (a contract's) state in one transaction now pays for what is beyond 4 KiB.
  assert.equal(storageFeeOf(8_192n, { bytePrice: 10n, freeBytes: 4_096n }), 40_960n);
});

test('the kernel\'s own records are not priced: a transfer creating an account, with no allowance at all, pays its 21 gas only', async () => {
  for (const ns of KERNEL_NAMESPACES) assert.equal(isPricedKey(`${ns}/x`), false, ns);
  assert.equal(isPricedKey('contracts/code/0xab'), true);
  assert.equal(isPricedKey('acctx/a'), true, 'a namespace is matched whole');
  await transferToNewAccountPaysItsFee({ storage_free_bytes: '0', storage_byte_price: '10' }, 134);
});

test('bytes a plugin declares sized by the protocol are not priced, the rest is; in a block past admission', async () => {
  const f = await makeChain({ plugins: [keeper()], accounts: [{ address: alice.address, balance: 10_000_000n }, { address: bob.address, balance: 10_000_000n }], genesisParams: { storage_free_bytes: '0', storage_byte_price: String(PRICE) } });
  const recordBytes = (from: string, text: string): number => `keeper/kept/${from}`.length + `{"text":"${text}"}`.length;
  const run = async (w: typeof alice, nonce: number, data: string) => {
    const tx = f.chain.rebuildTx('signed', signTransfer(w, { to: KEEPER_ADDRESS, value: 0, nonce, data, version: 'v3' }), 1n, 0);
    f.chain.mempool.add(tx);
    await f.block();
    return (await f.chain.queries.getTx(tx.hash))!.receipt;
  };
  const text = 'k'.repeat(3_904);
  // Alice declares the 3 904 characters of her "key": only the record's framing is priced.
  const a = await run(alice, 1, `3904:${text}`);
  assert.deepEqual([a.status, a.storage_fee], ['confirmed', BigInt(recordBytes(alice.address, text) - 3_904) * PRICE]);
  // Bob declares nothing: every byte is priced.
  const b = await run(bob, 1, `0:${text}`);
  assert.deepEqual([b.status, b.storage_fee], ['confirmed', BigInt(recordBytes(bob.address, text)) * PRICE]);
  // A declaration covers growth only: declaring more than was stored buys nothing beyond the transaction.
  const c = await run(bob, 2, `100000:${text}x`);
  assert.deepEqual([c.status, c.storage_fee], ['confirmed', undefined]);
  const d = await run(bob, 3, `0:${text}xy`);
  assert.deepEqual([d.status, d.storage_fee], ['confirmed', 1n * PRICE], 'the next transaction is priced again: one new byte');
  // A negative or fractional declaration is the plugin's bug: the transaction fails.
  const e = await run(alice, 2, `-1:${text}`);
  assert.equal(e.status, 'failed');
  assert.match(e.error!, /protocolSizedBytes: -1 is not a whole number of bytes/);
});
