import type BinaryenNs from 'binaryen';
import { badRequest } from '../../../kernel/sdk.js';
import { HOST_MODULE, HOST_FUNCTIONS } from './host-api.js';
import { BULK_FUEL_PER_BYTE, INSTANCE_FUEL, INSTRUCTION_FUEL, MAX_TABLE_SLOTS } from './pricing.js';
import { checkCodeShape, withoutCustomSections } from './shape.js';

/**
 * Deploy-time checks and metering of contract bytecode, done with Binaryen's IR (a maintained
 * toolkit; nothing here encodes WebAssembly by hand).
 *
 * Refused (400, decisions.md §31 "invalid bytecode"): bytes Binaryen cannot read or validate
 * with the allowed features (MVP, mutable globals, sign extension, bulk memory), any float or
 * vector value anywhere (an instruction, a local, a parameter, a global: float results may differ
 * between machines, as CosmWasm refuses them), an import other than the host API of host-api.ts
 * with its exact signature, imported or several memories, a table or global import, a start
 * function (its work would run before fuel is set), a memory whose initial size is above the cap,
 * a table above MAX_TABLE_SLOTS.
 *
 * Metering, injected into every function before compilation (the fuel schedule is pricing.ts):
 * - every control region (a function body, a block, each iteration of a loop, each arm of an if)
 *   charges, on entry, the fuel of the instructions directly inside it (a nested region charges
 *   its own): `fuel -= n; if (fuel < 0) unreachable`. An early branch out of a region does not
 *   refund what it was charged, so the charge is the same on every node for the same bytecode
 *   and input. Instructions are priced by class (INSTRUCTION_FUEL: division, compares whose
 *   result is a value, select and calls cost more).
 *   Running out is `unreachable` with the counter below zero, which the host tells from the
 *   contract's own traps by the counter: a call of an imported trap function in every loop made
 *   TurboFan's code of a tight loop 3–10× slower than the loop unmetered (bench/contracts.bench).
 *   Each function keeps a local copy of the counter (read at its entry and after every call,
 *   since callees and host functions spend from the global) and writes every charge through to
 *   the global, so the global is exact wherever the contract traps or calls the host: the charges,
 *   where they trap and the fuel a trapped call used are those of charging the global alone; the
 *   copy only spares the baseline compiler a reload of the global per charge (see `belowZero`).
 * - every function is wrapped: its entry adds its frame's weight (1 + its locals) to a stack
 *   counter and traps (`unreachable`, the counter above the limit) past it, its exit takes it
 *   back, so deep recursion traps at the same depth on every node instead of at V8's native
 *   stack limit.
 * - `memory.grow` becomes a call of the host's `grow`, which charges per page and checks the cap
 *   before it allocates (engine.ts), so a failed allocation never reaches the contract as -1.
 * - `memory.fill`, `memory.copy` and `memory.init` charge their byte count (BULK_FUEL_PER_BYTE)
 *   before they run, on top of their instruction.
 * - exports the host never calls are removed (V8 builds an object per export at every
 *   instantiation), and the fuel an instantiation of the result costs is computed from its shape
 *   (INSTANCE_FUEL), for the host to charge before it instantiates.
 * The fuel and stack counters are mutable globals of the module, exported as `__fuel` and
 * `__stack`: the host sets them before it runs an instance, carries them from level to level of a
 * call tree and reads them after a trap; `grow` is an imported function.
 */

export const METERING_MODULE = 'metering';
export const FUEL_EXPORT = '__fuel';
export const STACK_EXPORT = '__stack';
/** `__charge(n: i32 as unsigned)`: the host's charges go through the module (a JS read and write of an i64 global cost ~0.5 µs). */
export const CHARGE_EXPORT = '__charge';
/** The exports the host calls; every other export is removed from the metered module. */
export const ENTRY_EXPORTS: ReadonlySet<string> = new Set(['_start', 'init', 'alloc', 'call']);

export interface InstrumentLimits {
  /** Most pages (64 KiB) a contract's memory may have. */
  readonly maxPages: number;
  /** Most stack weight (frames × locals) one call tree may hold. */
  readonly maxStack: number;
}

export interface InstrumentedCode {
  /** The metered module, ready for WebAssembly.compile. */
  readonly binary: Uint8Array;
  /** The contract's function exports, sorted (the metered module keeps ENTRY_EXPORTS of them). */
  readonly exports: readonly string[];
  /** Initial and maximum pages of the memory the host creates for each instance. */
  readonly memory: { readonly initial: number; readonly maximum: number };
  /** Fuel one instantiation costs (INSTANCE_FUEL over the module's shape), charged before it. */
  readonly instanceFuel: number;
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
let DIV_REM_32 = new Set<number>();
let DIV_REM_64 = new Set<number>();
let MUL = new Set<number>();
/** i32 and i64 compares (binary ops giving an i32 truth value). */
let COMPARE_32 = new Set<number>();
let COMPARE_64 = new Set<number>();
let EQZ_32 = 0;
let EQZ_64 = 0;

type Ref = number;

/**
 * Binaryen's C API as its JS build exports it (`_Binaryen…`). The walk below uses these getters
 * and setters directly: `getExpressionInfo` builds an object per expression and made the metering
 * pass of a large module take seconds.
 */
interface LowLevel {
  _BinaryenExpressionGetId(e: Ref): number;
  _BinaryenExpressionGetType(e: Ref): number;
  _BinaryenBlockGetNumChildren(e: Ref): number;
  _BinaryenBlockGetChildAt(e: Ref, i: number): Ref;
  _BinaryenBlockSetChildAt(e: Ref, i: number, c: Ref): void;
  _BinaryenBlockInsertChildAt(e: Ref, i: number, c: Ref): void;
  _BinaryenIfGetCondition(e: Ref): Ref;
  _BinaryenIfSetCondition(e: Ref, c: Ref): void;
  _BinaryenIfGetIfTrue(e: Ref): Ref;
  _BinaryenIfSetIfTrue(e: Ref, c: Ref): void;
  _BinaryenIfGetIfFalse(e: Ref): Ref;
  _BinaryenIfSetIfFalse(e: Ref, c: Ref): void;
  _BinaryenLoopGetBody(e: Ref): Ref;
  _BinaryenLoopSetBody(e: Ref, c: Ref): void;
  _BinaryenBreakGetCondition(e: Ref): Ref;
  _BinaryenBreakSetCondition(e: Ref, c: Ref): void;
  _BinaryenBreakGetValue(e: Ref): Ref;
  _BinaryenBreakSetValue(e: Ref, c: Ref): void;
  _BinaryenSwitchGetCondition(e: Ref): Ref;
  _BinaryenSwitchSetCondition(e: Ref, c: Ref): void;
  _BinaryenSwitchGetValue(e: Ref): Ref;
  _BinaryenSwitchSetValue(e: Ref, c: Ref): void;
  _BinaryenCallGetNumOperands(e: Ref): number;
  _BinaryenCallGetOperandAt(e: Ref, i: number): Ref;
  _BinaryenCallSetOperandAt(e: Ref, i: number, c: Ref): void;
  _BinaryenCallIndirectGetTarget(e: Ref): Ref;
  _BinaryenCallIndirectSetTarget(e: Ref, c: Ref): void;
  _BinaryenCallIndirectGetNumOperands(e: Ref): number;
  _BinaryenCallIndirectGetOperandAt(e: Ref, i: number): Ref;
  _BinaryenCallIndirectSetOperandAt(e: Ref, i: number, c: Ref): void;
  _BinaryenLocalSetGetValue(e: Ref): Ref;
  _BinaryenLocalSetSetValue(e: Ref, c: Ref): void;
  _BinaryenGlobalSetGetValue(e: Ref): Ref;
  _BinaryenGlobalSetSetValue(e: Ref, c: Ref): void;
  _BinaryenLoadGetPtr(e: Ref): Ref;
  _BinaryenLoadSetPtr(e: Ref, c: Ref): void;
  _BinaryenStoreGetPtr(e: Ref): Ref;
  _BinaryenStoreSetPtr(e: Ref, c: Ref): void;
  _BinaryenStoreGetValue(e: Ref): Ref;
  _BinaryenStoreSetValue(e: Ref, c: Ref): void;
  _BinaryenUnaryGetOp(e: Ref): number;
  _BinaryenUnaryGetValue(e: Ref): Ref;
  _BinaryenUnarySetValue(e: Ref, c: Ref): void;
  _BinaryenBinaryGetOp(e: Ref): number;
  _BinaryenBinaryGetLeft(e: Ref): Ref;
  _BinaryenBinarySetLeft(e: Ref, c: Ref): void;
  _BinaryenBinaryGetRight(e: Ref): Ref;
  _BinaryenBinarySetRight(e: Ref, c: Ref): void;
  _BinaryenSelectGetIfTrue(e: Ref): Ref;
  _BinaryenSelectSetIfTrue(e: Ref, c: Ref): void;
  _BinaryenSelectGetIfFalse(e: Ref): Ref;
  _BinaryenSelectSetIfFalse(e: Ref, c: Ref): void;
  _BinaryenSelectGetCondition(e: Ref): Ref;
  _BinaryenSelectSetCondition(e: Ref, c: Ref): void;
  _BinaryenDropGetValue(e: Ref): Ref;
  _BinaryenDropSetValue(e: Ref, c: Ref): void;
  _BinaryenReturnGetValue(e: Ref): Ref;
  _BinaryenReturnSetValue(e: Ref, c: Ref): void;
  _BinaryenMemoryGrowGetDelta(e: Ref): Ref;
  _BinaryenMemoryFillGetDest(e: Ref): Ref;
  _BinaryenMemoryFillSetDest(e: Ref, c: Ref): void;
  _BinaryenMemoryFillGetValue(e: Ref): Ref;
  _BinaryenMemoryFillSetValue(e: Ref, c: Ref): void;
  _BinaryenMemoryFillGetSize(e: Ref): Ref;
  _BinaryenMemoryFillSetSize(e: Ref, c: Ref): void;
  _BinaryenMemoryCopyGetDest(e: Ref): Ref;
  _BinaryenMemoryCopySetDest(e: Ref, c: Ref): void;
  _BinaryenMemoryCopyGetSource(e: Ref): Ref;
  _BinaryenMemoryCopySetSource(e: Ref, c: Ref): void;
  _BinaryenMemoryCopyGetSize(e: Ref): Ref;
  _BinaryenMemoryCopySetSize(e: Ref, c: Ref): void;
  _BinaryenMemoryInitGetDest(e: Ref): Ref;
  _BinaryenMemoryInitSetDest(e: Ref, c: Ref): void;
  _BinaryenMemoryInitGetOffset(e: Ref): Ref;
  _BinaryenMemoryInitSetOffset(e: Ref, c: Ref): void;
  _BinaryenMemoryInitGetSize(e: Ref): Ref;
  _BinaryenMemoryInitSetSize(e: Ref, c: Ref): void;
  _BinaryenFunctionGetNumLocals(f: number): number;
  _BinaryenFunctionAddVar(f: number, t: number): number;
  _BinaryenFunctionSetBody(f: number, b: Ref): void;
  _BinaryenTableGetInitial(t: number): number;
  _BinaryenElementSegmentGetLength(s: number): number;
  _BinaryenGetDataSegmentByteLength(s: number): number;
}
let L: LowLevel;
/** Expression ids, read from Binaryen once loaded. */
let X: Record<'Block' | 'If' | 'Loop' | 'Break' | 'Switch' | 'Call' | 'CallIndirect' | 'LocalGet' | 'LocalSet' | 'GlobalGet' | 'GlobalSet' | 'Load' | 'Store' | 'Const' | 'Unary' | 'Binary' | 'Select' | 'Drop' | 'Return' | 'MemorySize' | 'MemoryGrow' | 'Nop' | 'Unreachable' | 'MemoryInit' | 'DataDrop' | 'MemoryCopy' | 'MemoryFill', number>;

export async function loadBinaryen(): Promise<void> {
  if (binaryen !== undefined) return;
  const b = (await import('binaryen')).default;
  ALLOWED_FEATURES = b.Features.MutableGlobals | b.Features.SignExt | b.Features.BulkMemory | b.Features.BulkMemoryOpt | b.Features.NontrappingFPToInt;
  ({ none, i32, i64 } = b);
  FLOAT_TYPES = new Set<number>([b.f32, b.f64, b.v128]);
  const ops = b as unknown as Record<string, number>;
  const named = (names: string[], width: string): Set<number> => new Set(names.map((k) => ops[`${k}${width}`]!));
  DIV_REM_32 = named(['DivS', 'DivU', 'RemS', 'RemU'], 'Int32');
  DIV_REM_64 = named(['DivS', 'DivU', 'RemS', 'RemU'], 'Int64');
  MUL = new Set(['MulInt32', 'MulInt64'].map((k) => ops[k]!));
  const compares = ['Eq', 'Ne', 'LtS', 'LtU', 'GtS', 'GtU', 'LeS', 'LeU', 'GeS', 'GeU'];
  COMPARE_32 = named(compares, 'Int32');
  COMPARE_64 = named(compares, 'Int64');
  EQZ_32 = ops.EqZInt32!;
  EQZ_64 = ops.EqZInt64!;
  if ([...DIV_REM_32, ...DIV_REM_64, ...MUL, ...COMPARE_32, ...COMPARE_64, EQZ_32, EQZ_64].some((op) => typeof op !== 'number')) throw new Error('instrument: an operator id is missing from this Binaryen build');
  X = {
    Block: b.BlockId, If: b.IfId, Loop: b.LoopId, Break: b.BreakId, Switch: b.SwitchId, Call: b.CallId, CallIndirect: b.CallIndirectId,
    LocalGet: b.LocalGetId, LocalSet: b.LocalSetId, GlobalGet: b.GlobalGetId, GlobalSet: b.GlobalSetId, Load: b.LoadId, Store: b.StoreId,
    Const: b.ConstId, Unary: b.UnaryId, Binary: b.BinaryId, Select: b.SelectId, Drop: b.DropId, Return: b.ReturnId, MemorySize: b.MemorySizeId,
    MemoryGrow: b.MemoryGrowId, Nop: b.NopId, Unreachable: b.UnreachableId, MemoryInit: b.MemoryInitId, DataDrop: b.DataDropId,
    MemoryCopy: b.MemoryCopyId, MemoryFill: b.MemoryFillId,
  };
  L = b as unknown as LowLevel;
  binaryen = b;
}

/** One function's metering: the module, the fuel global and the function's scratch local. */
interface Ctx {
  readonly m: BinaryenNs.Module;
  /** The module's fuel global. */
  readonly fuel: string;
  /** An i32 local of the function for bulk sizes. */
  readonly tmp32: number;
  /**
   * An i64 local of the function: its copy of the fuel count, equal to the global whenever the
   * function's own code runs (read at entry and after every call, written through on every charge).
   */
  readonly count: number;
  /** Scratch locals holding a call's i32 or i64 result while `count` is read again after it. */
  readonly result32: number;
  readonly result64: number;
  /** What the last visited expression is replaced by in its parent, or 0 (see `slot`). */
  swap: Ref;
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

const i64c = (c: Ctx, v: bigint | number): Ref => (c.m.i64.const as unknown as (v: bigint) => Ref)(BigInt(v));

/**
 * `fuel < 0` as the metered code tests it: the sign bit of the function's copy of the count.
 * Under Liftoff (baseline-tier.ts) a global is loaded from the instance at every read and an
 * i64 compare is not fused with its `if`: reading the global, `i64.lt_s` and the `if` made the
 * charge of a tight loop cost 1.33× the loop's own time; a local copy tested by its sign bit,
 * 1.13× (bench/contracts.bench, CPU time).
 */
function belowZero(c: Ctx): Ref {
  const { m } = c;
  return m.i32.wrap(m.i64.shr_u(m.local.get(c.count, i64), i64c(c, 63)));
}

/**
 * `fuel -= cost; if (fuel < 0) unreachable`, on the function's copy and written through to the
 * global, so the global is exact at every trap and host call (the host reads it to tell running
 * out from a trap, and to charge a trapped call what it used).
 */
function spend(c: Ctx, cost: Ref): Ref {
  const { m } = c;
  return m.block(null, [
    m.local.set(c.count, m.i64.sub(m.local.get(c.count, i64), cost)),
    m.global.set(c.fuel, m.local.get(c.count, i64)),
    m.if(belowZero(c), m.unreachable()),
  ]);
}

const charge = (c: Ctx, cost: number): Ref => spend(c, i64c(c, cost));

/** The function's copy of the count, read from the global (at entry, and after a call, which spends from it). */
const reloadCount = (c: Ctx): Ref => c.m.local.set(c.count, c.m.global.get(c.fuel, i64));

/** A call (a contract function, a host function, the host's grow) followed by reading the count again. */
function thenReload(c: Ctx, call: Ref): Ref {
  const { m } = c;
  const type = L._BinaryenExpressionGetType(call);
  // A call whose operands never finish (typed unreachable) never returns either.
  if (type === binaryen.unreachable) return call;
  if (type === none) return m.block(null, [call, reloadCount(c)]);
  const keep = type === i64 ? c.result64 : c.result32;
  return m.block(null, [m.local.set(keep, call), reloadCount(c), m.local.get(keep, type)], type);
}

/** A bulk instruction's size operand, charged per byte before the instruction runs. */
function bulkCharged(c: Ctx, size: Ref): Ref {
  const { m } = c;
  return m.block(null, [
    m.local.set(c.tmp32, size),
    spend(c, m.i64.mul(m.i64.extend_u(m.local.get(c.tmp32, i32)), i64c(c, BULK_FUEL_PER_BYTE))),
    m.local.get(c.tmp32, i32),
  ], i32);
}

/**
 * Visits the child of `parent` that `get` reads, puts back what it was replaced by, and returns
 * its cost (0 for an absent child).
 */
function slot(c: Ctx, parent: Ref, get: (e: Ref) => Ref, set: (e: Ref, x: Ref) => void): number {
  const child = get(parent);
  if (child === 0) return 0;
  const cost = visit(c, child);
  if (c.swap !== 0) {
    set(parent, c.swap);
    c.swap = 0;
  }
  return cost;
}

/**
 * The fuel of `expr` outside the regions nested in it (each charges its own, in place). When the
 * expression itself must be replaced (memory.grow by the host's grow), the replacement is left
 * in `c.swap` for the parent to take.
 */
function visit(c: Ctx, e: Ref): number {
  const id = L._BinaryenExpressionGetId(e);
  if (FLOAT_TYPES.has(L._BinaryenExpressionGetType(e))) invalid('a floating-point or vector instruction (contracts must be deterministic)');
  const W = INSTRUCTION_FUEL;
  switch (id) {
    case X.Block:
      meterBlock(c, e, 0);
      return 0;
    case X.Loop: {
      const body = L._BinaryenLoopGetBody(e);
      // Each iteration enters the body: a block body charges there, anything else is wrapped.
      if (L._BinaryenExpressionGetId(body) === X.Block) meterBlock(c, body, W.region);
      else L._BinaryenLoopSetBody(e, region(c, body));
      return 0;
    }
    case X.If: {
      const cost = W.base + condition(c, e, L._BinaryenIfGetCondition, L._BinaryenIfSetCondition);
      for (const [get, set] of [[L._BinaryenIfGetIfTrue, L._BinaryenIfSetIfTrue], [L._BinaryenIfGetIfFalse, L._BinaryenIfSetIfFalse]] as const) {
        const arm = get(e);
        if (arm === 0) continue;
        if (L._BinaryenExpressionGetId(arm) === X.Block) meterBlock(c, arm, 0);
        else set(e, region(c, arm));
      }
      return cost;
    }
    case X.GlobalGet:
      return W.global;
    case X.Nop:
    case X.LocalGet:
    case X.Const:
    case X.MemorySize:
    case X.Unreachable:
    case X.DataDrop:
      return W.base;
    case X.Break:
      return W.base + condition(c, e, L._BinaryenBreakGetCondition, L._BinaryenBreakSetCondition) + slot(c, e, L._BinaryenBreakGetValue, L._BinaryenBreakSetValue);
    case X.Switch:
      return W.brTable + slot(c, e, L._BinaryenSwitchGetCondition, L._BinaryenSwitchSetCondition) + slot(c, e, L._BinaryenSwitchGetValue, L._BinaryenSwitchSetValue);
    case X.Call: {
      let cost = W.call;
      for (let i = 0; i < L._BinaryenCallGetNumOperands(e); i++) cost += slot(c, e, (x) => L._BinaryenCallGetOperandAt(x, i), (x, v) => L._BinaryenCallSetOperandAt(x, i, v));
      c.swap = thenReload(c, e);
      return cost;
    }
    case X.CallIndirect: {
      let cost = W.callIndirect + slot(c, e, L._BinaryenCallIndirectGetTarget, L._BinaryenCallIndirectSetTarget);
      for (let i = 0; i < L._BinaryenCallIndirectGetNumOperands(e); i++) cost += slot(c, e, (x) => L._BinaryenCallIndirectGetOperandAt(x, i), (x, v) => L._BinaryenCallIndirectSetOperandAt(x, i, v));
      c.swap = thenReload(c, e);
      return cost;
    }
    case X.LocalSet:
      return W.base + slot(c, e, L._BinaryenLocalSetGetValue, L._BinaryenLocalSetSetValue);
    case X.GlobalSet:
      return W.global + slot(c, e, L._BinaryenGlobalSetGetValue, L._BinaryenGlobalSetSetValue);
    case X.Drop:
      return W.base + slot(c, e, L._BinaryenDropGetValue, L._BinaryenDropSetValue);
    case X.Return:
      return W.base + slot(c, e, L._BinaryenReturnGetValue, L._BinaryenReturnSetValue);
    case X.Unary:
      return unaryFuel(L._BinaryenUnaryGetOp(e)) + slot(c, e, L._BinaryenUnaryGetValue, L._BinaryenUnarySetValue);
    case X.Binary:
      return binaryFuel(L._BinaryenBinaryGetOp(e)) + slot(c, e, L._BinaryenBinaryGetLeft, L._BinaryenBinarySetLeft) + slot(c, e, L._BinaryenBinaryGetRight, L._BinaryenBinarySetRight);
    case X.Load:
      return W.base + slot(c, e, L._BinaryenLoadGetPtr, L._BinaryenLoadSetPtr);
    case X.Store:
      return W.base + slot(c, e, L._BinaryenStoreGetPtr, L._BinaryenStoreSetPtr) + slot(c, e, L._BinaryenStoreGetValue, L._BinaryenStoreSetValue);
    case X.Select:
      return W.select + slot(c, e, L._BinaryenSelectGetIfTrue, L._BinaryenSelectSetIfTrue) + slot(c, e, L._BinaryenSelectGetIfFalse, L._BinaryenSelectSetIfFalse) + slot(c, e, L._BinaryenSelectGetCondition, L._BinaryenSelectSetCondition);
    case X.MemoryGrow: {
      // Replaced by the host's grow (engine.ts), which charges per page and checks the cap first.
      let delta = L._BinaryenMemoryGrowGetDelta(e);
      const cost = W.call + visit(c, delta);
      if (c.swap !== 0) {
        delta = c.swap;
        c.swap = 0;
      }
      c.swap = thenReload(c, c.m.call(`${METERING_MODULE}$grow`, [delta], i32));
      return cost;
    }
    case X.MemoryFill:
      return bulk(c, e, W.base + slot(c, e, L._BinaryenMemoryFillGetDest, L._BinaryenMemoryFillSetDest) + slot(c, e, L._BinaryenMemoryFillGetValue, L._BinaryenMemoryFillSetValue), L._BinaryenMemoryFillGetSize, L._BinaryenMemoryFillSetSize);
    case X.MemoryCopy:
      return bulk(c, e, W.base + slot(c, e, L._BinaryenMemoryCopyGetDest, L._BinaryenMemoryCopySetDest) + slot(c, e, L._BinaryenMemoryCopyGetSource, L._BinaryenMemoryCopySetSource), L._BinaryenMemoryCopyGetSize, L._BinaryenMemoryCopySetSize);
    case X.MemoryInit:
      return bulk(c, e, W.base + slot(c, e, L._BinaryenMemoryInitGetDest, L._BinaryenMemoryInitSetDest) + slot(c, e, L._BinaryenMemoryInitGetOffset, L._BinaryenMemoryInitSetOffset), L._BinaryenMemoryInitGetSize, L._BinaryenMemoryInitSetSize);
    default:
      return invalid(`instruction kind ${id} is not allowed in contracts`);
  }
}

function binaryFuel(op: number): number {
  if (DIV_REM_32.has(op)) return INSTRUCTION_FUEL.divRem;
  if (DIV_REM_64.has(op)) return INSTRUCTION_FUEL.divRem64;
  if (MUL.has(op)) return INSTRUCTION_FUEL.mul;
  if (COMPARE_32.has(op) || COMPARE_64.has(op)) return INSTRUCTION_FUEL.compare;
  return INSTRUCTION_FUEL.base;
}

function unaryFuel(op: number): number {
  return op === EQZ_32 || op === EQZ_64 ? INSTRUCTION_FUEL.compare : INSTRUCTION_FUEL.base;
}

/** An i32 compare or i32.eqz, which the baseline compiler fuses into the `if` or `br_if` it is directly the condition of. */
function fusesIntoBranch(e: Ref): boolean {
  const id = L._BinaryenExpressionGetId(e);
  if (id === X.Binary) return COMPARE_32.has(L._BinaryenBinaryGetOp(e));
  return id === X.Unary && L._BinaryenUnaryGetOp(e) === EQZ_32;
}

/** The condition of an `if` or `br_if` (`slot`), its compare at `base` when the jump fuses it (INSTRUCTION_FUEL.compare). */
function condition(c: Ctx, parent: Ref, get: (e: Ref) => Ref, set: (e: Ref, x: Ref) => void): number {
  const cond = get(parent);
  const fused = cond !== 0 && fusesIntoBranch(cond);
  return slot(c, parent, get, set) - (fused ? INSTRUCTION_FUEL.compare - INSTRUCTION_FUEL.base : 0);
}

/** A bulk instruction: its size operand visited, then charged per byte when it is evaluated. */
function bulk(c: Ctx, e: Ref, cost: number, get: (e: Ref) => Ref, set: (e: Ref, x: Ref) => void): number {
  const n = cost + slot(c, e, get, set);
  set(e, bulkCharged(c, get(e)));
  return n;
}

/** Meters a block in place: its entry charges what it holds directly (and `extra`, a loop iteration's own). */
function meterBlock(c: Ctx, e: Ref, extra: number): void {
  let n = INSTRUCTION_FUEL.region + extra;
  const count = L._BinaryenBlockGetNumChildren(e);
  for (let i = 0; i < count; i++) n += slot(c, e, (x) => L._BinaryenBlockGetChildAt(x, i), (x, v) => L._BinaryenBlockSetChildAt(x, i, v));
  L._BinaryenBlockInsertChildAt(e, 0, charge(c, n));
}

/** A region that is not a block (a loop body, an if arm, a function body): wrapped in one that charges on entry. */
function region(c: Ctx, e: Ref): Ref {
  const n = INSTRUCTION_FUEL.region + visit(c, e);
  const content = c.swap !== 0 ? c.swap : e;
  c.swap = 0;
  return c.m.block(null, [charge(c, n), content], L._BinaryenExpressionGetType(content));
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
    if (t.initial > MAX_TABLE_SLOTS) invalid(`table ${t.name} starts with ${t.initial} slots, above ${MAX_TABLE_SLOTS}`);
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
  // Before anything recursive parses it: how deep the code nests decides nothing node-dependent.
  checkCodeShape(bytes);
  let m: BinaryenNs.Module;
  try {
    // Without its custom sections, so internal names are the indices Binaryen gives (the memory
    // is "0") whatever names the author's build kept.
    m = (binaryen.readBinary as (b: Uint8Array, f: number) => BinaryenNs.Module)(withoutCustomSections(bytes), ALLOWED_FEATURES);
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
  // Only the entry points stay exported: every export costs V8 an object at each instantiation.
  const exports: string[] = [];
  const unused: string[] = [];
  for (let i = 0; i < m.getNumExports(); i++) {
    const e = binaryen.getExportInfo(m.getExportByIndex(i));
    if (e.kind === binaryen.ExternalFunction) exports.push(e.name);
    if (e.kind !== binaryen.ExternalFunction || !ENTRY_EXPORTS.has(e.name)) unused.push(e.name);
  }
  exports.sort();
  for (const name of unused) m.removeExport(name);

  const fuel = `${METERING_MODULE}$fuel`;
  const stack = `${METERING_MODULE}$stack`;
  // Module-internal globals (an imported mutable global costs V8 an indirection on every
  // charge), exported so the host sets them before a call and carries them across contract levels.
  m.addGlobal(fuel, i64, true, (m.i64.const as unknown as (v: bigint) => Ref)(0n));
  m.addGlobal(stack, i32, true, m.i32.const(0));
  m.addGlobalExport(fuel, FUEL_EXPORT);
  m.addGlobalExport(stack, STACK_EXPORT);
  // __charge(n): fuel -= n (unsigned); traps like the inline charges when it goes below zero.
  const chargeFn = `${METERING_MODULE}$charge`;
  m.addFunction(chargeFn, i32, none, [], m.block(null, [
    m.global.set(fuel, m.i64.sub(m.global.get(fuel, i64), m.i64.extend_u(m.local.get(0, i32)))),
    m.if(m.i64.lt_s(m.global.get(fuel, i64), (m.i64.const as unknown as (v: bigint) => Ref)(0n)), m.unreachable()),
  ]));
  m.addFunctionExport(chargeFn, CHARGE_EXPORT);
  // grow(delta) -> old pages: the host charges, checks the cap, then grows (engine.ts).
  m.addFunctionImport(`${METERING_MODULE}$grow`, METERING_MODULE, 'grow', i32, i32);

  for (const f of declared) {
    const params = typeList(f.params);
    const weight = 1 + params.length + f.vars.length;
    // Scratch locals after the function's own: a bulk size, the count, a call's result.
    const own = params.length + f.vars.length;
    const c: Ctx = { m, fuel, tmp32: own, count: own + 1, result32: own + 2, result64: own + 3, swap: 0 };
    let body: Ref;
    if (L._BinaryenExpressionGetId(f.body) === X.Block) {
      meterBlock(c, f.body, 0);
      body = f.body;
    } else {
      body = region(c, f.body);
    }
    body = m.block(null, [reloadCount(c), body], f.results);
    // The body moves to `<name>$body`; `<name>` (what calls, exports and tables name) becomes the
    // stack-counting wrapper around it.
    const inner = `${f.name}$body`;
    m.addFunction(inner, f.params, f.results, [...f.vars, i32, i64, i32, i64], body);
    const func = m.getFunction(f.name);
    const results = typeList(f.results);
    const args = params.map((t, i) => m.local.get(i, t));
    const enter = m.block(null, [
      m.global.set(stack, m.i32.add(m.global.get(stack, i32), m.i32.const(weight))),
      m.if(m.i32.gt_u(m.global.get(stack, i32), m.i32.const(limits.maxStack)), m.unreachable()),
    ]);
    const leave = m.global.set(stack, m.i32.sub(m.global.get(stack, i32), m.i32.const(weight)));
    let wrapper: Ref;
    if (results.length === 0) {
      wrapper = m.block(null, [enter, m.call(inner, args, none), leave]);
    } else {
      const tmp = L._BinaryenFunctionGetNumLocals(func);
      L._BinaryenFunctionAddVar(func, f.results);
      wrapper = m.block(null, [enter, m.local.set(tmp, m.call(inner, args, f.results)), leave, m.local.get(tmp, f.results)], f.results);
    }
    L._BinaryenFunctionSetBody(func, wrapper);
  }
  // The memory becomes an import the host creates with the capped maximum (segments stay).
  m.addMemoryImport('0', METERING_MODULE, 'memory');
  if (validatorOutput(m) !== undefined) throw new Error('metering produced an invalid module (a bug in plugins/contracts/vm/instrument.ts)');
  // No Binaryen optimisation afterwards: V8 inlines the small wrappers itself (bench/contracts.bench
  // measured the same speed with and without it), and a cold optimiser cost seconds per module.
  return { binary: m.emitBinary(), exports, memory: { initial: mem.initial, maximum }, instanceFuel: instanceFuelOf(m, mem.initial) };
}

/** What instantiating the metered module costs (INSTANCE_FUEL): its functions, globals, tables, elements, data and pages. */
function instanceFuelOf(m: BinaryenNs.Module, pages: number): number {
  const P = INSTANCE_FUEL;
  let slots = 0;
  for (let i = 0; i < m.getNumTables(); i++) slots += L._BinaryenTableGetInitial(m.getTableByIndex(i));
  let elements = 0;
  for (let i = 0; i < m.getNumElementSegments(); i++) elements += L._BinaryenElementSegmentGetLength(m.getElementSegmentByIndex(i));
  let data = 0;
  const segments = m as unknown as { getNumDataSegments(): number; getDataSegmentByIndex(i: number): number };
  for (let i = 0; i < segments.getNumDataSegments(); i++) data += L._BinaryenGetDataSegmentByteLength(segments.getDataSegmentByIndex(i));
  return P.base + P.perFunction * m.getNumFunctions() + P.perGlobal * m.getNumGlobals() + P.perTableSlot * slots + P.perElement * elements + P.perDataByte * data + P.perPage * pages;
}
