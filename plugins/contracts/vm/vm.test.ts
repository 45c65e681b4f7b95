import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isChainError, sha3Hex0x } from '../../../kernel/sdk.js';
import { callInput, initializeInput } from '../calls.js';
import { codeKey, contractCodec, contractKey, type ContractRecord } from '../store.js';
import { templateBytecode } from '../templates.js';
import { HOSTILE_WAT, wat } from '../testing/hostile.js';
import { meteredKey, Vm, type VmLimits } from './engine.js';
import { contractsPlugin } from '../index.js';
import { PARAMS } from '../execute.js';
import { isFailure, runOnce, runTree, TreeView, type TreeResult } from './runner.js';
import { BULK_FUEL_PER_BYTE, HOST_FUEL, INSTRUCTION_FUEL } from './pricing.js';

const limits: VmLimits & { maxKeys: number } = { maxPages: 4, maxStack: 4096, maxDepth: 8, maxKeys: 1024 };
const BLOCK = { height: 7, time: 1_700_000_000_000 };

/** Plugin-namespace state in memory, as the runner reads it. */
class MemState {
  readonly kv = new Map<string, Uint8Array>();
  deploy(address: string, bytes: Uint8Array): void {
    const code_hash = sha3Hex0x(bytes);
    const rec: ContractRecord = { address, owner: 'chain:owner', code_hash, name: '', description: '', template: null, decimals: 0, deploy_tx: '0x', created_height: 1, code_size: bytes.length };
    this.kv.set(contractKey(address), contractCodec.encode(rec));
    this.kv.set(codeKey(code_hash), bytes);
  }
  apply(r: TreeResult): void {
    for (const [k, v] of r.writes) {
      if (v === null) this.kv.delete(k);
      else this.kv.set(k, v);
    }
  }
  get = async (key: string): Promise<Uint8Array | undefined> => this.kv.get(key);
}

const text = (b: Uint8Array): string => new TextDecoder().decode(b);

async function call(vm: Vm, s: MemState, contract: string, caller: string, input: Uint8Array, budget = 10_000_000n) {
  const r = await runTree(vm, s, BLOCK, { contract, caller, entry: 'call', input }, budget, limits);
  if (!isFailure(r)) s.apply(r);
  return r;
}

const json = (fn: string, args: Record<string, unknown> = {}) => callInput(JSON.stringify({ function: fn, args }), 6).bytes;

test('the AssemblyScript token: initialize, reads, transfer, approve, transfer_from, mint by the owner only, burn, Transfer events', async () => {
  const vm = new Vm();
  const s = new MemState();
  const T = 'chain:0000000001.app';
  s.deploy(T, templateBytecode('token.wasm'));
  const init = await call(vm, s, T, 'chain:alice', initializeInput({ name: 'Test', symbol: 'TST', decimals: 6, total_supply: '1000' }, 6));
  assert.ok(!isFailure(init), isFailure(init) ? init.trap.message : '');
  assert.equal(text(init.outcome.returnData), '{"ok":true}');
  assert.deepEqual(init.events.map((e) => e.name), ['Transfer']);
  const read = async (fn: string, args: Record<string, unknown> = {}) => {
    const r = await call(vm, s, T, 'chain:anyone', json(fn, args));
    assert.ok(!isFailure(r));
    return text(r.outcome.returnData);
  };
  assert.equal(await read('name'), '{"ok":"Test"}');
  assert.equal(await read('symbol'), '{"ok":"TST"}');
  assert.equal(await read('decimals'), '{"ok":6}');
  assert.equal(await read('total_supply'), '{"ok":"1000000000"}');
  assert.equal(await read('totalSupply'), '{"ok":"1000000000"}');
  assert.equal(await read('balance_of', { address: 'chain:alice' }), '{"ok":"1000000000"}');

  const t = await call(vm, s, T, 'chain:alice', json('transfer', { to: 'chain:bob', amount: '2.5' }));
  assert.ok(!isFailure(t));
  assert.equal(text(t.outcome.returnData), '{"ok":true}');
  assert.equal(t.events[0]!.data, '{"from":"chain:alice","to":"chain:bob","amount":"2500000"}');
  assert.equal(await read('balanceOf', { address: 'chain:bob' }), '{"ok":"2500000"}');

  await call(vm, s, T, 'chain:bob', json('approve', { spender: 'chain:carol', amount: 1 }));
  assert.equal(await read('allowance', { owner: 'chain:bob', spender: 'chain:carol' }), '{"ok":"1000000"}');
  const tf = await call(vm, s, T, 'chain:carol', json('transferFrom', { from: 'chain:bob', to: 'chain:dave', amount: 1 }));
  assert.ok(!isFailure(tf));
  assert.equal(await read('balance_of', { address: 'chain:dave' }), '{"ok":"1000000"}');
  assert.equal(await read('allowance', { owner: 'chain:bob', spender: 'chain:carol' }), '{"ok":"0"}');
  const over = await call(vm, s, T, 'chain:carol', json('transfer_from', { from: 'chain:bob', to: 'chain:dave', amount: 1 }));
  assert.ok(!isFailure(over));
  assert.match(text(over.outcome.returnData), /^\{"error":"allowance/);

  const notOwner = await call(vm, s, T, 'chain:bob', json('mint', { to: 'chain:bob', amount: 5 }));
  assert.ok(!isFailure(notOwner));
  assert.equal(text(notOwner.outcome.returnData), '{"error":"only the owner may mint"}');
  await call(vm, s, T, 'chain:alice', json('mint', { to: 'chain:bob', amount: 5 }));
  assert.equal(await read('total_supply'), '{"ok":"1005000000"}');
  await call(vm, s, T, 'chain:bob', json('burn', { amount: 1 }));
  assert.equal(await read('total_supply'), '{"ok":"1004000000"}');
  assert.equal(await read('balance_of', { address: 'chain:bob' }), '{"ok":"5500000"}');
});

test('same bytecode and input: the same fuel, every time and from a cold cache', async () => {
  const s = new MemState();
  const T = 'chain:0000000001.app';
  s.deploy(T, templateBytecode('token.wasm'));
  const vm = new Vm();
  await call(vm, s, T, 'chain:alice', initializeInput({ name: 'A', symbol: 'A', decimals: 0, total_supply: 100 }, 0));
  const fuel: bigint[] = [];
  for (let i = 0; i < 3; i++) {
    const r = await runTree(i === 2 ? new Vm() : vm, s, BLOCK, { contract: T, caller: 'chain:alice', entry: 'call', input: json('transfer', { to: 'chain:bob', amount: 1 }) }, 10_000_000n, limits);
    assert.ok(!isFailure(r));
    fuel.push(r.outcome.fuelUsed);
  }
  assert.equal(new Set(fuel).size, 1, `fuel ${fuel.join(', ')}`);
});

test('a compiled-cache miss compiles the stored instrumented bytes instead of metering again, with the same fuel', async () => {
  const s = new MemState();
  const T = 'chain:0000000001.app';
  const code = templateBytecode('token.wasm');
  s.deploy(T, code);
  const hash = sha3Hex0x(code);
  // As at deploy: the metered bytes go to the node's store (the plugin's index).
  const writer = new Vm();
  await writer.ready();
  const stored = new Map([[meteredKey(hash, limits), writer.meter(hash, code, limits)]]);
  const loads: string[] = [];
  const vm = new Vm();
  vm.useStore({ load: async (key) => (loads.push(key), stored.get(key)) });
  await call(vm, s, T, 'chain:alice', initializeInput({ name: 'A', symbol: 'A', decimals: 0, total_supply: 100 }, 0));
  const transfer = async (v: Vm): Promise<bigint> => {
    const r = await runTree(v, s, BLOCK, { contract: T, caller: 'chain:alice', entry: 'call', input: json('transfer', { to: 'chain:bob', amount: 1 }) }, 10_000_000n, limits);
    assert.ok(!isFailure(r), isFailure(r) ? r.trap.message : '');
    s.apply(r);
    return r.outcome.fuelUsed;
  };
  const first = await transfer(vm);
  // As after 64 other contracts ran, and after a restart: neither cache holds the module.
  vm.clearCompiled();
  vm.clearMetered();
  const again = await transfer(vm);
  assert.equal(vm.instrumentations, 0, 'no metering pass: the stored bytes were compiled');
  assert.deepEqual(loads, [meteredKey(hash, limits), meteredKey(hash, limits)]);
  // A node without the stored bytes (state-synced) meters once and charges the same fuel.
  const fresh = new Vm();
  const cold = await transfer(fresh);
  assert.equal(fresh.instrumentations, 1);
  fresh.clearCompiled();
  assert.equal(await transfer(fresh), cold);
  assert.equal(fresh.instrumentations, 1, 'kept in the LRU of instrumented bytes');
  assert.equal(again, first);
  assert.equal(cold, first);
  assert.deepEqual(stored.get(meteredKey(hash, limits))!.binary, fresh.meter(hash, code, limits).binary, 'metering is deterministic');
});

test('hostile contracts: an endless loop runs out of fuel, memory stops at the cap, recursion traps on the stack counter at a fixed fuel', async () => {
  const vm = new Vm();
  const s = new MemState();
  s.deploy('chain:000000000a.app', wat(HOSTILE_WAT.infiniteLoop));
  s.deploy('chain:000000000b.app', wat(HOSTILE_WAT.memoryGrowth));
  s.deploy('chain:000000000c.app', wat(HOSTILE_WAT.deepRecursion));
  const loop = await call(vm, s, 'chain:000000000a.app', 'x', new Uint8Array([1]), 1_000_000n);
  assert.ok(isFailure(loop) && loop.trap.kind === 'out_of_fuel' && loop.fuelUsed === 1_000_000n);
  const mem = await call(vm, s, 'chain:000000000b.app', 'x', new Uint8Array([1]));
  assert.ok(isFailure(mem) && mem.trap.kind === 'memory', isFailure(mem) ? mem.trap.message : 'no trap');
  const fuel: bigint[] = [];
  for (const v of [vm, new Vm()]) {
    const rec = await call(v, s, 'chain:000000000c.app', 'x', new Uint8Array([1]));
    assert.ok(isFailure(rec) && rec.trap.kind === 'stack', isFailure(rec) ? rec.trap.message : 'no trap');
    fuel.push(rec.fuelUsed);
  }
  assert.equal(fuel[0], fuel[1]);
});

test('memory.fill and memory.copy cost fuel per byte: a loop of 64 KiB fills cannot run at the price of a loop of additions', async () => {
  const vm = new Vm();
  const s = new MemState();
  const B = 'chain:000000000e.app';
  s.deploy(B, wat(HOSTILE_WAT.bulkMemory));
  const bytes = 16n * 2n * 65_536n; // input 1: 16 rounds of a 64 KiB fill and a 64 KiB copy
  const ok = await call(vm, s, B, 'x', new Uint8Array([1]), 10_000_000n);
  assert.ok(!isFailure(ok), isFailure(ok) ? ok.trap.message : '');
  assert.ok(ok.outcome.fuelUsed >= bytes * BULK_FUEL_PER_BYTE, `fuel ${ok.outcome.fuelUsed} for ${bytes} bytes filled and copied`);
  const heavy = await call(vm, s, B, 'x', new Uint8Array([255]), 10_000_000n);
  assert.ok(isFailure(heavy) && heavy.trap.kind === 'out_of_fuel' && heavy.fuelUsed === 10_000_000n, isFailure(heavy) ? heavy.trap.message : 'ran 255 MiB of bulk work on 10 000 000 fuel');
});

test('at the largest contract_max_stack governance may set, deep recursion traps on the counter, never on V8\'s own stack (whose depth depends on the node)', async () => {
  const spec = contractsPlugin.params!.find((p) => p.key === PARAMS.maxStack)!;
  const vm = new Vm();
  const s = new MemState();
  s.deploy('chain:00000000f0.app', wat(HOSTILE_WAT.tightRecursion));
  const r = await runTree(vm, s, BLOCK, { contract: 'chain:00000000f0.app', caller: 'x', entry: 'call', input: new Uint8Array([1]) }, 1_000_000_000n, { ...limits, maxStack: Number(spec.max) });
  assert.ok(isFailure(r) && r.trap.kind === 'stack' && /contract stack above/.test(r.trap.message), isFailure(r) ? r.trap.message : 'no trap');
});

test('deploy checks refuse floats, unknown imports, a start function and memory above the cap, as 400 invalid bytecode', async () => {
  const vm = new Vm();
  await vm.ready();
  const refused = (bytes: Uint8Array, re: RegExp) =>
    assert.throws(() => vm.prepare(sha3Hex0x(bytes), bytes, limits), (e: unknown) => isChainError(e) && e.status === 400 && re.test(e.message));
  refused(wat(HOSTILE_WAT.float), /floating-point/);
  refused(wat(HOSTILE_WAT.unknownImport), /env\.random_bytes is not part of the host API/);
  refused(wat('(module (memory 9) (func $s) (start $s))'), /start function/);
  refused(wat('(module (memory 9))'), /above the cap of 4/);
  refused(new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8]), /not a WebAssembly module/);
});

test('cross-contract calls: the callee sees the calling contract; the ninth level fails', async () => {
  const vm = new Vm();
  const s = new MemState();
  const R = 'chain:00000000aa.app';
  s.deploy(R, wat(HOSTILE_WAT.relay));
  const input = (n: number) => new Uint8Array([n, ...new TextEncoder().encode(R)]);
  const one = await call(vm, s, R, 'chain:user', input(1));
  assert.ok(!isFailure(one));
  assert.equal(text(one.outcome.returnData), R, 'level 2 sees level 1 as its caller');
  const top = await call(vm, s, R, 'chain:user', input(0));
  assert.ok(!isFailure(top) && text(top.outcome.returnData) === 'chain:user');
  const eight = await call(vm, s, R, 'chain:user', input(7));
  assert.ok(!isFailure(eight), 'eight levels run');
  const nine = await call(vm, s, R, 'chain:user', input(8));
  assert.ok(isFailure(nine) && nine.trap.kind === 'depth', isFailure(nine) ? nine.trap.message : 'no trap');
});

test('a first read of a state key costs the same whether it stopped a run (this thread) or waited for the main thread (a contract thread): reruns are not charged, and the key count is bounded', async () => {
  const vm = new Vm();
  const s = new MemState();
  s.deploy('chain:00000000d0.app', wat(HOSTILE_WAT.lateReads));
  const inThread = await call(vm, s, 'chain:00000000d0.app', 'x', new Uint8Array([1]), 50_000_000n);
  assert.ok(!isFailure(inThread), isFailure(inThread) ? inThread.trap.message : '');
  // Synchronous reads (as the contract thread gives them): one run, same fuel.
  const view = new TreeView(BLOCK, 'chain:00000000d0.app', (k) => s.kv.get(k) ?? null);
  const once = runOnce(vm, view, { contract: 'chain:00000000d0.app', caller: 'x', entry: 'call', input: new Uint8Array([1]) }, 50_000_000n, limits);
  assert.ok(!isFailure(once));
  assert.equal(once.outcome.fuelUsed, inThread.outcome.fuelUsed);
  // Sixteen distinct keys: sixteen first-read charges in that fuel.
  assert.ok(inThread.outcome.fuelUsed >= 16n * BigInt(HOST_FUEL.firstRead));
  const few = await runTree(vm, s, BLOCK, { contract: 'chain:00000000d0.app', caller: 'x', entry: 'call', input: new Uint8Array([1]) }, 50_000_000n, { ...limits, maxKeys: 8 });
  assert.ok(isFailure(few) && /more than 8 storage keys/.test(few.trap.message), isFailure(few) ? few.trap.message : 'no trap');
});

test('Binaryen\'s validator report goes into the 400 message, not into the node\'s stdout or stderr', async () => {
  const b = (await import('binaryen')).default;
  const m = new b.Module();
  m.setMemory(1, 1);
  m.addFunction('f', b.none, b.i64, [], m.i32.const(1));
  m.addFunctionExport('f', 'f');
  const bytes = m.emitBinary();
  m.dispose();
  const vm = new Vm();
  await vm.ready();
  const written: string[] = [];
  const out = process.stdout.write;
  const spy = (chunk: unknown): boolean => (written.push(String(chunk)), true);
  process.stdout.write = spy as typeof process.stdout.write;
  try {
    assert.throws(() => vm.prepare(sha3Hex0x(bytes), bytes, limits), (e: unknown) => isChainError(e) && e.status === 400 && /does not validate \(\[wasm-validator error/.test(e.message));
  } finally {
    process.stdout.write = out;
  }
  assert.deepEqual(written, []);
});

test('a trapped call is charged every charge it ran, calls and host calls in its loop included (each function meters a local copy of the count)', async () => {
  const vm = new Vm();
  const s = new MemState();
  const C = 'chain:00000000f1.app';
  // Input: [iterations, trap?]. Each iteration calls a contract function and a host function
  // (which charge the global count while the caller's copy waits), then the call ends or traps.
  s.deploy(C, wat(`(module
  (import "env" "block_height" (func $bh (result i64)))
  (memory (export "memory") 1)
  (func (export "alloc") (param i32) (result i32) (i32.const 1024))
  (func $f (result i32) (i32.const 7))
  (func (export "call") (param i32 i32) (local i32 i32)
    (local.set 3 (i32.load8_u (local.get 0)))
    (loop $l
      (drop (call $f))
      (drop (call $bh))
      (local.set 2 (i32.add (local.get 2) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get 2) (local.get 3))))
    (if (i32.load8_u offset=1 (local.get 0)) (then unreachable))))`));
  const fuelOf = async (n: number, trap: boolean): Promise<bigint> => {
    const r = await call(vm, s, C, 'chain:alice', new Uint8Array([n, trap ? 1 : 0]));
    assert.equal(isFailure(r), trap);
    if (isFailure(r)) assert.equal(r.trap.kind, 'trap');
    return isFailure(r) ? r.fuelUsed : r.outcome.fuelUsed;
  };
  const [one, two] = [await fuelOf(1, false), await fuelOf(2, false)];
  assert.ok(two - one > BigInt(HOST_FUEL.call), 'an iteration costs its host call');
  for (const n of [1, 2, 40]) {
    // The trap's arm charges a region and its `unreachable` before it traps: nothing else differs.
    assert.equal(await fuelOf(n, true), (await fuelOf(n, false)) + BigInt(INSTRUCTION_FUEL.region + INSTRUCTION_FUEL.base), `${n} iterations`);
  }
});
