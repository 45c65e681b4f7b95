import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sha3Hex0x } from '../../../kernel/sdk.js';
import { codeKey, contractCodec, contractKey, type ContractRecord } from '../store.js';
import { wat } from '../testing/hostile.js';
import { Vm, type VmLimits } from './engine.js';
import { INSTRUCTION_FUEL } from './pricing.js';
import { isFailure, runOnce, TreeView } from './runner.js';

/**
 * The charges the metering pass injects, class by class (pricing.ts INSTRUCTION_FUEL): two
 * contracts whose `call` differs in one instruction differ in fuel by exactly the difference of
 * their prices, since every charge is summed into the region that holds the instruction.
 */
const limits: VmLimits = { maxPages: 4, maxStack: 4096, maxDepth: 8, maxKeys: 1024 };
const A = 'chain:00000000a1.app';
const W = INSTRUCTION_FUEL;
const vm = new Vm();

/** Fuel of one `call` whose body is `body` (locals: 2 = 7 and 3 = 3, i32; 4 = 12345 and 5 = 3, i64). */
async function fuelOf(body: string): Promise<bigint> {
  await vm.ready();
  const bytes = wat(`(module (memory (export "memory") 1) (func (export "alloc") (param i32) (result i32) (i32.const 1024))
    (func (export "call") (param i32 i32) (local i32 i32 i64 i64)
      (local.set 2 (i32.const 7)) (local.set 3 (i32.const 3)) (local.set 4 (i64.const 12345)) (local.set 5 (i64.const 3))
      ${body}))`);
  const code_hash = sha3Hex0x(bytes);
  const rec: ContractRecord = { address: A, owner: 'chain:owner', code_hash, name: '', description: '', template: null, decimals: 0, deploy_tx: '0x', created_height: 1, code_size: bytes.length };
  const kv = new Map<string, Uint8Array>([[contractKey(A), contractCodec.encode(rec)], [codeKey(code_hash), bytes]]);
  const r = runOnce(vm, new TreeView({ height: 1, time: 0 }, A, (k) => kv.get(k) ?? null), { contract: A, caller: 'chain:caller', entry: 'call', input: new Uint8Array(0) }, 10_000_000n, limits);
  assert.ok(!isFailure(r), isFailure(r) ? r.trap.message : '');
  return r.outcome.fuelUsed;
}

/** How much more `body` costs than `reference`, the same but for one instruction (both take the same branches). */
const extra = async (body: string, reference: string): Promise<number> => Number((await fuelOf(body)) - (await fuelOf(reference)));

test('i32 division and remainder cost divRem, i64 ones divRem64', async () => {
  assert.equal(await extra('(drop (i32.div_u (local.get 2) (local.get 3)))', '(drop (i32.add (local.get 2) (local.get 3)))'), W.divRem - W.base);
  assert.equal(await extra('(drop (i32.rem_s (local.get 2) (local.get 3)))', '(drop (i32.add (local.get 2) (local.get 3)))'), W.divRem - W.base);
  assert.equal(await extra('(drop (i64.div_s (local.get 4) (local.get 5)))', '(drop (i64.add (local.get 4) (local.get 5)))'), W.divRem64 - W.base);
  assert.equal(await extra('(drop (i64.rem_u (local.get 4) (local.get 5)))', '(drop (i64.add (local.get 4) (local.get 5)))'), W.divRem64 - W.base);
  assert.ok(W.divRem64 > W.divRem);
});

test('a compare or eqz whose result is a value costs compare, i32 and i64 alike', async () => {
  assert.equal(await extra('(local.set 2 (i32.lt_u (local.get 2) (local.get 3)))', '(local.set 2 (i32.add (local.get 2) (local.get 3)))'), W.compare - W.base);
  assert.equal(await extra('(local.set 2 (i64.ge_s (local.get 4) (local.get 5)))', '(local.set 2 (i32.wrap_i64 (i64.add (local.get 4) (local.get 5))))'), W.compare - 2 * W.base);
  assert.equal(await extra('(local.set 2 (i32.eqz (local.get 2)))', '(local.set 2 (i32.clz (local.get 2)))'), W.compare - W.base);
  assert.equal(await extra('(local.set 2 (i64.eqz (local.get 4)))', '(local.set 2 (i32.wrap_i64 (local.get 4)))'), W.compare - W.base);
  // Inside another expression the compare is a value, even under a branch.
  assert.equal(await extra('(if (i32.and (i32.ne (local.get 2) (local.get 3)) (i32.const 1)) (then (nop)))', '(if (i32.and (i32.or (local.get 2) (local.get 3)) (i32.const 1)) (then (nop)))'), W.compare - W.base);
});

test('an i32 compare or i32.eqz that is directly the condition of if or br_if costs base (the jump fuses it); an i64 one costs compare', async () => {
  assert.equal(await extra('(if (i32.ne (local.get 2) (local.get 3)) (then (nop)))', '(if (i32.add (local.get 2) (local.get 3)) (then (nop)))'), 0);
  assert.equal(await extra('(block (br_if 0 (i32.eqz (local.get 3))))', '(block (br_if 0 (i32.clz (local.get 3))))'), 0);
  assert.equal(await extra('(block (br_if 0 (i32.gt_s (local.get 2) (local.get 3))))', '(block (br_if 0 (i32.add (local.get 2) (local.get 3))))'), 0);
  assert.equal(await extra('(if (i64.gt_u (local.get 4) (local.get 5)) (then (nop)))', '(if (i32.wrap_i64 (i64.add (local.get 4) (local.get 5))) (then (nop)))'), W.compare - 2 * W.base);
  assert.equal(await extra('(block (br_if 0 (i64.eqz (local.get 4))))', '(block (br_if 0 (i32.wrap_i64 (local.get 4))))'), W.compare - W.base);
});

test('select costs select', async () => {
  // select(a, b, c) against add(a, add(b, c)): the same three operands, one instruction against two.
  assert.equal(await extra('(local.set 2 (select (local.get 2) (local.get 3) (local.get 2)))', '(local.set 2 (i32.add (local.get 2) (i32.add (local.get 3) (local.get 2))))'), W.select - 2 * W.base);
  assert.equal(await extra('(local.set 4 (select (local.get 4) (local.get 5) (local.get 2)))', '(local.set 4 (i64.add (local.get 4) (i64.add (local.get 5) (i64.extend_i32_u (local.get 2)))))'), W.select - 3 * W.base);
});

test('every region charges what it holds: a body of known instructions costs its sum, a region per entry', async () => {
  const empty = await fuelOf('');
  // local.set (1) + select (select) + 2 local.get + eqz (compare) + lt_u (compare) + 2 local.get.
  assert.equal(await fuelOf('(local.set 2 (select (local.get 3) (local.get 2) (i32.eqz (i32.lt_u (local.get 2) (local.get 3)))))') - empty, BigInt(W.select + 2 * W.compare + 5 * W.base));
  // A block: its region, its br_if (base) with a fused condition (base) and two operands.
  assert.equal(await fuelOf('(block (br_if 0 (i32.lt_u (local.get 2) (local.get 3))))') - empty, BigInt(W.region + 4 * W.base));
});
