import binaryen from 'binaryen';

/**
 * Hostile contracts written in WAT for the tests (Binaryen parses the text; nothing is encoded
 * by hand). Each exports `alloc` and `call` as the host expects.
 */
const PRELUDE = `
  (memory (export "memory") 1)
  (func (export "alloc") (param i32) (result i32) (i32.const 1024))`;

export const HOSTILE_WAT = {
  /** Writes 8 KiB (zeros) under its storage key `big`: state growth a call's storage fee must price. */
  store8KiB: `(module
  (import "env" "storage_write" (func $w (param i32 i32 i32 i32)))
  ${PRELUDE}
  (data (i32.const 0) "big")
  (func (export "call") (param i32 i32) (call $w (i32.const 0) (i32.const 3) (i32.const 16) (i32.const 8192))))`,
  /** Loops forever: must run out of fuel. */
  infiniteLoop: `(module ${PRELUDE}
  (func (export "call") (param i32 i32) (loop $l (br $l))))`,
  /** Grows memory one page at a time until the cap stops it. */
  memoryGrowth: `(module ${PRELUDE}
  (func (export "call") (param i32 i32) (loop $l (drop (memory.grow (i32.const 1))) (br $l))))`,
  /** Recurses without end: must trap on the stack counter at the same fuel everywhere. */
  deepRecursion: `(module ${PRELUDE}
  (func $r (param i32) (result i32) (i32.add (call $r (i32.add (local.get 0) (i32.const 1))) (i32.const 1)))
  (func (export "call") (param i32 i32) (drop (call $r (i32.const 0)))))`,
  /** Recurses without end through a function of stack weight 1 (no params, no locals): the most frames per unit of the counter. */
  tightRecursion: `(module ${PRELUDE}
  (global $g (mut i32) (i32.const 0))
  (func $r (result i64) (global.set $g (i32.add (global.get $g) (i32.const 1))) (i64.add (call $r) (i64.const 1)))
  (func (export "call") (param i32 i32) (drop (call $r))))`,
  /** Uses a float instruction: refused at deploy. */
  float: `(module ${PRELUDE}
  (func (export "call") (param i32 i32) (drop (f64.add (f64.const 1.5) (f64.const 2.25)))))`,
  /** Imports something that is not the host API: refused at deploy. */
  unknownImport: `(module
  (import "env" "random_bytes" (func $rnd (param i32 i32)))
  ${PRELUDE}
  (func (export "call") (param i32 i32) (call $rnd (i32.const 0) (i32.const 32))))`,
  /** A CPU-heavy loop of integer work, `n` iterations read from the first byte of the input × 65536 (benchmarks). */
  cpuHeavy: `(module ${PRELUDE}
  (func (export "call") (param i32 i32) (local i32 i32 i64)
    (local.set 3 (i32.mul (i32.load8_u (local.get 0)) (i32.const 65536)))
    (loop $l
      (local.set 4 (i64.add (i64.mul (local.get 4) (i64.const 6364136223846793005)) (i64.const 1442695040888963407)))
      (local.set 2 (i32.add (local.get 2) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get 2) (local.get 3))))
    (i64.store (i32.const 0) (local.get 4))))`,
  /**
   * Relay: input is one byte n, then a contract address. n = 0: returns its caller; else calls the
   * address with n - 1 and returns what it answered (n + 1 contract levels in all).
   */
  relay: `(module
  (import "env" "call_contract" (func $cc (param i32 i32 i32 i32 i32 i32) (result i32)))
  (import "env" "get_caller" (func $gc (param i32 i32) (result i32)))
  (import "env" "set_return" (func $ret (param i32 i32)))
  ${PRELUDE}
  (func (export "call") (param $p i32) (param $len i32) (local $n i32) (local $r i32)
    (local.set $n (i32.load8_u (local.get $p)))
    (if (i32.eqz (local.get $n))
      (then
        (local.set $r (call $gc (i32.const 4096) (i32.const 4096)))
        (call $ret (i32.const 4096) (local.get $r))
        (return)))
    (i32.store8 (local.get $p) (i32.sub (local.get $n) (i32.const 1)))
    (local.set $r (call $cc (i32.add (local.get $p) (i32.const 1)) (i32.sub (local.get $len) (i32.const 1)) (local.get $p) (local.get $len) (i32.const 4096) (i32.const 4096)))
    (call $ret (i32.const 4096) (local.get $r))))`,
  /** (input byte × 16) rounds of a 64 KiB memory.fill and a 64 KiB memory.copy: bulk work must cost per byte. */
  bulkMemory: `(module ${PRELUDE}
  (func (export "call") (param i32 i32) (local i32 i32)
    (local.set 3 (i32.mul (i32.load8_u (local.get 0)) (i32.const 16)))
    (loop $l
      (memory.fill (i32.const 0) (i32.const 7) (i32.const 65536))
      (memory.copy (i32.const 0) (i32.const 0) (i32.const 65536))
      (local.set 2 (i32.add (local.get 2) (i32.const 1)))
      (br_if $l (i32.lt_u (local.get 2) (local.get 3))))))`,
  /** Burns (input byte × 4096) loop iterations, then reads 16 distinct storage keys: reads placed late. */
  lateReads: `(module
  (import "env" "storage_read" (func $read (param i32 i32 i32 i32) (result i32)))
  ${PRELUDE}
  (func (export "call") (param i32 i32) (local i32 i32)
    (local.set 3 (i32.mul (i32.load8_u (local.get 0)) (i32.const 4096)))
    (loop $burn
      (local.set 2 (i32.add (local.get 2) (i32.const 1)))
      (br_if $burn (i32.lt_u (local.get 2) (local.get 3))))
    (local.set 2 (i32.const 0))
    (loop $reads
      (i32.store8 (i32.const 0) (local.get 2))
      (drop (call $read (i32.const 0) (i32.const 1) (i32.const 64) (i32.const 64)))
      (local.set 2 (i32.add (local.get 2) (i32.const 1)))
      (br_if $reads (i32.lt_u (local.get 2) (i32.const 16))))))`,
  /**
   * The attack of issue 29 item 1: calls itself (input byte) n times in a loop, each call a new
   * contract level with its own instance and memory; a call with empty input returns at once.
   */
  selfCalls: `(module
  (import "env" "call_contract" (func $cc (param i32 i32 i32 i32 i32 i32) (result i32)))
  (import "env" "get_self" (func $self (param i32 i32) (result i32)))
  ${PRELUDE}
  (func (export "call") (param $p i32) (param $len i32) (local $n i32) (local $i i32) (local $a i32)
    (if (i32.eqz (local.get $len)) (then (return)))
    (local.set $n (i32.load8_u (local.get $p)))
    (local.set $a (call $self (i32.const 2048) (i32.const 64)))
    (block $done (loop $l
      (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
      (drop (call $cc (i32.const 2048) (local.get $a) (i32.const 0) (i32.const 0) (i32.const 4096) (i32.const 0)))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br $l)))))`,
  /** Grows its memory by the input byte's pages, then writes to the last byte it has. */
  grower: `(module ${PRELUDE}
  (func (export "call") (param $p i32) (param $len i32) (local $old i32)
    (local.set $old (memory.grow (i32.load8_u (local.get $p))))
    (i32.store8 (i32.sub (i32.mul (memory.size) (i32.const 65536)) (i32.const 1)) (i32.const 7))))`,
  /** Traps with its own unreachable at once (fuel left): a trap, not running out of fuel. */
  unreachable: `(module ${PRELUDE}
  (func (export "call") (param i32 i32) (unreachable)))`,
} as const;

/** A WAT module as bytecode (with the features contracts may use, so passive data keeps its data count). */
export function wat(text: string): Uint8Array {
  const m = binaryen.parseText(text);
  try {
    m.setFeatures(binaryen.Features.MutableGlobals | binaryen.Features.SignExt | binaryen.Features.BulkMemory | binaryen.Features.BulkMemoryOpt);
    return m.emitBinary();
  } finally {
    m.dispose();
  }
}
