import type BinaryenNs from 'binaryen';
import { badRequest } from '../../../kernel/sdk.js';
import { HOST_MODULE, HOST_FUNCTIONS } from './host-api.js';

/**
 * Deploy-time checks and metering of contract bytecode, done with Binaryen's IR (a maintained
 * toolkit; nothing here encodes WebAssembly by hand).
 *
 * Refused (400, decisions.md §31 "invalid bytecode"): bytes Binaryen cannot read or validate
 * with the allowed features (MVP, mutable globals, sign extension, bulk memory), any float or
 * vector value anywhere (an instruction, a local, a parameter, a global: float results may differ
 * between machines, as CosmWasm refuses them), an import other than the host API of host-api.ts
 * with its exact signature, imported or several memories, a table or global import, a start
 * function (its work would run before fuel is set), a memory whose initial size is above the cap.
 *
 * Metering, injected into every function before compilation:
 * - every control region (a function body, a block, each iteration of a loop, each arm of an if)
 *   charges, on entry, the number of instructions directly inside it (a nested region counts one
 *   and charges its own): `fuel -= n; if (fuel < 0) out_of_fuel()`. An early branch out of a
 *   region does not refund what it was charged, so the charge is the same on every node for the
 *   same bytecode and input.
 * - every function is wrapped: its entry adds its frame's weight (1 + its locals) to a stack
 *   counter and calls `stack_exhausted()` above the limit, its exit takes it back, so deep
 *   recursion traps at the same depth on every node instead of at V8's native stack limit.
 * - `memory.grow` passes through a check that traps above the page cap.
 * - `memory.fill`, `memory.copy` and `memory.init` charge their byte count (BULK_FUEL_PER_BYTE)
 *   before they run, on top of counting as one instruction.
 * The fuel and stack counters are mutable globals of the module, exported as `__fuel` and
 * `__stack`: the host sets them before it runs an instance and carries them from level to level
 * of a call tree; the three traps are imported functions that throw.
 */

export const METERING_MODULE = 'metering';
export const FUEL_EXPORT = '__fuel';
export const STACK_EXPORT = '__stack';
/**
 * Fuel per byte that memory.fill, memory.copy and memory.init touch (as the host charges per byte
 * it moves): each is one instruction, but its work grows with its size operand, so a loop of
 * 64 KiB fills must not cost what a loop of additions costs.
 */
export const BULK_FUEL_PER_BYTE = 1n;

export interface InstrumentLimits {
  /** Most pages (64 KiB) a contract's memory may have. */
  readonly maxPages: number;
  /** Most stack weight (frames × locals) one call tree may hold. */
  readonly maxStack: number;
}

export interface InstrumentedCode {
  /** The metered module, ready for WebAssembly.compile. */
  readonly binary: Uint8Array;
  /** The contract's exports (functions only), sorted. */
  readonly exports: readonly string[];
  /** Initial and maximum pages of the memory the host creates for each instance. */
  readonly memory: { readonly initial: number; readonly maximum: number };
}

/**
 * Binaryen, loaded on first need (`loadBinaryen`): a node that never meets a contract, and the
 * gateway, which lists the plugin but runs none, do not pay for loading it.
 */
let binaryen: typeof BinaryenNs;
let ALLOWED_FEATURES = 0;
let none = 0;
let i32 = 0;
let i64 = 0;
let FLOAT_TYPES = new Set<number>();
let LEAVES = new Set<number>();

/** Binaryen.js's expression and function helpers that its type declarations leave out. */
interface ExpressionHelpers {
  MemoryGrow: { getDelta(e: number): number; setDelta(e: number, d: number): void };
  MemoryFill: SizedBulk;
  MemoryCopy: SizedBulk;
  MemoryInit: SizedBulk;
  Block: { getChildren(e: number): number[]; insertChildAt(e: number, i: number, c: number): void };
  Loop: { getBody(e: number): number; setBody(e: number, b: number): void };
  If: { getCondition(e: number): number; getIfTrue(e: number): number; setIfTrue(e: number, b: number): void; getIfFalse(e: number): number; setIfFalse(e: number, b: number): void };
  Function: { getNumLocals(f: number): number; setBody(f: number, b: number): void };
  _BinaryenFunctionAddVar(f: number, t: number): number;
}
/** memory.fill, memory.copy and memory.init: their byte count is an operand. */
interface SizedBulk {
  getSize(e: number): number;
  setSize(e: number, s: number): void;
}
let B: ExpressionHelpers;

export async function loadBinaryen(): Promise<void> {
  if (binaryen !== undefined) return;
  const b = (await import('binaryen')).default;
  ALLOWED_FEATURES = b.Features.MutableGlobals | b.Features.SignExt | b.Features.BulkMemory | b.Features.BulkMemoryOpt | b.Features.NontrappingFPToInt;
  ({ none, i32, i64 } = b);
  FLOAT_TYPES = new Set<number>([b.f32, b.f64, b.v128]);
  // Leaves first: Binaryen.js's getExpressionInfo throws for some of them (unreachable).
  LEAVES = new Set<number>([b.NopId, b.LocalGetId, b.GlobalGetId, b.ConstId, b.MemorySizeId, b.UnreachableId, b.DataDropId]);
  B = b as unknown as ExpressionHelpers;
  binaryen = b;
}

type Ref = number;

interface Ctx {
  readonly m: BinaryenNs.Module;
  readonly fuel: string;
  readonly growCheck: string;
  readonly bulkCharge: string;
}

function invalid(reason: string): never {
  throw badRequest(`invalid bytecode: ${reason}`);
}

function typeList(t: number): number[] {
  return t === none ? [] : [...binaryen.expandType(t)];
}

function refuseFloats(types: readonly number[], where: string): void {
  if (types.some((t) => FLOAT_TYPES.has(t))) invalid(`${where} uses a floating-point or vector type (contracts must be deterministic)`);
}

/** The direct children of an expression, for the ids the allowed features produce; any other id is refused. */
function childrenOf(expr: Ref): Ref[] {
  if (LEAVES.has(binaryen.getExpressionId(expr))) return [];
  const info = binaryen.getExpressionInfo(expr) as unknown as Record<string, unknown> & { id: number };
  const one = (...keys: string[]): Ref[] => keys.map((k) => info[k] as Ref).filter((r) => typeof r === 'number' && r !== 0);
  switch (info.id) {
    case binaryen.BlockId:
      return [...(info.children as Ref[])];
    case binaryen.IfId:
      return one('condition', 'ifTrue', 'ifFalse');
    case binaryen.LoopId:
      return one('body');
    case binaryen.BreakId:
      return one('condition', 'value');
    case binaryen.SwitchId:
      return one('condition', 'value');
    case binaryen.CallId:
      return [...(info.operands as Ref[])];
    case binaryen.CallIndirectId:
      return [...one('target'), ...(info.operands as Ref[])];
    case binaryen.LocalSetId:
    case binaryen.GlobalSetId:
    case binaryen.UnaryId:
    case binaryen.DropId:
    case binaryen.ReturnId:
      return one('value');
    case binaryen.LoadId:
      return one('ptr');
    case binaryen.StoreId:
      return one('ptr', 'value');
    case binaryen.BinaryId:
      return one('left', 'right');
    case binaryen.SelectId:
      return one('ifTrue', 'ifFalse', 'condition');
    case binaryen.MemoryGrowId:
      return one('delta');
    case binaryen.MemoryCopyId:
      return one('dest', 'source', 'size');
    case binaryen.MemoryFillId:
      return one('dest', 'value', 'size');
    case binaryen.MemoryInitId:
      return one('dest', 'offset', 'size');
    case binaryen.NopId:
    case binaryen.LocalGetId:
    case binaryen.GlobalGetId:
    case binaryen.ConstId:
    case binaryen.MemorySizeId:
    case binaryen.UnreachableId:
    case binaryen.DataDropId:
      return [];
    default:
      return invalid(`instruction kind ${info.id} is not allowed in contracts`);
  }
}

function isRegion(id: number): boolean {
  return id === binaryen.BlockId || id === binaryen.LoopId || id === binaryen.IfId;
}

/** `fuel -= cost; if (fuel < 0) out_of_fuel()` */
function charge(c: Ctx, cost: number): Ref {
  const { m } = c;
  return m.block(null, [
    m.global.set(c.fuel, m.i64.sub(m.global.get(c.fuel, i64), (m.i64.const as unknown as (v: bigint) => Ref)(BigInt(cost)))),
    m.if(m.i64.lt_s(m.global.get(c.fuel, i64), (m.i64.const as unknown as (v: bigint) => Ref)(0n)), m.call(`${METERING_MODULE}$out_of_fuel`, [], none)),
  ]);
}

/** Instructions of `expr` outside nested regions (each nested region counts one), after metering those regions. */
function meterTree(c: Ctx, expr: Ref): number {
  const id = binaryen.getExpressionId(expr);
  if (FLOAT_TYPES.has(binaryen.getExpressionType(expr))) invalid('a floating-point or vector instruction (contracts must be deterministic)');
  if (isRegion(id)) {
    meterRegion(c, expr);
    return 1;
  }
  if (id === binaryen.MemoryGrowId) {
    const delta = B.MemoryGrow.getDelta(expr);
    const cost = meterTree(c, delta);
    B.MemoryGrow.setDelta(expr, c.m.call(c.growCheck, [delta], i32));
    return cost + 1;
  }
  const bulk = id === binaryen.MemoryFillId ? B.MemoryFill : id === binaryen.MemoryCopyId ? B.MemoryCopy : id === binaryen.MemoryInitId ? B.MemoryInit : undefined;
  if (bulk) {
    // One instruction that touches `size` bytes: charged per byte, before it runs.
    let n = 1;
    for (const child of childrenOf(expr)) n += meterTree(c, child);
    bulk.setSize(expr, c.m.call(c.bulkCharge, [bulk.getSize(expr)], i32));
    return n;
  }
  let n = 1;
  for (const child of childrenOf(expr)) n += meterTree(c, child);
  return n;
}

/** Meters one region in place: its entry charges what it holds directly. */
function meterRegion(c: Ctx, expr: Ref): void {
  const { m } = c;
  const id = binaryen.getExpressionId(expr);
  if (FLOAT_TYPES.has(binaryen.getExpressionType(expr))) invalid('a floating-point or vector instruction (contracts must be deterministic)');
  if (id === binaryen.BlockId) {
    let n = 1;
    for (const child of B.Block.getChildren(expr)) n += meterTree(c, child);
    B.Block.insertChildAt(expr, 0, charge(c, n));
  } else if (id === binaryen.LoopId) {
    const body = B.Loop.getBody(expr);
    const n = 1 + meterTree(c, body);
    B.Loop.setBody(expr, m.block(null, [charge(c, n), body], binaryen.getExpressionType(body)));
  } else {
    // The condition is charged by the enclosing region; each arm on entry.
    const cond = B.If.getCondition(expr);
    meterTree(c, cond);
    for (const [get, set] of [[B.If.getIfTrue, B.If.setIfTrue], [B.If.getIfFalse, B.If.setIfFalse]] as const) {
      const arm = get(expr);
      if (!arm) continue;
      const n = 1 + meterTree(c, arm);
      set(expr, m.block(null, [charge(c, n), arm], binaryen.getExpressionType(arm)));
    }
  }
}

interface Declared {
  readonly functions: ReadonlyArray<{ name: string; params: number; results: number; vars: number[]; body: Ref }>;
}

function checkImportsAndGlobals(m: BinaryenNs.Module): void {
  for (let i = 0; i < m.getNumGlobals(); i++) {
    const g = binaryen.getGlobalInfo(m.getGlobalByIndex(i));
    if (g.module) invalid(`global import ${g.module}.${g.base} is not allowed`);
    refuseFloats(typeList(g.type), `global ${g.name}`);
  }
  for (let i = 0; i < m.getNumTables(); i++) {
    const t = binaryen.getTableInfo(m.getTableByIndex(i));
    if (t.module) invalid(`table import ${t.module}.${t.base} is not allowed`);
  }
  for (let i = 0; i < m.getNumFunctions(); i++) {
    const f = binaryen.getFunctionInfo(m.getFunctionByIndex(i));
    if (!f.module) continue;
    const spec = f.module === HOST_MODULE ? HOST_FUNCTIONS.get(f.base ?? '') : undefined;
    if (!spec) invalid(`import ${f.module}.${f.base} is not part of the host API (module "${HOST_MODULE}", see plugins/contracts/README.md)`);
    const params = typeList(f.params).map(typeName).join(',');
    const results = typeList(f.results).map(typeName).join(',');
    if (params !== spec.params.join(',') || results !== spec.results.join(',')) {
      invalid(`import ${f.module}.${f.base} has signature (${params}) -> (${results}), the host API's is (${spec.params.join(',')}) -> (${spec.results.join(',')})`);
    }
  }
}

function typeName(t: number): string {
  if (t === i32) return 'i32';
  if (t === i64) return 'i64';
  return 'other';
}

/**
 * Runs Binaryen's validator with its report kept out of the node's output (it prints there,
 * between the JSON log lines): undefined when the module is valid, else what it printed. The
 * validator is synchronous, so no other output can fall into the window.
 */
function validatorOutput(m: BinaryenNs.Module): string | undefined {
  const streams = [process.stdout, process.stderr] as Array<{ write: unknown }>;
  const originals = streams.map((s) => s.write);
  let printed = '';
  for (const s of streams) {
    s.write = (chunk: unknown): boolean => {
      printed += String(chunk);
      return true;
    };
  }
  try {
    return m.validate() ? undefined : printed;
  } finally {
    streams.forEach((s, i) => (s.write = originals[i]));
  }
}

/** Refuses (400) a module Binaryen's validator rejects, with the start of its report. */
function validated(m: BinaryenNs.Module): void {
  const report = validatorOutput(m);
  if (report === undefined) return;
  const first = report.split('\n').find((l) => l.trim().length > 0)?.trim().slice(0, 200);
  invalid(`the module does not validate${first ? ` (${first})` : ''}`);
}

/**
 * Checks `bytes` and returns the metered module. Deterministic: the same bytes always give the
 * same checks, the same charges and the same binary.
 */
export function instrument(bytes: Uint8Array, limits: InstrumentLimits): InstrumentedCode {
  if (binaryen === undefined) throw new Error('instrument: await loadBinaryen() first');
  if (bytes.length < 8 || bytes[0] !== 0 || bytes[1] !== 0x61 || bytes[2] !== 0x73 || bytes[3] !== 0x6d) invalid('not a WebAssembly module (no \\0asm header)');
  let m: BinaryenNs.Module;
  try {
    // Read, written back without its name section and read again, so internal names are the
    // indices Binaryen gives (the memory is "0") whatever names the author's build kept.
    const first = (binaryen.readBinary as (b: Uint8Array, f: number) => BinaryenNs.Module)(bytes, ALLOWED_FEATURES);
    let plain: Uint8Array;
    try {
      validated(first);
      plain = first.emitBinary();
    } finally {
      first.dispose();
    }
    m = (binaryen.readBinary as (b: Uint8Array, f: number) => BinaryenNs.Module)(plain, ALLOWED_FEATURES);
  } catch (err) {
    if (err instanceof Error && err.message.startsWith('invalid bytecode')) throw err;
    invalid(`Binaryen cannot read it with the allowed features (MVP, mutable globals, sign extension, bulk memory): ${err instanceof Error ? err.message : String(err)}`);
  }
  try {
    return instrumentModule(m, limits);
  } finally {
    m.dispose();
  }
}

function instrumentModule(m: BinaryenNs.Module, limits: InstrumentLimits): InstrumentedCode {
  validated(m);
  if (m.getStart()) invalid('a start function is not allowed (export `_start` instead; the host runs it after setting fuel)');
  if (!m.hasMemory()) invalid('the module defines no memory');
  const mem = m.getMemoryInfo();
  if (mem.module) invalid('an imported memory is not allowed (the module defines its own, the host caps it)');
  if (mem.shared || mem.is64) invalid('shared or 64-bit memory is not allowed');
  if (mem.initial > limits.maxPages) invalid(`memory starts at ${mem.initial} pages, above the cap of ${limits.maxPages}`);
  const maximum = Math.min(mem.max === undefined || mem.max === 0xffffffff ? limits.maxPages : mem.max, limits.maxPages);
  checkImportsAndGlobals(m);

  const declared: Declared['functions'][number][] = [];
  for (let i = 0; i < m.getNumFunctions(); i++) {
    const f = binaryen.getFunctionInfo(m.getFunctionByIndex(i));
    if (f.module) continue;
    refuseFloats([...typeList(f.params), ...typeList(f.results), ...f.vars.flatMap(typeList)], `function ${f.name}`);
    if (typeList(f.results).length > 1) invalid(`function ${f.name} returns several values`);
    declared.push({ name: f.name, params: f.params, results: f.results, vars: f.vars, body: f.body });
  }
  const exports: string[] = [];
  for (let i = 0; i < m.getNumExports(); i++) {
    const e = binaryen.getExportInfo(m.getExportByIndex(i));
    if (e.kind === binaryen.ExternalFunction) exports.push(e.name);
  }
  exports.sort();

  const fuel = `${METERING_MODULE}$fuel`;
  const stack = `${METERING_MODULE}$stack`;
  const growCheck = `${METERING_MODULE}$grow_check`;
  // Module-internal globals (an imported mutable global costs V8 an indirection on every
  // charge), exported so the host sets them before a call and carries them across contract levels.
  m.addGlobal(fuel, i64, true, (m.i64.const as unknown as (v: bigint) => Ref)(0n));
  m.addGlobal(stack, i32, true, m.i32.const(0));
  m.addGlobalExport(fuel, FUEL_EXPORT);
  m.addGlobalExport(stack, STACK_EXPORT);
  m.addFunctionImport(`${METERING_MODULE}$out_of_fuel`, METERING_MODULE, 'out_of_fuel', none, none);
  m.addFunctionImport(`${METERING_MODULE}$stack_exhausted`, METERING_MODULE, 'stack_exhausted', none, none);
  m.addFunctionImport(`${METERING_MODULE}$memory_exhausted`, METERING_MODULE, 'memory_exhausted', none, none);
  // grow_check(delta): traps when memory.size + delta passes the cap, else returns delta.
  m.addFunction(growCheck, i32, i32, [], m.block(null, [
    m.if(m.i32.gt_u(m.i32.add(m.memory.size(), m.local.get(0, i32)), m.i32.const(maximum)), m.call(`${METERING_MODULE}$memory_exhausted`, [], none)),
    m.local.get(0, i32),
  ], i32));
  // bulk_charge(size): charges BULK_FUEL_PER_BYTE × size (unsigned) and traps out of fuel below 0, else returns size.
  const bulkCharge = `${METERING_MODULE}$bulk_charge`;
  m.addFunction(bulkCharge, i32, i32, [], m.block(null, [
    m.global.set(fuel, m.i64.sub(m.global.get(fuel, i64), m.i64.mul(m.i64.extend_u(m.local.get(0, i32)), (m.i64.const as unknown as (v: bigint) => Ref)(BULK_FUEL_PER_BYTE)))),
    m.if(m.i64.lt_s(m.global.get(fuel, i64), (m.i64.const as unknown as (v: bigint) => Ref)(0n)), m.call(`${METERING_MODULE}$out_of_fuel`, [], none)),
    m.local.get(0, i32),
  ], i32));
  const c: Ctx = { m, fuel, growCheck, bulkCharge };

  for (const f of declared) {
    const params = typeList(f.params);
    const weight = 1 + params.length + f.vars.length;
    // The function's own body is a region: charge it on entry.
    const bodyType = binaryen.getExpressionType(f.body);
    let metered: Ref;
    if (binaryen.getExpressionId(f.body) === binaryen.BlockId) {
      meterRegion(c, f.body);
      metered = f.body;
    } else {
      const n = meterTree(c, f.body);
      metered = m.block(null, [charge(c, n), f.body], bodyType);
    }
    // The body moves to `<name>$body`; `<name>` (what calls, exports and tables name) becomes the
    // stack-counting wrapper around it.
    const inner = `${f.name}$body`;
    m.addFunction(inner, f.params, f.results, f.vars, metered);
    const func = m.getFunction(f.name);
    const results = typeList(f.results);
    const args = params.map((t, i) => m.local.get(i, t));
    const enter = m.block(null, [
      m.global.set(stack, m.i32.add(m.global.get(stack, i32), m.i32.const(weight))),
      m.if(m.i32.gt_u(m.global.get(stack, i32), m.i32.const(limits.maxStack)), m.call(`${METERING_MODULE}$stack_exhausted`, [], none)),
    ]);
    const leave = m.global.set(stack, m.i32.sub(m.global.get(stack, i32), m.i32.const(weight)));
    let wrapper: Ref;
    if (results.length === 0) {
      wrapper = m.block(null, [enter, m.call(inner, args, none), leave]);
    } else {
      const tmp = B.Function.getNumLocals(func);
      B._BinaryenFunctionAddVar(func, f.results);
      wrapper = m.block(null, [enter, m.local.set(tmp, m.call(inner, args, f.results)), leave, m.local.get(tmp, f.results)], f.results);
    }
    B.Function.setBody(func, wrapper);
  }
  // The memory becomes an import the host creates with the capped maximum (segments stay).
  m.addMemoryImport('0', METERING_MODULE, 'memory');
  if (validatorOutput(m) !== undefined) throw new Error('metering produced an invalid module (a bug in plugins/contracts/vm/instrument.ts)');
  // No Binaryen optimisation afterwards: V8 inlines the small wrappers itself (bench/contracts.bench
  // measured the same speed with and without it), and a cold optimiser cost seconds per module.
  return { binary: m.emitBinary(), exports, memory: { initial: mem.initial, maximum } };
}
