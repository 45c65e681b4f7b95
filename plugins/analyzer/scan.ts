import { BinaryReader, BinaryReaderState, ExternalKind, OperatorCode, SectionCode, bytesToString } from 'wasmparser';
import type { IExportEntry, IFunctionEntry, IFunctionInformation, IGlobalVariable, IImportEntry, IMemoryType, IOperatorInformation, ITypeEntry, Type } from 'wasmparser';

/**
 * What static-v1's rules look at, read from the module's bytes in one streaming pass (wasmparser,
 * README "Why wasmparser"). Every `…At` is the byte offset of the first occurrence in the bytes as
 * submitted; `undefined` when there is none. Nothing here judges: the rules (static-v1.ts) do.
 */
export interface ModuleFacts {
  readonly size: number;
  /** An f32, f64 or v128 type in a signature (type entry), local, global or block type, or a float or vector instruction. */
  readonly floatAt: number | undefined;
  /** The first import that is not a function of the host API with its exact signature. */
  readonly unknownImportAt: number | undefined;
  readonly hasStart: boolean;
  readonly exportsCall: boolean;
  readonly unboundedLoopAt: number | undefined;
  readonly memoryGrowInLoopAt: number | undefined;
  /** The first `call` (in byte order) on a cycle of the call graph between the module's own functions. */
  readonly recursionAt: number | undefined;
  readonly hostCallInLoopAt: number | undefined;
  /** The largest initial size of a memory, defined or imported, in pages. */
  readonly initialPages: number;
  readonly indirectCallAt: number | undefined;
  readonly callContractImportAt: number | undefined;
  readonly exportsMutableGlobal: boolean;
}

/** The host API's functions as the analyzer checks imports against them (module, name, signature). */
export interface HostSignature {
  readonly params: readonly ('i32' | 'i64')[];
  readonly results: readonly ('i32' | 'i64')[];
}

/** Bytes wasmparser could not read as a module (400 where a client sent them). */
export class UnreadableModule extends Error {}

const HOST_CALLS_IN_LOOP: ReadonlySet<string> = new Set(['storage_write', 'emit_event', 'call_contract']);

/** Value type codes as wasmparser reports them (`Type.kind`: the binary encoding read as a signed LEB). */
const KIND = { i32: -1, i64: -2, f32: -3, f64: -4, v128: -5 } as const;

const isFloatType = (t: Type | undefined): boolean => t !== undefined && (t.kind === KIND.f32 || t.kind === KIND.f64 || t.kind === KIND.v128);

const valueName = (t: Type): string => (t.kind === KIND.i32 ? 'i32' : t.kind === KIND.i64 ? 'i64' : `other(${t.code})`);

/** Scalar floating-point opcodes of the MVP and the saturating truncations (0xFC 0–7). */
function isFloatOpcode(code: number): boolean {
  if (code === 0x2a || code === 0x2b || code === 0x38 || code === 0x39 || code === 0x43 || code === 0x44) return true;
  if (code >= 0x5b && code <= 0x66) return true; // f32/f64 comparisons
  if (code >= 0x8b && code <= 0xa6) return true; // f32/f64 arithmetic
  if (code >= 0xa8 && code <= 0xab) return true; // i32.trunc_f32/f64
  if (code >= 0xae && code <= 0xbf) return true; // i64.trunc_f*, converts, demote, promote, reinterprets
  if (code >= 0xfc00 && code <= 0xfc07) return true; // trunc_sat
  return code >= 0xfd000 && code < 0xfe000; // every SIMD (0xFD) instruction, relaxed ones included
}

const BRANCHES: ReadonlySet<number> = new Set([OperatorCode.br, OperatorCode.br_if, OperatorCode.br_table, OperatorCode.br_on_null, OperatorCode.br_on_non_null, OperatorCode.br_on_cast, OperatorCode.br_on_cast_fail]);
const OPENERS: ReadonlySet<number> = new Set([OperatorCode.block, OperatorCode.loop, OperatorCode.if, OperatorCode.try, OperatorCode.try_table]);
const LEAVES_FUNCTION: ReadonlySet<number> = new Set([OperatorCode.return, OperatorCode.return_call, OperatorCode.return_call_indirect, OperatorCode.return_call_ref]);

/** One open `block`, `loop`, `if` or `try` of a function body (index 0 is the body itself). */
interface Frame {
  readonly loop: boolean;
  readonly at: number;
  /** The last instruction at this frame's own level was `br 0` (a loop's own label). */
  lastIsBrSelf: boolean;
  /** The outermost frame index a branch inside this frame targets (-1: a return); Infinity when none leaves. */
  minTarget: number;
}

/**
 * Reads `bytes` once. Throws UnreadableModule for bytes wasmparser cannot read as a module; a
 * module it reads is not thereby valid (the caller asks the engine or the contracts VM for that).
 */
export function scanModule(bytes: Uint8Array, host: ReadonlyMap<string, HostSignature>, hostModule: string): ModuleFacts {
  const data = bytes.slice();
  const reader = new BinaryReader();
  reader.setData(data.buffer, 0, data.length);

  let floatAt: number | undefined;
  let unknownImportAt: number | undefined;
  let hasStart = false;
  let exportsCall = false;
  let unboundedLoopAt: number | undefined;
  let memoryGrowInLoopAt: number | undefined;
  let hostCallInLoopAt: number | undefined;
  let initialPages = 0;
  let indirectCallAt: number | undefined;
  let callContractImportAt: number | undefined;
  let exportsMutableGlobal = false;

  const types: Array<ITypeEntry | undefined> = [];
  /** Imported functions by function index: the host function's name, or undefined for another import. */
  const importedFunctions: Array<string | undefined> = [];
  const globalMutable: boolean[] = [];
  const mutableGlobalExports: number[] = [];
  /** Own-function calls: [caller's function index, callee's function index, byte offset]. */
  const calls: Array<[number, number, number]> = [];
  let bodiesSeen = 0;

  let frames: Frame[] = [];
  let loopsOpen = 0;
  let currentFunction = 0;

  const float = (at: number) => {
    if (floatAt === undefined) floatAt = at;
  };

  // wasmparser reads a section's entry count with its first entry: that entry begins after the count (a LEB128).
  let firstEntryOfSection = false;
  const lebLength = (from: number): number => {
    let n = 1;
    while (from + n - 1 < data.length && (data[from + n - 1]! & 0x80) !== 0) n++;
    return n;
  };

  let ended = false;
  for (;;) {
    const read = reader.position;
    let more: boolean;
    try {
      more = reader.read();
    } catch (err) {
      throw new UnreadableModule(err instanceof Error ? err.message : String(err));
    }
    if (!more) break;
    const state = reader.state;
    if (state === BinaryReaderState.ERROR) throw new UnreadableModule(reader.error?.message ?? 'unreadable module');
    const at = firstEntryOfSection ? read + lebLength(read) : read;
    firstEntryOfSection = state === BinaryReaderState.BEGIN_SECTION;
    switch (state) {
      case BinaryReaderState.END_WASM:
        ended = true;
        break;
      case BinaryReaderState.BEGIN_SECTION: {
        const id = (reader.result as { id: number }).id;
        if (id === SectionCode.Start) hasStart = true;
        // Contents no rule reads: custom sections, element and data segments.
        if (id === SectionCode.Custom || id === SectionCode.Element || id === SectionCode.Data || id === SectionCode.DataCount || id === SectionCode.Tag) reader.skipSection();
        break;
      }
      case BinaryReaderState.TYPE_SECTION_ENTRY: {
        const t = reader.result as ITypeEntry;
        types.push(t);
        if ((t.params ?? []).some(isFloatType) || (t.returns ?? []).some(isFloatType) || (t.fields ?? []).some(isFloatType)) float(at);
        break;
      }
      case BinaryReaderState.IMPORT_SECTION_ENTRY: {
        const e = reader.result as IImportEntry;
        const module = bytesToString(e.module);
        const name = bytesToString(e.field);
        let known = false;
        if (e.kind === ExternalKind.Function) {
          const spec = module === hostModule ? host.get(name) : undefined;
          const sig = e.funcTypeIndex === undefined ? undefined : types[e.funcTypeIndex];
          known = spec !== undefined && sig !== undefined && sameSignature(sig, spec);
          importedFunctions.push(known ? name : undefined);
          if (sig && ((sig.params ?? []).some(isFloatType) || (sig.returns ?? []).some(isFloatType))) float(at);
          if (module === hostModule && name === 'call_contract' && callContractImportAt === undefined) callContractImportAt = at;
        } else if (e.kind === ExternalKind.Memory) {
          initialPages = Math.max(initialPages, (e.type as IMemoryType).limits.initial);
        } else if (e.kind === ExternalKind.Global) {
          const g = e.type as { contentType: Type; mutability: number };
          globalMutable.push(g.mutability === 1);
          if (isFloatType(g.contentType)) float(at);
        }
        if (!known && unknownImportAt === undefined) unknownImportAt = at;
        break;
      }
      case BinaryReaderState.FUNCTION_SECTION_ENTRY:
        void (reader.result as IFunctionEntry);
        break;
      case BinaryReaderState.MEMORY_SECTION_ENTRY:
        initialPages = Math.max(initialPages, (reader.result as IMemoryType).limits.initial);
        break;
      case BinaryReaderState.BEGIN_GLOBAL_SECTION_ENTRY: {
        const g = reader.result as IGlobalVariable;
        globalMutable.push(g.type.mutability === 1);
        if (isFloatType(g.type.contentType)) float(at);
        reader.skipInitExpression();
        break;
      }
      case BinaryReaderState.EXPORT_SECTION_ENTRY: {
        const e = reader.result as IExportEntry;
        if (e.kind === ExternalKind.Function && bytesToString(e.field) === 'call') exportsCall = true;
        if (e.kind === ExternalKind.Global) mutableGlobalExports.push(e.index);
        break;
      }
      case BinaryReaderState.BEGIN_FUNCTION_BODY: {
        const f = reader.result as IFunctionInformation;
        if (f.locals.some((l) => isFloatType(l.type))) float(at);
        currentFunction = importedFunctions.length + bodiesSeen++;
        frames = [{ loop: false, at, lastIsBrSelf: false, minTarget: Infinity }];
        loopsOpen = 0;
        break;
      }
      case BinaryReaderState.CODE_OPERATOR: {
        const op = reader.result as IOperatorInformation;
        const code = op.code;
        const top = frames[frames.length - 1];
        if (top === undefined) throw new UnreadableModule(`an instruction after the end of function ${currentFunction}`);
        if (isFloatOpcode(code) || isFloatType(op.blockType) || isFloatType(op.selectType)) float(at);
        if (code === OperatorCode.end) {
          const done = frames.pop()!;
          if (done.loop) {
            loopsOpen--;
            if (done.lastIsBrSelf && done.minTarget >= frames.length && unboundedLoopAt === undefined) unboundedLoopAt = done.at;
          }
          const parent = frames[frames.length - 1];
          if (parent) {
            parent.minTarget = Math.min(parent.minTarget, done.minTarget);
            parent.lastIsBrSelf = false;
          }
          break;
        }
        if (code === OperatorCode.else || code === OperatorCode.catch || code === OperatorCode.catch_all || code === OperatorCode.delegate) {
          top.lastIsBrSelf = false;
          if (code === OperatorCode.delegate) {
            // `delegate` ends its try like `end` and names a label outside it.
            frames.pop();
            const parent = frames[frames.length - 1];
            if (parent) {
              parent.minTarget = Math.min(parent.minTarget, frames.length - 1 - (op.relativeDepth ?? 0), top.minTarget);
              parent.lastIsBrSelf = false;
            }
          }
          break;
        }
        if (OPENERS.has(code)) {
          top.lastIsBrSelf = false;
          const loop = code === OperatorCode.loop;
          if (loop) loopsOpen++;
          frames.push({ loop, at, lastIsBrSelf: false, minTarget: Infinity });
          if (code === OperatorCode.try_table) {
            for (const h of op.tryTable ?? []) branchTo(frames, h.depth + 1);
          }
          break;
        }
        top.lastIsBrSelf = code === OperatorCode.br && op.brDepth === 0 && top.loop;
        if (BRANCHES.has(code)) {
          if (code === OperatorCode.br_table) for (const d of op.brTable ?? []) branchTo(frames, d);
          else branchTo(frames, op.brDepth ?? 0);
        } else if (LEAVES_FUNCTION.has(code)) {
          top.minTarget = -1;
        } else if (code === OperatorCode.rethrow) {
          // Leaves the try it names as a throw would: not a branch to a label.
        }
        if (code === OperatorCode.memory_grow && loopsOpen > 0 && memoryGrowInLoopAt === undefined) memoryGrowInLoopAt = at;
        if (code === OperatorCode.call_indirect || code === OperatorCode.return_call_indirect) {
          if (indirectCallAt === undefined) indirectCallAt = at;
        }
        if (code === OperatorCode.call || code === OperatorCode.return_call) {
          const callee = op.funcIndex ?? 0;
          if (callee < importedFunctions.length) {
            const name = importedFunctions[callee];
            if (code === OperatorCode.call && name !== undefined && HOST_CALLS_IN_LOOP.has(name) && loopsOpen > 0 && hostCallInLoopAt === undefined) hostCallInLoopAt = at;
          } else if (code === OperatorCode.call) {
            calls.push([currentFunction, callee, at]);
          }
        }
        break;
      }
      case BinaryReaderState.END_FUNCTION_BODY:
        if (frames.length !== 0) throw new UnreadableModule(`function ${currentFunction} ends with ${frames.length} block(s) open`);
        break;
      default:
        break;
    }
  }
  if (!ended) throw new UnreadableModule('the module ends before its last section does');
  for (const g of mutableGlobalExports) if (globalMutable[g]) exportsMutableGlobal = true;
  return {
    size: bytes.length,
    floatAt,
    unknownImportAt,
    hasStart,
    exportsCall,
    unboundedLoopAt,
    memoryGrowInLoopAt,
    recursionAt: firstCallOnCycle(calls),
    hostCallInLoopAt,
    initialPages,
    indirectCallAt,
    callContractImportAt,
    exportsMutableGlobal,
  };
}

/** A branch of relative depth `depth` from the innermost frame: its target frame's index bounds every enclosing frame. */
function branchTo(frames: Frame[], depth: number): void {
  const top = frames[frames.length - 1]!;
  top.minTarget = Math.min(top.minTarget, frames.length - 1 - depth);
}

function sameSignature(t: ITypeEntry, spec: HostSignature): boolean {
  const params = t.params ?? [];
  const results = t.returns ?? [];
  return params.length === spec.params.length && results.length === spec.results.length && params.every((p, i) => valueName(p) === spec.params[i]) && results.every((r, i) => valueName(r) === spec.results[i]);
}

/**
 * The byte offset of the first `call` that lies on a cycle (a self-call included): an edge u→v is
 * on a cycle when u and v are in the same strongly connected component and that component has an
 * edge inside it. Tarjan's algorithm, iterative (a module may have tens of thousands of functions).
 */
export function firstCallOnCycle(calls: ReadonlyArray<readonly [number, number, number]>): number | undefined {
  if (calls.length === 0) return undefined;
  const adj = new Map<number, number[]>();
  for (const [u, v] of calls) {
    let out = adj.get(u);
    if (!out) adj.set(u, (out = []));
    out.push(v);
    if (!adj.has(v)) adj.set(v, []);
  }
  const index = new Map<number, number>();
  const low = new Map<number, number>();
  const component = new Map<number, number>();
  const onStack = new Set<number>();
  const stack: number[] = [];
  let next = 0;
  let components = 0;
  const nodes = [...adj.keys()].sort((a, b) => a - b);
  for (const root of nodes) {
    if (index.has(root)) continue;
    const work: Array<[number, number]> = [[root, 0]];
    index.set(root, next);
    low.set(root, next++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const [v, i] = frame;
      const out = adj.get(v)!;
      if (i < out.length) {
        frame[1] = i + 1;
        const w = out[i]!;
        if (!index.has(w)) {
          index.set(w, next);
          low.set(w, next++);
          stack.push(w);
          onStack.add(w);
          work.push([w, 0]);
        } else if (onStack.has(w)) {
          low.set(v, Math.min(low.get(v)!, index.get(w)!));
        }
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1]![0];
        low.set(parent, Math.min(low.get(parent)!, low.get(v)!));
      }
      if (low.get(v) === index.get(v)) {
        for (;;) {
          const w = stack.pop()!;
          onStack.delete(w);
          component.set(w, components);
          if (w === v) break;
        }
        components++;
      }
    }
  }
  let first: number | undefined;
  for (const [u, v, at] of calls) {
    if (component.get(u) === component.get(v) && (first === undefined || at < first)) first = at;
  }
  return first;
}
