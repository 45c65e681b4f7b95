import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { HOST_FUNCTIONS, HOST_MODULE } from '../contracts/public.js';
import { UnreadableModule } from './scan.js';
import { analyzeStaticV1, judge, RULES, type StaticAnalysis } from './static-v1.js';
import { watBytes as wat } from '../../test/helpers/wat.js';


const analyse = (bytes: Uint8Array): StaticAnalysis => analyzeStaticV1(bytes, HOST_FUNCTIONS, HOST_MODULE);
const rules = (a: StaticAnalysis): string[] => a.violations.map((v) => v.rule);

const PRELUDE = `(memory (export "memory") 1)
  (func (export "alloc") (param i32) (result i32) (i32.const 1024))`;

/** §46's first vector: `call` is `loop { memory.grow(1); drop; br 0 }`, and a function calls itself. */
const HOSTILE = `(module ${PRELUDE}
  (func $self (param i32) (result i32) (call $self (local.get 0)))
  (func (export "call") (param i32 i32) (loop $l (drop (memory.grow (i32.const 1))) (br $l))))`;

test('§46 vectors: endless memory growth with a self-calling function 95, with br_if 55, an empty call 0', () => {
  const hostile = wat(HOSTILE);
  const a = analyse(hostile);
  assert.equal(a.risk_score, 95);
  assert.equal(a.model, 'static-v1');
  assert.deepEqual(rules(a), ['unbounded-loop', 'memory-grow-in-loop', 'recursion']);
  assert.deepEqual(a.violations.map((v) => [v.severity, v.weight]), [['high', 40], ['high', 40], ['medium', 15]]);
  // Each offset is the first occurrence's byte: the loop, memory.grow (0x40), the self-call (0x10).
  const [loop, grow, call] = a.violations.map((v) => v.offset!);
  assert.equal(hostile[loop!], 0x03);
  assert.equal(hostile[grow!], 0x40);
  assert.equal(hostile[call!], 0x10);

  const conditional = analyse(wat(HOSTILE.replace('(br $l)', '(br_if $l (i32.const 1))')));
  assert.equal(conditional.risk_score, 55);
  assert.deepEqual(rules(conditional), ['memory-grow-in-loop', 'recursion']);

  const empty = analyse(wat(`(module ${PRELUDE} (func (export "call") (param i32 i32)))`));
  assert.deepEqual(empty, { risk_score: 0, model: 'static-v1', violations: [] });
});

test('the shipped token template scores below the default threshold (80) on its own merits', () => {
  const token = readFileSync('dist/plugins/contracts/templates/token.wasm');
  const a = analyse(token);
  assert.ok(a.risk_score < 80, `token risk ${a.risk_score}`);
  assert.deepEqual(a, { risk_score: 0, model: 'static-v1', violations: [] }, 'the token uses the host API only, no loops around writes, no recursion');
});

test('a loop with a way out is not unbounded: a branch past it, a return, a br_table naming an outer label', () => {
  for (const body of ['(block $out (loop $l (br_if $out (i32.const 1)) (br $l)))', '(loop $l (if (i32.const 1) (then (return))) (br $l))', '(block $out (loop $l (br_table $l $out (i32.const 0)) ))']) {
    const a = analyse(wat(`(module ${PRELUDE} (func (export "call") (param i32 i32) ${body}))`));
    assert.ok(!rules(a).includes('unbounded-loop'), body);
  }
  // A branch to an outer loop from an inner one leaves only the inner loop: the outer one never ends.
  const nested = analyse(wat(`(module ${PRELUDE} (func (export "call") (param i32 i32) (loop $outer (loop $inner (br_if $outer (i32.const 1)) (br_if $inner (i32.const 1))) (br $outer))))`));
  assert.deepEqual(rules(nested), ['unbounded-loop']);
});

test('every rule of the table fires on a module made for it, and the sum is capped at 100', () => {
  const full = wat(`(module
    (import "env" "storage_write" (func $w (param i32 i32 i32 i32)))
    (import "env" "call_contract" (func $cc (param i32 i32 i32 i32 i32 i32) (result i32)))
    (import "env" "random_bytes" (func $rnd (param i32 i32)))
    (memory (export "memory") 17)
    (global $g (export "g") (mut i32) (i32.const 0))
    (table 1 funcref)
    (type $t (func))
    (func $start)
    (start $start)
    (func $a (call $b))
    (func $b (call $a) (call_indirect (type $t) (i32.const 0)))
    (func $f (drop (f64.const 1)))
    (func $loop (loop $l (call $w (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 0)) (drop (memory.grow (i32.const 1))) (br $l))))`);
  const a = analyse(full);
  assert.deepEqual(rules(a), RULES.map((r) => r.rule).filter((r) => r !== 'large-bytecode'));
  assert.equal(a.risk_score, 100);
  const sum = RULES.reduce((n, r) => n + r.weight, 0);
  assert.ok(sum > 100);
  // The size rule, alone, on a module's facts (a 70 000-byte module to parse is not needed for it).
  assert.equal(judge({ size: 70_000, floatAt: undefined, unknownImportAt: undefined, hasStart: false, exportsCall: true, unboundedLoopAt: undefined, memoryGrowInLoopAt: undefined, recursionAt: undefined, hostCallInLoopAt: undefined, initialPages: 1, indirectCallAt: undefined, callContractImportAt: undefined, exportsMutableGlobal: false }).risk_score, 5);
  // Imports carry their offset: each import entry begins with its module name's length.
  const unknown = a.violations.find((v) => v.rule === 'unknown-import')!;
  assert.equal(full[unknown.offset!], 3, 'the entry of env.random_bytes starts with the length of "env"');
  assert.equal(Buffer.from(full.subarray(unknown.offset! + 1, unknown.offset! + 4)).toString('latin1'), 'env');
});

test('the first entry of a section is found after its count: an import, a global (decisions.md §46 offset)', () => {
  // One import: the section's count byte (1) comes first, then the entry (3 "env" 3 "foo" …).
  const one = wat(`(module (import "env" "foo" (func)) ${PRELUDE} (func (export "call") (param i32 i32)))`);
  const v = analyse(one).violations.find((x) => x.rule === 'unknown-import')!;
  assert.deepEqual([...one.subarray(v.offset!, v.offset! + 8)], [3, 101, 110, 118, 3, 102, 111, 111], 'the entry, not the count before it');
  // A float global first in its section: the entry begins with its type (0x7d f32), not the count.
  const g = wat(`(module ${PRELUDE} (global f32 (f32.const 0)) (func (export "call") (param i32 i32)))`);
  const f = analyse(g).violations.find((x) => x.rule === 'float-instruction')!;
  assert.equal(g[f.offset!], 0x7d);
});

test('an import of a host name with another signature is unknown; host calls outside loops are fine', () => {
  const wrong = analyse(wat(`(module (import "env" "storage_write" (func $w (param i32 i32))) ${PRELUDE} (func (export "call") (param i32 i32) (call $w (i32.const 0) (i32.const 0))))`));
  assert.deepEqual(rules(wrong), ['unknown-import']);
});

test('bytes that are not a module are UnreadableModule, never another error', () => {
  assert.throws(() => analyse(new Uint8Array([0, 1, 2, 3])), UnreadableModule);
  const token = readFileSync('dist/plugins/contracts/templates/token.wasm');
  assert.throws(() => analyse(token.subarray(0, token.length - 7)), UnreadableModule);
});

/** A function body of statements that are valid wherever they stand (folded WAT, relative labels). */
function statements(depth: number, size: number, rnd: fc.Arbitrary<number>): fc.Arbitrary<string> {
  const leaf = fc.oneof(
    fc.constant('(nop)'),
    fc.constant('(drop (memory.grow (i32.const 1)))'),
    fc.constant('(call $f0 (i32.const 0))'),
    fc.constant('(call $f1 (i32.const 0))'),
    fc.constant('(call $w (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 0))'),
    fc.constant('(call_indirect (type $t) (i32.const 0) (i32.const 0))'),
    fc.constant('(return)'),
    rnd.map((n) => `(br ${n % (depth + 1)})`),
    rnd.map((n) => `(br_if ${n % (depth + 1)} (i32.const 1))`),
  );
  if (size <= 0) return fc.array(leaf, { maxLength: 3 }).map((xs) => xs.join(' '));
  const inner = statements(depth + 1, size - 1, rnd);
  const item = fc.oneof(leaf, inner.map((b) => `(block ${b})`), inner.map((b) => `(loop ${b})`), inner.map((b) => `(if (i32.const 1) (then ${b}))`));
  return fc.array(item, { maxLength: 4 }).map((xs) => xs.join(' '));
}

test('property: generated modules analyse without throwing, the same answer twice, risk within 0–100', () => {
  const body = statements(0, 3, fc.nat(7));
  fc.assert(
    fc.property(body, body, fc.boolean(), (a, b, exportCall) => {
      const bytes = wat(`(module
        (import "env" "storage_write" (func $w (param i32 i32 i32 i32)))
        ${PRELUDE}
        (table 1 funcref)
        (type $t (func (param i32)))
        (func $f0 (param i32) ${a})
        (func $f1 ${exportCall ? '(export "call")' : ''} (param i32) ${b}))`);
      const first = analyse(bytes);
      assert.deepEqual(analyse(bytes.slice()), first);
      assert.ok(first.risk_score >= 0 && first.risk_score <= 100 && Number.isInteger(first.risk_score));
      assert.equal(first.risk_score, Math.min(100, first.violations.reduce((n, v) => n + v.weight, 0)));
    }),
    { seed: 46, numRuns: 300 },
  );
});

test('property: any change of bytes of the token either analyses the same twice or is UnreadableModule', () => {
  const token = readFileSync('dist/plugins/contracts/templates/token.wasm');
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.nat(token.length - 1), fc.nat(255)), { minLength: 1, maxLength: 8 }), (edits) => {
      const bytes = new Uint8Array(token);
      for (const [i, v] of edits) bytes[i] = v;
      let first: StaticAnalysis | undefined;
      try {
        first = analyse(bytes);
      } catch (err) {
        assert.ok(err instanceof UnreadableModule, String(err));
        return;
      }
      assert.deepEqual(analyse(bytes), first);
    }),
    { seed: 47, numRuns: 500 },
  );
});
