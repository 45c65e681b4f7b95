/**
 * Contracts that each spend their whole fuel budget on one class of work (bench/contracts-calibration.bench.ts):
 * an instruction class in a loop, a host function called again and again, or instantiations of a
 * callee of a given shape. Each `call` loops until it runs out of fuel, so timing a run with a
 * known budget gives nanoseconds per fuel unit for that class, and a run with a block's budget is
 * "a block at max_block_gas of that contract".
 */

import { templateBytecode } from '../plugins/contracts/templates.js';
import { wat } from '../plugins/contracts/testing/hostile.js';

const PRELUDE = `
  (memory (export "memory") 1)
  (func (export "alloc") (param i32) (result i32) (i32.const 1024))`;

/**
 * A contract whose `call` runs `body` 16 times per iteration of a loop that never ends in
 * practice (locals: 2, 3 i32; 4, 5 i64). The loop's condition reads every local, so V8 cannot
 * drop the work as dead code.
 */
function looping(body: string, extra = '', imports = '', prelude = PRELUDE): string {
  return `(module ${imports} ${prelude} ${extra}
  (func (export "call") (param i32 i32) (local i32 i32 i64 i64)
    (local.set 2 (i32.const 1)) (local.set 3 (i32.const 3)) (local.set 4 (i64.const 12345)) (local.set 5 (i64.const 3))
    (loop $l ${body.repeat(16)}
      (br_if $l (i32.ne (i32.add (i32.add (local.get 2) (local.get 3)) (i32.wrap_i64 (i64.add (local.get 4) (local.get 5)))) (i32.const 0x7ffffff1))))))`;
}

const hostImport = (name: string, sig: string): string => `(import "env" "${name}" (func $${name} ${sig}))`;

export interface Probe {
  /** Class name as the calibration table prints it. */
  readonly name: string;
  /** What the class is: an instruction class, a host function, an instantiation cost, or a deploy's metering. */
  readonly kind: 'instruction' | 'host' | 'instance' | 'deploy';
  /** The contract, in WAT. */
  readonly wat: string;
  /** Other contracts it calls (address → WAT); the probe's own address is `PROBE_ADDRESS`. */
  readonly callees?: Readonly<Record<string, string>>;
  /** Storage the probe reads (hex key → value), in the probe's namespace. */
  readonly storage?: ReadonlyArray<readonly [Uint8Array, Uint8Array]>;
  /** Needs the contract thread (its state reads wait on the main thread). */
  readonly thread?: boolean;
}

export const PROBE_ADDRESS = 'chain:00000000a0.app';
export const CALLEE_ADDRESS = 'chain:00000000b0.app';

/** A callee whose `call` returns at once: what an instantiation of its shape costs. */
function callee(shape: { functions?: number; globals?: number; table?: number; data?: number; pages?: number }): string {
  const pages = shape.pages ?? 1;
  let s = `(module (memory (export "memory") ${pages}) (func (export "alloc") (param i32) (result i32) (i32.const 1024)) (func (export "call") (param i32 i32))\n`;
  for (let i = 0; i < (shape.globals ?? 0); i++) s += `(global $g${i} (mut i32) (i32.const ${i}))\n`;
  const fns = Math.max(shape.functions ?? 0, shape.table ?? 0);
  for (let i = 0; i < fns; i++) s += `(func $f${i} (result i32) (i32.const ${i}))\n`;
  if (shape.table) s += `(table ${shape.table} funcref) (elem (i32.const 0) ${Array.from({ length: shape.table }, (_, i) => `$f${i}`).join(' ')})\n`;
  if (shape.data) s += `(data (i32.const 0) "${'a'.repeat(shape.data)}")\n`;
  return `${s})`;
}

/** A caller that calls `addr` again and again. */
export function caller(addr = CALLEE_ADDRESS): string {
  return `(module ${hostImport('call_contract', '(param i32 i32 i32 i32 i32 i32) (result i32)')} ${PRELUDE}
  (data (i32.const 0) "${addr}")
  (func (export "call") (param i32 i32)
    (loop $l (drop (call $call_contract (i32.const 0) (i32.const ${addr.length}) (i32.const 64) (i32.const 0) (i32.const 128) (i32.const 64))) (br $l))))`;
}

const CALL_FNS = `
  (type $t (func (param i32) (result i32)))
  (func $id (param i32) (result i32) (local.get 0))
  (func $w (param i32 i32 i32 i32) (result i32) (local i32 i32 i32 i32) (local.get 0))
  (table 2 funcref) (elem (i32.const 0) $id $w)`;

export const PROBES: readonly Probe[] = [
  { name: 'i32 add (local, const)', kind: 'instruction', wat: looping('(local.set 2 (i32.add (local.get 2) (local.get 3)))') },
  { name: 'i64 mul-add chain', kind: 'instruction', wat: looping('(local.set 4 (i64.add (i64.mul (local.get 4) (i64.const 6364136223846793005)) (i64.const 1442695040888963407)))') },
  { name: 'compare, select, eqz', kind: 'instruction', wat: looping('(local.set 2 (select (local.get 3) (local.get 2) (i32.eqz (i32.lt_u (local.get 2) (local.get 3)))))') },
  { name: 'conversions, sign extension', kind: 'instruction', wat: looping('(local.set 4 (i64.extend_i32_s (i32.wrap_i64 (i64.extend16_s (local.get 4)))))') },
  { name: 'i32 div/rem', kind: 'instruction', wat: looping('(local.set 2 (i32.add (i32.div_u (i32.xor (local.get 2) (i32.const 0x7fffffff)) (i32.or (local.get 3) (i32.const 3))) (i32.rem_u (local.get 2) (i32.or (local.get 3) (i32.const 5)))))') },
  { name: 'i64 div/rem', kind: 'instruction', wat: looping('(local.set 4 (i64.add (i64.div_u (i64.xor (local.get 4) (i64.const 0x7fffffffffffffff)) (i64.or (local.get 5) (i64.const 3))) (i64.rem_s (local.get 4) (i64.or (local.get 5) (i64.const 5)))))') },
  { name: 'load/store', kind: 'instruction', wat: looping('(i64.store (i32.and (local.get 2) (i32.const 0xfff0)) (i64.add (i64.load (i32.and (local.get 3) (i32.const 0xfff0))) (i64.const 1)))') },
  { name: 'global get/set', kind: 'instruction', wat: looping('(global.set $g (i32.add (global.get $g) (local.get 3))) (local.set 2 (global.get $g))', '(global $g (mut i32) (i32.const 0))') },
  { name: 'block and br_if (regions)', kind: 'instruction', wat: looping('(block (br_if 0 (local.get 2)))') },
  { name: 'if/else (regions)', kind: 'instruction', wat: looping('(if (local.get 2) (then (local.set 3 (i32.const 1))) (else (local.set 3 (i32.const 2))))') },
  { name: 'br_table', kind: 'instruction', wat: looping('(block (block (block (br_table 0 1 2 (i32.and (local.get 2) (i32.const 3))))))') },
  { name: 'tight loop (br only)', kind: 'instruction', wat: `(module ${PRELUDE} (func (export "call") (param i32 i32) (loop $l (br $l))))` },
  { name: 'call (no locals)', kind: 'instruction', wat: looping('(local.set 2 (call $id (local.get 2)))', CALL_FNS) },
  { name: 'call (4 params, 4 locals)', kind: 'instruction', wat: looping('(local.set 2 (call $w (local.get 2) (local.get 3) (local.get 2) (local.get 3)))', CALL_FNS) },
  { name: 'call_indirect', kind: 'instruction', wat: looping('(local.set 2 (call_indirect (type $t) (local.get 2) (i32.const 0)))', CALL_FNS) },
  { name: 'memory.size', kind: 'instruction', wat: looping('(local.set 2 (i32.add (local.get 2) (memory.size)))') },
  { name: 'memory.fill 64 KiB', kind: 'instruction', wat: looping('(memory.fill (i32.const 0) (local.get 2) (i32.const 65536))') },
  { name: 'memory.copy 32 KiB', kind: 'instruction', wat: looping('(memory.copy (i32.and (local.get 2) (i32.const 8)) (i32.const 32768) (i32.const 32760))') },
  { name: 'memory.init 4 KiB', kind: 'instruction', wat: looping('(memory.init $d (i32.const 0) (i32.const 0) (i32.const 4096))', `(data $d "${'x'.repeat(4096)}")`) },
  { name: 'get_caller', kind: 'host', wat: looping('(drop (call $get_caller (i32.const 0) (i32.const 128)))', '', hostImport('get_caller', '(param i32 i32) (result i32)')) },
  { name: 'get_self', kind: 'host', wat: looping('(drop (call $get_self (i32.const 0) (i32.const 128)))', '', hostImport('get_self', '(param i32 i32) (result i32)')) },
  { name: 'block_height', kind: 'host', wat: looping('(local.set 4 (call $block_height))', '', hostImport('block_height', '(result i64)')) },
  { name: 'block_time', kind: 'host', wat: looping('(local.set 4 (call $block_time))', '', hostImport('block_time', '(result i64)')) },
  { name: 'set_return 32 B', kind: 'host', wat: looping('(call $set_return (i32.const 0) (i32.const 32))', '', hostImport('set_return', '(param i32 i32)')) },
  { name: 'set_return 16 KiB', kind: 'host', wat: looping('(call $set_return (i32.const 0) (i32.const 16384))', '', hostImport('set_return', '(param i32 i32)')) },
  { name: 'storage_read (read before) 32 B', kind: 'host', wat: looping('(drop (call $storage_read (i32.const 0) (i32.const 4) (i32.const 64) (i32.const 64)))', '', hostImport('storage_read', '(param i32 i32 i32 i32) (result i32)')), storage: [[new Uint8Array(4), new Uint8Array(32).fill(7)]] },
  { name: 'storage_read (read before) 16 KiB', kind: 'host', wat: looping('(drop (call $storage_read (i32.const 0) (i32.const 4) (i32.const 64) (i32.const 16384)))', '', hostImport('storage_read', '(param i32 i32 i32 i32) (result i32)')), storage: [[new Uint8Array(4), new Uint8Array(16384).fill(7)]] },
  {
    name: 'storage_read, first read of a key',
    kind: 'host',
    thread: true,
    wat: looping('(i32.store (i32.const 0) (local.tee 2 (i32.add (local.get 2) (i32.const 1)))) (drop (call $storage_read (i32.const 0) (i32.const 4) (i32.const 64) (i32.const 64)))', '', hostImport('storage_read', '(param i32 i32 i32 i32) (result i32)')),
  },
  { name: 'storage_write 32 B', kind: 'host', wat: looping('(call $storage_write (i32.const 0) (i32.const 4) (i32.const 64) (i32.const 32))', '', hostImport('storage_write', '(param i32 i32 i32 i32)')) },
  { name: 'storage_write 16 KiB', kind: 'host', wat: looping('(call $storage_write (i32.const 0) (i32.const 4) (i32.const 64) (i32.const 16384))', '', hostImport('storage_write', '(param i32 i32 i32 i32)')) },
  { name: 'storage_delete', kind: 'host', wat: looping('(call $storage_delete (i32.const 0) (i32.const 4))', '', hostImport('storage_delete', '(param i32 i32)')) },
  { name: 'emit_event 32 B', kind: 'host', wat: looping('(call $emit_event (i32.const 0) (i32.const 8) (i32.const 64) (i32.const 32))', '', hostImport('emit_event', '(param i32 i32 i32 i32)')) },
  { name: 'emit_event 4 KiB', kind: 'host', wat: looping('(call $emit_event (i32.const 0) (i32.const 8) (i32.const 64) (i32.const 4096))', '', hostImport('emit_event', '(param i32 i32 i32 i32)')) },
  { name: 'call_contract (small callee)', kind: 'host', wat: caller(), callees: { [CALLEE_ADDRESS]: callee({}) } },
  { name: 'instantiate: 1 000 functions', kind: 'instance', wat: caller(), callees: { [CALLEE_ADDRESS]: callee({ functions: 1000 }) } },
  { name: 'instantiate: 2 000 globals', kind: 'instance', wat: caller(), callees: { [CALLEE_ADDRESS]: callee({ globals: 2000 }) } },
  { name: 'instantiate: table of 4 096 elements', kind: 'instance', wat: caller(), callees: { [CALLEE_ADDRESS]: callee({ table: 4096 }) } },
  { name: 'instantiate: 60 KB of data', kind: 'instance', wat: caller(), callees: { [CALLEE_ADDRESS]: callee({ data: 60_000 }) } },
  { name: 'instantiate: 16 initial pages', kind: 'instance', wat: caller(), callees: { [CALLEE_ADDRESS]: callee({ pages: 16 }) } },
  {
    name: 'memory.grow (1 page per callee)',
    kind: 'instance',
    wat: caller(),
    callees: { [CALLEE_ADDRESS]: `(module (memory (export "memory") 1) (func (export "alloc") (param i32) (result i32) (i32.const 1024)) (func (export "call") (param i32 i32) (drop (memory.grow (i32.const 1))) (i32.store (i32.const 65536) (i32.const 1))))` },
  },
  {
    name: 'memory.grow (15 pages per callee)',
    kind: 'instance',
    wat: caller(),
    callees: { [CALLEE_ADDRESS]: `(module (memory (export "memory") 1) (func (export "alloc") (param i32) (result i32) (i32.const 1024)) (func (export "call") (param i32 i32) (drop (memory.grow (i32.const 15))) (i32.store (i32.const 983040) (i32.const 1))))` },
  },
];

const DEPLOY_HEAD = '(module (memory 1) (func (export "alloc") (param i32) (result i32) (i32.const 0)) (func (export "call") (param i32 i32))\n';

/** Modules whose deploy costs the metering pass what it can: by function, by byte of code, by byte of data. */
export const DEPLOY_PROBES: ReadonlyArray<{ readonly name: string; readonly bytes: () => Uint8Array }> = [
  { name: 'the token template', bytes: () => templateBytecode('token.wasm') },
  { name: 'one long function', bytes: () => wat(`${DEPLOY_HEAD}(func $f (local i32)\n${'(local.set 0 (i32.add (local.get 0) (i32.const 1)))\n'.repeat(12_000)}))`) },
  { name: '4 000 tiny functions', bytes: () => wat(`${DEPLOY_HEAD}${Array.from({ length: 4000 }, (_, i) => `(func $f${i} (result i32) (i32.const ${i}))`).join('\n')})`) },
  { name: '4 000 ifs', bytes: () => wat(`${DEPLOY_HEAD}(func $f (local i32)\n${'(if (local.get 0) (then (local.set 0 (i32.const 1))) (else (local.set 0 (i32.const 2))))\n'.repeat(4000)}))`) },
  { name: 'loops with calls', bytes: () => wat(`${DEPLOY_HEAD}(func $g (result i32) (i32.const 1)) (func $f (local i32)\n${'(loop $l (local.set 0 (call $g)) (br_if $l (local.get 0)))\n'.repeat(3000)}))`) },
  { name: '200 KB of data', bytes: () => wat(`(module (memory 4) (data (i32.const 0) "${'d'.repeat(200_000)}") (func (export "alloc") (param i32) (result i32) (i32.const 0)) (func (export "call") (param i32 i32)))`) },
];
