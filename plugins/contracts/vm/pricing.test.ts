import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isChainError, NodeFault, sha3Hex0x } from '../../../kernel/sdk.js';
import { codeKey, contractCodec, contractKey, type ContractRecord } from '../store.js';
import { HOSTILE_WAT, wat } from '../testing/hostile.js';
import { Vm, type VmLimits } from './engine.js';
import { CHARGE_EXPORT, ENTRY_EXPORTS, FUEL_EXPORT, instrument, STACK_EXPORT } from './instrument.js';
import { GROW_FUEL, HOST_FUEL, INSTANCE_FUEL } from './pricing.js';
import { isFailure, runOnce, TreeView } from './runner.js';
import { checkCodeShape, MAX_CONTROL_DEPTH, MAX_OPERAND_DEPTH, MAX_TREE_DEPTH } from './shape.js';

/**
 * The fuel schedule's edges (issue 29 item 1): every contract level, every page and every first
 * read is paid before the host allocates or fetches it, running out is told from a contract's own
 * trap, a failed allocation is the node's fault and never the contract's outcome, and code nested
 * too deep for a parser's stack is refused on its bytes the same way everywhere.
 */
const limits: VmLimits = { maxPages: 16, maxStack: 4096, maxDepth: 8, maxKeys: 1024 };
const BLOCK = { height: 3, time: 1_700_000_000_000 };
const A = 'chain:00000000a1.app';

function state(contracts: Record<string, Uint8Array>): Map<string, Uint8Array> {
  const kv = new Map<string, Uint8Array>();
  for (const [address, bytes] of Object.entries(contracts)) {
    const code_hash = sha3Hex0x(bytes);
    const rec: ContractRecord = { address, owner: 'chain:owner', code_hash, name: '', description: '', template: null, decimals: 0, deploy_tx: '0x', created_height: 1, code_size: bytes.length };
    kv.set(contractKey(address), contractCodec.encode(rec));
    kv.set(codeKey(code_hash), bytes);
  }
  return kv;
}

function run(vm: Vm, kv: Map<string, Uint8Array>, input: number[], budget = 10n ** 10n) {
  const view = new TreeView(BLOCK, A, (k) => kv.get(k) ?? null);
  return runOnce(vm, view, { contract: A, caller: 'chain:caller', entry: 'call', input: new Uint8Array(input) }, budget, limits);
}

const fuelOf = (r: ReturnType<typeof run>): bigint => (isFailure(r) ? r.fuelUsed : r.outcome.fuelUsed);

test('a contract calling itself in a loop pays, per call, the call and a whole instantiation before any is made: n calls cost n times as much, and a budget stops the loop', async () => {
  const vm = new Vm();
  await vm.ready();
  const code = wat(HOSTILE_WAT.selfCalls);
  const kv = state({ [A]: code });
  const instance = BigInt(instrument(code, limits).instanceFuel);
  const none = run(vm, kv, [0]);
  const ten = run(vm, kv, [10]);
  const twenty = run(vm, kv, [20]);
  assert.ok(!isFailure(none) && !isFailure(ten) && !isFailure(twenty));
  const perCall = (fuelOf(twenty) - fuelOf(ten)) / 10n;
  assert.equal(fuelOf(ten) - fuelOf(none), 10n * perCall, 'every call costs the same');
  assert.ok(perCall >= instance + BigInt(HOST_FUEL.call + HOST_FUEL.contractCall), `a call costs ${perCall}, an instantiation alone ${instance}`);
  assert.ok(instance >= BigInt(INSTANCE_FUEL.base + INSTANCE_FUEL.perPage));
  // The attack's budget (a block's gas of it) buys a bounded number of instantiations.
  const budget = 200n * perCall;
  const attack = run(vm, kv, [255], budget);
  assert.ok(isFailure(attack) && attack.trap.kind === 'out_of_fuel');
  assert.equal(attack.fuelUsed, budget);
});

test('memory.grow is paid per call and per page before the host grows the memory; past the cap it traps, at the same fuel every time', async () => {
  const vm = new Vm();
  await vm.ready();
  const kv = state({ [A]: wat(HOSTILE_WAT.grower) });
  const zero = run(vm, kv, [0]);
  const three = run(vm, kv, [3]);
  assert.ok(!isFailure(zero) && !isFailure(three));
  // memory.grow(0) is a grow call too: the difference is the pages.
  assert.equal(fuelOf(three) - fuelOf(zero), BigInt(3 * GROW_FUEL.perPage));
  const past = run(vm, kv, [16]);
  assert.ok(isFailure(past) && past.trap.kind === 'memory', isFailure(past) ? past.trap.message : '');
  assert.equal(fuelOf(run(vm, kv, [16])), fuelOf(past));
  // Not enough fuel for the grow: out of fuel before anything is allocated.
  const poor = run(vm, kv, [3], fuelOf(three) - 1n);
  assert.ok(isFailure(poor) && poor.trap.kind === 'out_of_fuel');
});

test('running out of fuel and a contract\'s own unreachable are told apart by the counter, though both are `unreachable` in the metered code', async () => {
  const vm = new Vm();
  await vm.ready();
  const own = run(vm, state({ [A]: wat(HOSTILE_WAT.unreachable) }), [1]);
  assert.ok(isFailure(own) && own.trap.kind === 'trap' && /unreachable/.test(own.trap.message), isFailure(own) ? own.trap.message : '');
  assert.ok(own.fuelUsed > 0n && own.fuelUsed < 10n ** 10n);
  const loop = run(vm, state({ [A]: wat(HOSTILE_WAT.infiniteLoop) }), [1], 1_000_000n);
  assert.ok(isFailure(loop) && loop.trap.kind === 'out_of_fuel');
  assert.equal(loop.fuelUsed, 1_000_000n);
});

test('a host allocation that fails is a NodeFault, never a contract trap: the memory for a level, and a grow', async () => {
  const vm = new Vm();
  await vm.ready();
  const kv = state({ [A]: wat(HOSTILE_WAT.grower) });
  const Memory = WebAssembly.Memory;
  // A fresh VM has no memory in its pool: the first level allocates one.
  const failing = function (): never {
    throw new RangeError('WebAssembly.Memory(): could not allocate memory');
  } as unknown as typeof WebAssembly.Memory;
  (WebAssembly as { Memory: typeof WebAssembly.Memory }).Memory = failing;
  try {
    assert.throws(() => run(new Vm(), kv, [0]), (e: unknown) => e instanceof NodeFault && /allocating a contract memory/.test(e.message));
  } finally {
    (WebAssembly as { Memory: typeof WebAssembly.Memory }).Memory = Memory;
  }
  const grow = Memory.prototype.grow;
  Memory.prototype.grow = function (): number {
    throw new RangeError('WebAssembly.Memory.grow(): Unable to grow instance memory');
  };
  try {
    assert.throws(() => run(vm, kv, [2]), (e: unknown) => e instanceof NodeFault && /growing a contract's memory/.test(e.message));
  } finally {
    Memory.prototype.grow = grow;
  }
  assert.ok(!isFailure(run(vm, kv, [2])), 'the same call runs once the host can allocate');
});

test('instantiation is priced by the module\'s shape, and a metered module exports only what the host calls', async () => {
  const vm = new Vm();
  await vm.ready();
  const entries = '(func (export "alloc") (param i32) (result i32) (i32.const 0)) (func (export "call") (param i32 i32)) (func (export "extra"))';
  const few = instrument(wat(`(module (memory 1) ${entries})`), limits);
  const many = instrument(wat(`(module (memory 2) ${Array.from({ length: 50 }, (_, i) => `(global $g${i} (mut i32) (i32.const ${i}))`).join(' ')} (data (i32.const 0) "${'x'.repeat(1000)}") ${entries})`), limits);
  assert.equal(many.instanceFuel - few.instanceFuel, 50 * INSTANCE_FUEL.perGlobal + 1000 * INSTANCE_FUEL.perDataByte + INSTANCE_FUEL.perPage);
  assert.deepEqual(few.exports, ['alloc', 'call', 'extra'], 'the contract\'s own exports are listed');
  const exported = WebAssembly.Module.exports(new WebAssembly.Module(few.binary)).map((e) => e.name).sort();
  assert.deepEqual(exported, [CHARGE_EXPORT, FUEL_EXPORT, STACK_EXPORT, ...[...ENTRY_EXPORTS].filter((e) => e === 'alloc' || e === 'call')].sort());
});

/** `count` ifs nested around an expression `exprDepth` deep, left-deep (`c c add c add …`: two values on the stack) or right-deep (all the constants first). */
function nested(count: number, exprDepth: number, right = false): Uint8Array {
  const expr = right ? `${'(i32.add (i32.const 1) '.repeat(exprDepth)}(i32.const 1)${')'.repeat(exprDepth)}` : `${'(i32.add '.repeat(exprDepth)}(i32.const 1)${' (i32.const 1))'.repeat(exprDepth)}`;
  return wat(`(module (memory 1) (func (export "alloc") (param i32) (result i32) (i32.const 0)) (func (export "call") (param i32 i32) (local i32)
    ${'(if (local.get 0) (then '.repeat(count)}(local.set 2 ${expr})${'))'.repeat(count)}))`);
}

test('code nested past the limits is refused on its bytes (400), before any recursive parser sees it; at the limits it meters on this thread, whose stack is the smallest a node uses', async () => {
  const vm = new Vm();
  await vm.ready();
  const deepest = nested(500, 500);
  const shape = checkCodeShape(deepest);
  assert.ok(shape.controlDepth === 500 && shape.treeDepth > 1000 && shape.treeDepth <= MAX_TREE_DEPTH, JSON.stringify(shape));
  assert.ok(instrument(deepest, limits).binary.length > 0);
  const tooDeep = (bytes: Uint8Array, why: RegExp): void => assert.throws(() => instrument(bytes, limits), (e: unknown) => isChainError(e) && e.status === 400 && why.test(e.message));
  tooDeep(nested(MAX_CONTROL_DEPTH + 1, 1), /blocks nested more than 512 deep/);
  // A left-deep chain keeps two values on the stack but builds a tree as deep as it is long.
  tooDeep(nested(1, MAX_TREE_DEPTH + 10), /nested more than 1024 deep/);
  tooDeep(nested(1, MAX_OPERAND_DEPTH + 10, true), /more than 1024 values on its operand stack/);
});
