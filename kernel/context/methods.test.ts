import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from '@sinclair/typebox';
import { definePlugin, type PluginDefinition } from '../host/plugin.js';
import { defineMethods } from './methods.js';
import { readMethodCalls } from '../host/method-calls.js';
import { defineOperation } from '../ops/operation.js';
import type { ReadContext, WriteContext } from './contexts.js';
import { jsonRecord } from '../state/record-codec.js';
import { makeChain, signOperation, wallet, type Fixture } from '../../test/helpers/chain-fixture.js';
import { LEDGER_TARGET, PEEK_TARGET, SWAP_TARGET, ledgerMethods, ledgerPlugin, peekPlugin, swapPlugin } from '../../test/fixtures/method-test-plugins.js';

const alice = wallet(41);
const bob = wallet(42);
const COIN = 1_000_000n;
let clock = 1_800_000_000_000;
const nonce = (): number => ++clock;

/** peek is listed first: reads need neither a dependency nor an order. */
const chainOf = (ledgerActivation = 0): Promise<Fixture> =>
  makeChain({
    plugins: [peekPlugin, ledgerPlugin, swapPlugin],
    pluginConfig: [{ name: 'peek' }, { name: 'ledger', activation_height: ledgerActivation }, { name: 'swap' }],
    accounts: [{ address: alice.address, balance: 10n * COIN }],
  });

const op = (name: string, target: string, body: Record<string, unknown>): Record<string, unknown> => signOperation(alice, { actor: alice.address, target, nonce: nonce(), body: { address: alice.address, ...body } });

async function submit(f: Fixture, name: string, target: string, body: Record<string, unknown>): Promise<string> {
  return (await f.chain.admitOperation(name, op(name, target, body), {}, 0)).tx_hash;
}

/** Straight into the pool, as a proposer that skipped admission would. */
async function inject(f: Fixture, name: string, target: string, body: Record<string, unknown>): Promise<string> {
  const tx = f.chain.rebuildTx('signed', f.operations.envelope(name, op(name, target, body), {}), await f.chain.queries.param('base_fee'), 0);
  f.chain.mempool.add(tx);
  return tx.hash;
}

async function receipt(f: Fixture, hash: string): Promise<{ status: string; error: string | null; block: number }> {
  const st = await f.chain.queries.getTx(hash);
  assert.ok(st, `transaction ${hash} is stored`);
  return st.receipt;
}

const tokens = async (f: Fixture, address: string): Promise<bigint | undefined> => {
  const raw = await f.chain.queries.state.get(`ledger/balance/${address}`);
  return raw === undefined ? undefined : jsonRecord<bigint>().decode(raw);
};

test('read methods: any plugin may call them, at admission and in a block, on the offering plugin\'s namespace', async () => {
  const f = await chainOf();
  await submit(f, 'mint_tokens', LEDGER_TARGET, { tokens: 500 });
  await f.block();
  assert.equal(await tokens(f, alice.address), 500n);

  // peek lists no dependency and is listed before the ledger, yet reads it.
  const peeked = await submit(f, 'peek_balance', PEEK_TARGET, {});
  await f.block();
  assert.equal((await receipt(f, peeked)).status, 'confirmed');
  const seen = await f.chain.queries.state.get(`peek/seen/${alice.address}`);
  assert.equal(seen && jsonRecord<bigint>().decode(seen), 500n, 'the balance the read method returned, stored in peek\'s own namespace');

  // swap's check reads at admission, over committed state.
  await assert.rejects(f.chain.admitOperation('swap_pay', op('swap_pay', SWAP_TARGET, { to: bob.address, tokens: 501 }), {}, 0), (e: Error) => {
    assert.equal(e.message, `swap: ${alice.address} holds 500 tokens`);
    return true;
  });
});

test('write methods: a dependent plugin writes the offering plugin\'s namespace in its own transaction, events included', async () => {
  const f = await chainOf();
  await submit(f, 'mint_tokens', LEDGER_TARGET, { tokens: 500 });
  await f.block();
  const paid = await submit(f, 'swap_pay', SWAP_TARGET, { to: bob.address, tokens: 200 });
  const b = await f.block();
  assert.equal((await receipt(f, paid)).status, 'confirmed');
  assert.equal(await tokens(f, alice.address), 300n);
  assert.equal(await tokens(f, bob.address), 200n);
  assert.equal(await f.chain.queries.state.get(`swap/balance/${bob.address}`), undefined, 'the ledger\'s writes went to the ledger\'s namespace, not the caller\'s');
  const events = await f.chain.queries.getTxEvents(b.header.height, paid);
  assert.deepEqual(events.map((e) => [e.type, e.phase, e.tx_hash, e.data]), [['ledger_moved', 'tx', paid, { from: alice.address, to: bob.address, amount: '200' }]]);
});

test('a write method\'s effects roll back with a failed caller; fee and nonce stay', async () => {
  const f = await chainOf();
  await submit(f, 'mint_tokens', LEDGER_TARGET, { tokens: 500 });
  await f.block();
  const before = await f.account(alice.address);
  const failed = await submit(f, 'swap_pay', SWAP_TARGET, { to: bob.address, tokens: 200, fail_after: true });
  const b = await f.block();
  const r = await receipt(f, failed);
  assert.equal(r.status, 'failed');
  assert.equal(r.error, 'swap failed after paying, on purpose');
  assert.equal(await tokens(f, alice.address), 500n, 'the ledger\'s debit was rolled back');
  assert.equal(await tokens(f, bob.address), undefined, 'and its credit');
  assert.deepEqual(await f.chain.queries.getTxEvents(b.header.height, failed), [], 'the ledger\'s event was dropped with the transaction');
  assert.equal((await f.account(alice.address)).balance, before.balance - 20n, 'the operation\'s fee (20 gas at base fee 1) is kept');
});

test('a write method called by a plugin that does not depend on the offering plugin fails the call, naming both', async () => {
  const f = await chainOf();
  const tried = await submit(f, 'peek_balance', PEEK_TARGET, { try_write: true });
  await f.block();
  const r = await receipt(f, tried);
  assert.equal(r.status, 'failed');
  assert.equal(r.error, 'plugin "peek" may not call write method "mint" of "ledger": "peek" does not list "ledger" in its dependencies');
  assert.equal(await tokens(f, alice.address), undefined, 'nothing minted');
  assert.equal(await f.chain.queries.state.get(`peek/seen/${alice.address}`), undefined, 'the caller\'s own write before the refused call rolled back too');
});

test('a look-alike declaration under the offering plugin\'s name cannot write its namespace', async () => {
  const fake = defineMethods('ledger', {
    write: {
      async mint(ctx, to: string): Promise<void> {
        ctx.store.setRecord(`balance/${to}`, 1_000_000n);
      },
    },
  });
  const forger = definePlugin({
    name: 'forger',
    kind: 'state',
    description: 'depends on the ledger and brings its own declaration of it',
    dependencies: ['ledger'],
    operations: [
      defineOperation({
        name: 'forge',
        description: 'mints through a forged declaration',
        routes: [{ method: 'POST', path: '/api/v1/forge' }],
        schema: Type.Object({ address: Type.String() }),
        signsFor: 'chain:system.forge',
        gas: 10,
        async execute(ctx, o) {
          await ctx.methods.of(fake).mint(o.actor);
        },
      }),
    ],
    register() {},
  });
  const f = await makeChain({ plugins: [ledgerPlugin, forger], accounts: [{ address: alice.address, balance: COIN }] });
  const forged = await submit(f, 'forge', 'chain:system.forge', {});
  await f.block();
  const r = await receipt(f, forged);
  assert.equal(r.status, 'failed');
  assert.equal(r.error, 'write method "mint": the declaration passed is not the one plugin "ledger" offers on this network (import it from that plugin)');
  assert.equal(await tokens(f, alice.address), undefined);
});

test('a call to the methods of a plugin that is not active fails with the kernel\'s 403 for inactive plugins, at admission and in a block', async () => {
  const f = await chainOf(3);
  // At admission (height 1): swap's check reads the ledger.
  await assert.rejects(f.chain.admitOperation('swap_pay', op('swap_pay', SWAP_TARGET, { to: bob.address, tokens: 1 }), {}, 0), (e: Error & { status?: number }) => {
    assert.equal(e.status, 403);
    assert.equal(e.message, f.host.inactiveProblem('ledger', 1)!.message);
    assert.equal(e.message, 'plugin "ledger" is scheduled, not active, at height 1 (it activates at height 3)');
    return true;
  });
  // In a block (height 1): peek is active, the ledger it reads is not.
  const peeked = await inject(f, 'peek_balance', PEEK_TARGET, {});
  await f.block();
  const r = await receipt(f, peeked);
  assert.equal(r.status, 'failed');
  assert.equal(r.error, f.host.inactiveProblem('ledger', 1)!.message);
  await f.block();
  // From height 3 the same calls go through.
  const later = await submit(f, 'peek_balance', PEEK_TARGET, {});
  const b = await f.block();
  assert.equal(b.header.height, 3);
  assert.equal((await receipt(f, later)).status, 'confirmed');
});

test('boot refuses methods a service plugin offers, and a declaration carried by a plugin of another name', async () => {
  const methods = defineMethods('svc', { read: { async ping(): Promise<string> { return 'pong'; } } });
  const svc = definePlugin({ name: 'svc', kind: 'service', description: 'offers methods', methods, register() {} });
  await assert.rejects(makeChain({ plugins: [svc] }), /"svc" is a service plugin and may not offer methods/);
  const wrong = definePlugin({ name: 'other', kind: 'state', description: 'carries the ledger\'s declaration', methods: ledgerMethods, register() {} });
  await assert.rejects(makeChain({ plugins: [wrong as PluginDefinition] }), /"other" carries the methods declared for "ledger"/);
});

test('defineMethods refuses a name declared both read and write', () => {
  const both = async (): Promise<number> => 1;
  assert.throws(() => defineMethods('x', { read: { same: both }, write: { same: both } }), /"same" is declared both read and write/);
});

/** Never run: it compiles only while the types flow from a declaration to its callers. */
export function typesFlowFromTheDeclaration(read: ReadContext, write: WriteContext): void {
  const balance: Promise<bigint> = read.methods.of(ledgerMethods).balanceOf('chain:a.human');
  const left: Promise<bigint> = write.methods.of(ledgerMethods).move('a', 'b', 1n);
  const readInWrite: Promise<bigint> = write.methods.of(ledgerMethods).balanceOf('a');
  // @ts-expect-error a read-only context offers no write methods
  void read.methods.of(ledgerMethods).move('a', 'b', 1n);
  // @ts-expect-error amounts are bigints
  void write.methods.of(ledgerMethods).move('a', 'b', 1);
  // @ts-expect-error the kernel supplies the context; the caller does not pass one
  void read.methods.of(ledgerMethods).balanceOf(read, 'a');
  // @ts-expect-error no such method
  void read.methods.of(ledgerMethods).burn('a');
  void balance;
  void left;
  void readInWrite;
}

test('ctx.methods.active says whether the offering plugin is active at the height, without calling it', async () => {
  const f = await chainOf(3);
  const site = (height: number) => readMethodCalls({ caller: 'peek', height, state: f.chain.queries.state, readScope: () => assert.fail('active calls no method') });
  assert.equal(await site(1).active(ledgerMethods), false, 'scheduled at 3');
  assert.equal(await site(3).active(ledgerMethods), true);
  assert.equal(await site(1).active(defineMethods('absent', { read: { async nothing() {} } })), false, 'a plugin the network does not run');
});
