import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeChain, signOperation, signTransfer, wallet, type Fixture, type Wallet } from '../../test/helpers/chain-fixture.js';
import { isChainError, RouteTable, sha3Hex0x, toHex, type IndexReader, type ReadonlyStore, type Receipt, type RecordCodec } from '../../kernel/sdk.js';
import { contractsPlugin, useContractRuntimes } from './index.js';
import { inThreadRuntime } from './runtime.js';
import { readMetered } from './store.js';
import { contractAddress, DEPLOY_ADDRESS, deployMeteringFuel, dryRun } from './execute.js';
import { DEPLOY_FUEL } from './vm/pricing.js';
import { checkCodeShape } from './vm/shape.js';
import { meteredKey, Vm } from './vm/engine.js';
import { templateBytecode } from './templates.js';
import { HOSTILE_WAT, wat } from './testing/hostile.js';
import { cataloguedPlugin } from '../../test/helpers/catalogued-plugin.js';
const analyzerPlugin = cataloguedPlugin('analyzer');

const alice = wallet(71);
const bob = wallet(72);
/** Enough for any small module's metering pass (pricing.ts, DEPLOY_FUEL). */
const DEPLOY_GAS = 1_000;

async function chain(): Promise<Fixture> {
  return makeChain({ plugins: [contractsPlugin, analyzerPlugin], accounts: [{ address: alice.address, balance: 10_000_000n }, { address: bob.address, balance: 10_000_000n }] });
}

const nonceOf = async (f: Fixture, w: Wallet): Promise<number> => Number((await f.account(w.address)).nonce) + 1;
const plain = async (f: Fixture, w: Wallet, to: string, data: string, extra: { value?: number; gas_limit?: number } = {}) => signTransfer(w, { to, value: extra.value ?? 0, nonce: await nonceOf(f, w), data, ...(extra.gas_limit !== undefined ? { gas_limit: extra.gas_limit } : {}) });

async function receipt(f: Fixture, hash: string): Promise<Receipt> {
  const st = await f.chain.queries.getTx(hash);
  assert.ok(st);
  return st.receipt;
}

/** Into the next block past admission, as a proposer that skips checkTx would put it. */
function inject(f: Fixture, body: Record<string, unknown>): string {
  const tx = f.chain.rebuildTx('signed', body, 1n, 0);
  f.chain.mempool.add(tx);
  return tx.hash;
}

test('a deploy with init_args and calls in blocks: the address of decisions.md §27, {error} is a success, value moves only after success', async () => {
  const f = await chain();
  const deploy = await f.chain.admit(await plain(f, alice, DEPLOY_ADDRESS, JSON.stringify({ bytecode_hex: toHex(templateBytecode('token.wasm')), name: 'T', init_args: { name: 'T', symbol: 'T', decimals: 2, total_supply: 10 } }), { gas_limit: 200 }), 0);
  const b = await f.block();
  assert.equal((await receipt(f, deploy.tx_hash)).status, 'confirmed');
  const token = contractAddress(alice.address, deploy.tx_hash);
  const events = await f.chain.queries.getTxEvents(b.header.height, deploy.tx_hash);
  assert.deepEqual(events.filter((e) => e.type === 'contract_deployed').map((e) => e.data.address), [token]);
  assert.deepEqual(events.filter((e) => e.type === 'contract_event').map((e) => e.data.data), [{ from: null, to: alice.address, amount: '1000' }], 'total_supply 10 with 2 decimals');

  const before = (await f.account(bob.address)).balance;
  const refused = await f.chain.admit(await plain(f, bob, token, JSON.stringify({ function: 'mint', args: { to: bob.address, amount: 1 } }), { value: 5 }), 0);
  const b2 = await f.block();
  const r = await receipt(f, refused.tx_hash);
  assert.equal(r.status, 'confirmed');
  const called = (await f.chain.queries.getTxEvents(b2.header.height, refused.tx_hash)).find((e) => e.type === 'contract_called')!;
  assert.equal(called.data.return_data, '{"error":"only the owner may mint"}');
  assert.equal(f.chain.typeOf((await f.chain.lookupTx(refused.tx_hash))!.tx.target), 'call_contract', 'a call shows type call_contract (decisions.md §17)');
  assert.equal((await f.account(token)).balance, 5n, 'the value was credited after the call succeeded');
  assert.equal((await f.account(bob.address)).balance, before - 5n - r.fee);

  await assert.rejects(f.chain.admit(await plain(f, bob, token, '{"args":{}}'), 0), (e: unknown) => isChainError(e) && e.status === 400 && /name the contract function/.test(e.message));
});

test('past admission: a float contract deploys nothing, a call with unreadable data fails, a trap keeps the value with the sender; fee and nonce are consumed', async () => {
  const f = await chain();
  await assert.rejects(f.chain.admit(await plain(f, alice, DEPLOY_ADDRESS, JSON.stringify({ bytecode_hex: toHex(wat(HOSTILE_WAT.float)) })), 0), (e: unknown) => isChainError(e) && e.status === 400);
  const float = inject(f, await plain(f, alice, DEPLOY_ADDRESS, JSON.stringify({ bytecode_hex: toHex(wat(HOSTILE_WAT.float)) }), { gas_limit: DEPLOY_GAS }));
  await f.block();
  const fr = await receipt(f, float);
  assert.equal(fr.status, 'failed');
  assert.match(fr.error!, /floating-point/);
  const metering = deployMeteringFuel(checkCodeShape(wat(HOSTILE_WAT.float)));
  assert.equal(fr.gas, Math.max(50, Math.ceil(Number(metering + BigInt(DEPLOY_FUEL.perByte * wat(HOSTILE_WAT.float).length)) / 20_000)), 'refused bytes pay for the metering they took');
  assert.equal(await f.chain.queries.state.get(`contracts/contract/${contractAddress(alice.address, float)}`), undefined);

  const loopDeploy = await f.chain.admit(await plain(f, alice, DEPLOY_ADDRESS, JSON.stringify({ bytecode_hex: toHex(wat(HOSTILE_WAT.infiniteLoop)) }), { gas_limit: DEPLOY_GAS }), 0);
  await f.block();
  const loop = contractAddress(alice.address, loopDeploy.tx_hash);
  const bad = inject(f, await plain(f, bob, loop, 'not json'));
  await f.block();
  assert.equal((await receipt(f, bad)).status, 'failed');

  const before = await f.account(bob.address);
  const trapped = await f.chain.admit(await plain(f, bob, loop, JSON.stringify({ function: 'spin', args: {} }), { value: 9, gas_limit: 60 }), 0);
  await f.block();
  const tr = await receipt(f, trapped.tx_hash);
  assert.deepEqual([tr.status, tr.gas], ['failed', 60]);
  assert.match(tr.error!, /out of fuel/);
  const after = await f.account(bob.address);
  assert.equal(after.balance, before.balance - tr.fee, 'value kept, fee paid');
  assert.equal(after.nonce, before.nonce + 1n);
  assert.equal((await f.account(loop)).balance, 0n);
});

test('the call endpoint never writes: dry_run false is 403 on every network, saying to send a transaction (decisions.md §91)', async () => {
  for (const [env, status] of [['mainnet', 403], ['testnet', 403]] as const) {
    const f = await makeChain({ plugins: [contractsPlugin, analyzerPlugin], env });
    const routes = new RouteTable();
    f.hooks.routes.call(routes);
    const handler = routes.list().find((r) => r.method === 'POST' && r.path === '/api/v1/contracts/:address/call')!.handler;
    const req = { method: 'POST', path: '/api/v1/contracts/chain:0000000001.app/call', params: { address: 'chain:0000000001.app' }, query: new URLSearchParams(), headers: {}, body: { function: 'transfer', args: {}, dry_run: false }, ip: '127.0.0.1' };
    assert.throws(() => handler(req), (e: unknown) => isChainError(e) && e.status === status && /send a transaction/.test(e.message), env);
  }
});

test('metering and storing code cost fuel: a deploy of new code is charged the gas of its shape, its limit too when it declares none (so a part 1 client that cannot sign a gas_limit deploys it); a declared limit below that is 400; a template deploys within the base', async () => {
  const f = await chain();
  const bytes = wat(`(module (memory 1) (data (i32.const 0) "${'a'.repeat(60_000)}") (func (export "alloc") (param i32) (result i32) (i32.const 0)) (func (export "call") (param i32 i32)))`);
  const big = toHex(bytes);
  const fuel = deployMeteringFuel(checkCodeShape(bytes)) + BigInt(DEPLOY_FUEL.perByte * bytes.length);
  const gas = Math.ceil(Number(fuel) / 20_000);
  assert.ok(gas > 50, `the module's own work is above the base 50: ${gas}`);
  const before = await f.account(alice.address);
  const deployed = await f.chain.admit(await plain(f, alice, DEPLOY_ADDRESS, JSON.stringify({ bytecode_hex: big })), 0);
  await f.block();
  const ok = await receipt(f, deployed.tx_hash);
  assert.deepEqual([ok.status, ok.gas, ok.unused_gas_fee], ['confirmed', gas, undefined], ok.error ?? '');
  const paid = before.balance - (await f.account(alice.address)).balance;
  assert.ok(paid >= BigInt(gas), 'the fee of its gas (and the storage fee of its code)');
  await assert.rejects(f.chain.admit(await plain(f, alice, DEPLOY_ADDRESS, JSON.stringify({ bytecode_hex: big }), { gas_limit: gas - 1 }), 0), (e: unknown) => isChainError(e) && e.status === 400 && new RegExp(`gas_limit ${gas - 1} is below the ${gas} gas`).test(e.message));
  // Above what a block holds, the deploy's own gas is refused at admission, gas_limit or not: it could never be in a block.
  const small = await makeChain({ plugins: [contractsPlugin, analyzerPlugin], accounts: [{ address: alice.address, balance: 10_000_000n }], genesisParams: { max_block_gas: String(gas - 1) } });
  await assert.rejects(small.chain.admit(await plain(small, alice, DEPLOY_ADDRESS, JSON.stringify({ bytecode_hex: big })), 0), (e: unknown) => isChainError(e) && e.status === 400 && new RegExp(`its gas ${gas} exceeds max_block_gas ${gas - 1}`).test(e.message));
  // The token template: every node meters it once, so a deploy pays its bytes and initialize only.
  const token = await f.chain.admit(await plain(f, alice, DEPLOY_ADDRESS, JSON.stringify({ bytecode_hex: toHex(templateBytecode('token.wasm')), init_args: { name: 'T', symbol: 'T', decimals: 6, total_supply: 1000 } })), 0);
  await f.block();
  const tr = await receipt(f, token.tx_hash);
  assert.equal(tr.status, 'confirmed', tr.error ?? '');
  assert.ok(tr.gas <= 50, `the token deploys within the base gas of a deploy: ${tr.gas}`);
});

test('a dry run may not ask for more gas than a block holds: an unsigned request cannot keep the node busy for long', async () => {
  const f = await chain();
  const deployed = await f.chain.admit(await plain(f, alice, DEPLOY_ADDRESS, JSON.stringify({ bytecode_hex: toHex(wat(HOSTILE_WAT.infiniteLoop)) }), { gas_limit: DEPLOY_GAS }), 0);
  await f.block();
  const loop = contractAddress(alice.address, deployed.tx_hash);
  const state = f.chain.queries.state;
  const store: ReadonlyStore = {
    namespace: 'contracts',
    get: (k) => state.get(`contracts/${k}`),
    getRecord: async <T>(k: string, codec?: RecordCodec<T>) => {
      const raw = await state.get(`contracts/${k}`);
      return raw === undefined ? undefined : codec!.decode(raw);
    },
    scan: () => Promise.resolve([]),
  };
  const ctx = { height: f.chain.queries.head.height, params: f.params.reader(state), store };
  const data = JSON.stringify({ function: 'spin', args: {} });
  const max = Number(await ctx.params.get('max_block_gas'));
  await assert.rejects(dryRun(inThreadRuntime(new Vm()), ctx, 0, loop, data, '', max + 1), (e: unknown) => isChainError(e) && e.status === 400 && /above max_block_gas/.test(e.message));
  const small = await dryRun(inThreadRuntime(new Vm()), ctx, 0, loop, data, '', 60);
  assert.deepEqual([small.success, small.gas_used], [false, 60]);
  assert.match(small.error!, /out of fuel/);
});

test('past admission, a call whose attached value the sender no longer has is refused before the contract runs, at the base gas', async () => {
  const f = await chain();
  const deployed = await f.chain.admit(await plain(f, alice, DEPLOY_ADDRESS, JSON.stringify({ bytecode_hex: toHex(wat(HOSTILE_WAT.cpuHeavy)) }), { gas_limit: DEPLOY_GAS }), 0);
  await f.block();
  const heavy = contractAddress(alice.address, deployed.tx_hash);
  // Input byte 3: 3 × 65 536 loop iterations, well above the base 50 gas of fuel.
  const ran = await f.chain.admit(await plain(f, bob, heavy, '0x03', { gas_limit: 1000 }), 0);
  await f.block();
  const ok = await receipt(f, ran.tx_hash);
  assert.equal(ok.status, 'confirmed');
  assert.ok(ok.gas > 50, `the call used ${ok.gas} gas`);
  const balance = (await f.account(bob.address)).balance;
  const broke = inject(f, await plain(f, bob, heavy, '0x03', { value: Number(balance), gas_limit: 1000 }));
  await f.block();
  const r = await receipt(f, broke);
  assert.deepEqual([r.status, r.gas], ['failed', 50]);
  assert.match(r.error!, /refused before the contract ran/);
  assert.equal((await f.account(heavy)).balance, 0n);
});

test('a deploy keeps its instrumented code in the node-local index: after the compiled cache is cleared a call compiles it from there, with the same gas', async () => {
  const services: { chain?: Fixture['chain']; index?: (p: string) => IndexReader } = {};
  services.index = (p) => services.chain!.queries.pluginIndex(p);
  const f = await makeChain({ plugins: [contractsPlugin, analyzerPlugin], services, accounts: [{ address: alice.address, balance: 10_000_000n }, { address: bob.address, balance: 10_000_000n }] });
  // In this thread, to see the VM's caches and count its metering passes.
  const vm = new Vm();
  vm.useStore({ load: (k) => readMetered(f.chain.queries.pluginIndex('contracts'), k) });
  useContractRuntimes({ blocks: inThreadRuntime(vm), offchain: inThreadRuntime(vm) });
  const code = wat(HOSTILE_WAT.cpuHeavy);
  const deployed = await f.chain.admit(await plain(f, alice, DEPLOY_ADDRESS, JSON.stringify({ bytecode_hex: toHex(code) }), { gas_limit: DEPLOY_GAS }), 0);
  await f.block();
  const heavy = contractAddress(alice.address, deployed.tx_hash);
  const key = meteredKey(sha3Hex0x(code), { maxPages: 16, maxStack: 4096 });
  const stored = await readMetered(f.chain.queries.pluginIndex('contracts'), key);
  assert.ok(stored, 'the deploy wrote the instrumented module to the index');
  const fresh = new Vm();
  await fresh.ready();
  assert.deepEqual(stored.binary, fresh.meter(sha3Hex0x(code), code, { maxPages: 16, maxStack: 4096 }).binary, 'the same bytes a fresh metering pass gives');
  const gasOf = async (): Promise<number> => {
    const ran = await f.chain.admit(await plain(f, bob, heavy, '0x02', { gas_limit: 1000 }), 0);
    await f.block();
    const r = await receipt(f, ran.tx_hash);
    assert.equal(r.status, 'confirmed');
    return r.gas;
  };
  const warm = await gasOf();
  vm.clearCompiled();
  vm.clearMetered();
  const passes = vm.instrumentations;
  assert.equal(await gasOf(), warm);
  assert.equal(vm.instrumentations, passes, 'no metering pass on the cache miss');
});

test('the events and token-transfers routes read one page of the index (at most offset + limit + 1 entries), newest first', async () => {
  const walked: number[] = [];
  const services: { chain?: Fixture['chain']; index?: (p: string) => IndexReader } = {};
  services.index = (p) => {
    const r = services.chain!.queries.pluginIndex(p);
    return { ...r, scan: async (prefix, options) => { const rows = await r.scan(prefix, options); walked.push(rows.length); return rows; } };
  };
  const f = await makeChain({ plugins: [contractsPlugin, analyzerPlugin], services, accounts: [{ address: alice.address, balance: 10_000_000n }, { address: bob.address, balance: 10_000_000n }] });
  const deploy = await f.chain.admit(await plain(f, alice, DEPLOY_ADDRESS, JSON.stringify({ bytecode_hex: toHex(templateBytecode('token.wasm')), name: 'T', init_args: { name: 'T', symbol: 'T', decimals: 0, total_supply: 100 } }), { gas_limit: 200 }), 0);
  await f.block();
  const token = contractAddress(alice.address, deploy.tx_hash);
  for (let i = 1; i <= 4; i++) {
    await f.chain.admit(await plain(f, alice, token, JSON.stringify({ function: 'transfer', args: { to: bob.address, amount: i } }), { gas_limit: 200 }), 0);
    await f.block();
  }
  const routes = new RouteTable();
  f.hooks.routes.call(routes);
  const get = async (path: string, params: Record<string, string>, query: string): Promise<Record<string, unknown>> => {
    const handler = routes.list().find((r) => r.method === 'GET' && r.path === path)!.handler;
    return (await handler({ method: 'GET', path, params, query: new URLSearchParams(query), headers: {}, body: undefined, ip: '127.0.0.1' })) as Record<string, unknown>;
  };
  const amounts = (rows: unknown): unknown[] => (rows as Array<{ data?: { amount: unknown }; amount?: unknown }>).map((r) => r.data?.amount ?? r.amount);
  walked.length = 0;
  const first = await get('/api/v1/contracts/:address/events', { address: token }, 'limit=2');
  assert.deepEqual(amounts(first.events), ['4', '3']);
  assert.deepEqual([first.total, first.total_exact, first.has_more, first.limit, first.offset], [3, false, true, 2, 0]);
  const last = await get('/api/v1/contracts/:address/events', { address: token }, 'limit=2&offset=4');
  assert.deepEqual(amounts(last.events), ['100']);
  assert.deepEqual([last.total, last.total_exact, last.has_more], [5, undefined, false]);
  assert.deepEqual(walked, [3, 5], 'each page read at most offset + limit + 1 entries');
  const bobs = await get('/api/v1/accounts/:address/token-transfers', { address: bob.address }, 'limit=3&offset=1');
  assert.deepEqual(amounts(bobs.transfers), ['3', '2', '1']);
  assert.deepEqual([bobs.total, bobs.has_more], [4, false]);
});

test('state growth is priced: a 256 KiB deploy pays at least 1 COIN of storage fee, burned; admission refuses one its payer cannot pay, and past admission it fails in the block with fee and nonce kept', async () => {
  const poor = wallet(73);
  const f = await makeChain({ plugins: [contractsPlugin, analyzerPlugin], accounts: [{ address: alice.address, balance: 10_000_000n }, { address: poor.address, balance: 500_000n }] });
  // A module of 262 144 bytes (contract_max_bytecode_bytes) that is mostly data: cheap to meter, costly to keep.
  const shell = (n: number): Uint8Array => wat(`(module (memory 8) (data (i32.const 0) "${'k'.repeat(n)}") (func (export "alloc") (param i32) (result i32) (i32.const 0)) (func (export "call") (param i32 i32)))`);
  const big = shell(262_144 - (shell(0).length + 4));
  assert.ok(big.length <= 262_144 && big.length > 262_000, `${big.length} bytes`);
  // The deploy operation (a plain transaction's data is capped below this size).
  let clock = 1_700_000_000_000;
  const deploy = (w: Wallet): Record<string, unknown> => signOperation(w, { kind: 'deploy', actor: w.address, target: DEPLOY_ADDRESS, nonce: ++clock, body: { owner: w.address, bytecode_hex: toHex(big), gas_limit: DEPLOY_GAS } });
  await assert.rejects(f.chain.admitOperation('deploy', deploy(poor), {}, 0), (e: unknown) => isChainError(e) && e.status === 400 && /insufficient balance for the storage fee/.test(e.message));
  const past = f.chain.rebuildTx('signed', f.operations.envelope('deploy', deploy(poor), {}), 1n, 0);
  f.chain.mempool.add(past);
  const before = await f.account(alice.address);
  const paid = await f.chain.admitOperation('deploy', deploy(alice), {}, 0);
  const b = await f.block();
  const failed = await receipt(f, past.hash);
  assert.equal(failed.status, 'failed');
  assert.match(failed.error!, /insufficient balance for the storage fee/);
  const unused = (r: Receipt): bigint => r.unused_gas_fee ?? 0n;
  assert.equal((await f.account(poor.address)).balance, 500_000n - failed.fee - unused(failed), 'the fee of the gas it used (and its unused limit\'s burn) is kept, no storage fee');
  const r = await receipt(f, paid.tx_hash);
  assert.equal(r.status, 'confirmed', r.error ?? '');
  assert.ok((r.storage_fee ?? 0n) >= 1_000_000n, `storage fee ${r.storage_fee} ucoin`);
  assert.equal((await f.account(alice.address)).balance, before.balance - r.fee - unused(r) - r.storage_fee!);
  assert.equal(b.fees_burned, failed.fee_burned + unused(failed) + r.fee_burned + unused(r) + r.storage_fee!, 'the storage fee is burned in the block');
});

test('a call that writes 8 KiB of contract storage pays for the bytes beyond storage_free_bytes (4 096), past admission too; the shipped token\'s code is not priced (docs/decisions.md L1)', async () => {
  const f = await chain();
  // The token template's 12.7 KB of code: sized by the protocol (every node ships it), so its first deploy pays gas only.
  const tokenDeploy = await f.chain.admit(await plain(f, alice, DEPLOY_ADDRESS, JSON.stringify({ bytecode_hex: toHex(templateBytecode('token.wasm')), init_args: { name: 'T', symbol: 'T', decimals: 0, total_supply: 100 } }), { gas_limit: 200 }), 0);
  await f.block();
  const d = await f.chain.admit(await plain(f, alice, DEPLOY_ADDRESS, JSON.stringify({ bytecode_hex: toHex(wat(HOSTILE_WAT.store8KiB)) }), { gas_limit: DEPLOY_GAS }), 0);
  await f.block();
  const tr = await receipt(f, tokenDeploy.tx_hash);
  assert.deepEqual([tr.status, tr.storage_fee], ['confirmed', undefined], tr.error ?? '');
  assert.ok(templateBytecode('token.wasm').length > 4_096, 'the token is larger than the allowance');
  assert.equal((await receipt(f, d.tx_hash)).status, 'confirmed');
  const store = contractAddress(alice.address, d.tx_hash);
  // The key is kept as hex (`big` → 626967) under the contract's address.
  const growth = `contracts/kv/${store}/626967`.length + 8_192;
  const expected = BigInt(growth - 4_096) * 10n;
  const before = (await f.account(bob.address)).balance;
  const sent = await f.chain.admit(await plain(f, bob, store, JSON.stringify({ function: 'go', args: {} }), { gas_limit: 200 }), 0);
  await f.block();
  const r = await receipt(f, sent.tx_hash);
  assert.deepEqual([r.status, r.storage_fee], ['confirmed', expected], r.error ?? '');
  assert.equal((await f.account(bob.address)).balance, before - r.fee - (r.unused_gas_fee ?? 0n) - expected);
  assert.equal((await f.chain.queries.state.get(`contracts/kv/${store}/626967`))?.length, 8_192);
  // Writing the same 8 KiB again adds nothing; another contract's first 8 KiB, included without checkTx, pays alike.
  const again = await f.chain.admit(await plain(f, bob, store, JSON.stringify({ function: 'go', args: {} }), { gas_limit: 200 }), 0);
  await f.block();
  const d2 = await f.chain.admit(await plain(f, alice, DEPLOY_ADDRESS, JSON.stringify({ bytecode_hex: toHex(wat(HOSTILE_WAT.store8KiB)), name: 'second' }), { gas_limit: DEPLOY_GAS }), 0);
  await f.block();
  assert.equal((await receipt(f, again.tx_hash)).storage_fee, undefined);
  const second = contractAddress(alice.address, d2.tx_hash);
  const past = inject(f, signTransfer(bob, { to: second, value: 0, nonce: await nonceOf(f, bob), data: JSON.stringify({ function: 'go', args: {} }), gas_limit: 200 }));
  await f.block();
  const p = await receipt(f, past);
  assert.deepEqual([p.status, p.storage_fee], ['confirmed', BigInt(`contracts/kv/${second}/626967`.length + 8_192 - 4_096) * 10n]);
});

test('a contract may write a storage key of zero bytes and name a callee that is no address: the declared layout holds the first, the second traps as an unknown contract', async () => {
  const f = await chain();
  const imports = `(import "env" "storage_write" (func $w (param i32 i32 i32 i32)))
  (import "env" "storage_read" (func $r (param i32 i32 i32 i32) (result i32)))
  (import "env" "call_contract" (func $c (param i32 i32 i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 0) "nope/x")
  (func (export "alloc") (param i32) (result i32) (i32.const 1024))`;
  const emptyKey = `(module ${imports}
  (func (export "call") (param i32 i32) (call $w (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 4)) (drop (call $r (i32.const 0) (i32.const 0) (i32.const 100) (i32.const 4)))))`;
  const madeUpCallee = `(module ${imports}
  (func (export "call") (param i32 i32) (drop (call $c (i32.const 0) (i32.const 6) (i32.const 0) (i32.const 0) (i32.const 100) (i32.const 10)))))`;
  const deployed: string[] = [];
  for (const text of [emptyKey, madeUpCallee]) {
    const d = await f.chain.admit(await plain(f, alice, DEPLOY_ADDRESS, JSON.stringify({ bytecode_hex: toHex(wat(text)) }), { gas_limit: DEPLOY_GAS }), 0);
    await f.block();
    assert.equal((await receipt(f, d.tx_hash)).status, 'confirmed');
    deployed.push(contractAddress(alice.address, d.tx_hash));
  }
  const written = await f.chain.admit(await plain(f, bob, deployed[0]!, JSON.stringify({ function: 'go', args: {} }), { gas_limit: 200 }), 0);
  await f.block();
  assert.equal((await receipt(f, written.tx_hash)).status, 'confirmed');
  assert.deepEqual(await f.chain.queries.state.get(`contracts/kv/${deployed[0]}/`), new TextEncoder().encode('nope'), 'the empty key holds the four bytes');
  const called = await f.chain.admit(await plain(f, bob, deployed[1]!, JSON.stringify({ function: 'go', args: {} }), { gas_limit: 200 }), 0);
  await f.block();
  const r = await receipt(f, called.tx_hash);
  assert.equal(r.status, 'failed');
  assert.doesNotMatch(r.error!, /none of its declared/, 'a made-up callee is no read outside the declared stores');
  assert.match(r.error!, /nope\/x/);
});
