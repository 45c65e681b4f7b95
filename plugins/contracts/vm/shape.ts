import { badRequest } from '../../../kernel/sdk.js';

/**
 * How deep a contract's code nests, checked on its bytes before anything parses them into a tree.
 *
 * Binaryen's reader and the metering pass recurse once per level of nested blocks and per level of
 * nested operands (a run of `i32.const` followed by as many `i32.add` is an expression tree that
 * deep). Past a few thousand levels they overflow the thread's stack, and where that happens
 * depends on the thread's stack size and on V8's frame sizes, so the same deploy would be refused
 * (400) on one node and accepted on another. This scan walks each function body once, iteratively,
 * counting open control blocks, values on the operand stack and the depth of the tree they build,
 * and refuses code past MAX_CONTROL_DEPTH, MAX_OPERAND_DEPTH or MAX_TREE_DEPTH the same way on
 * every node. Compilers stay far below
 * (the AssemblyScript token: see shape.test.ts). Opcodes outside the features contracts may use
 * are refused here too; everything else about validity is still Binaryen's to judge.
 */
export const MAX_CONTROL_DEPTH = 512;
export const MAX_OPERAND_DEPTH = 1024;
/** Depth of the tree Binaryen builds (blocks and expressions together); left-deep chains overflowed near 10 000. */
export const MAX_TREE_DEPTH = 1024;

export interface CodeShape {
  /** Deepest nesting of block, loop and if in any function. */
  readonly controlDepth: number;
  /** Most values on one function's operand stack at once. */
  readonly operandDepth: number;
  /** Deepest tree of blocks and expressions in any function, as Binaryen will build it. */
  readonly treeDepth: number;
}

/** What the metering pass works through: it takes time by function and by byte of code (pricing.ts, DEPLOY_FUEL). */
export interface ModuleShape extends CodeShape {
  /** Functions the module defines. */
  readonly functions: number;
  /** Bytes of the code section (the function bodies). */
  readonly codeBytes: number;
  /** Instructions in all function bodies (each becomes a node of Binaryen's tree). */
  readonly instructions: number;
  /** Blocks, loops, ifs and else arms: where the metering pass inserts a charge. */
  readonly regions: number;
}

/**
 * The module without its custom sections (names, producers, source maps): they change nothing a
 * contract does, and Binaryen would name its internal entities after them (one read of the
 * stripped bytes replaces reading, writing and reading the module again). Sections are copied as
 * they are, never re-encoded.
 */
export function withoutCustomSections(bytes: Uint8Array): Uint8Array {
  const r = new Reader(bytes);
  r.skip(8);
  const keep: Array<[number, number]> = [[0, 8]];
  let custom = false;
  while (r.pos < r.end) {
    const start = r.pos;
    const id = r.byte();
    const size = r.u32();
    const end = r.pos + size;
    if (end > r.end) throw malformed();
    if (id === 0) custom = true;
    else keep.push([start, end]);
    r.pos = end;
  }
  if (!custom) return bytes;
  const out = new Uint8Array(keep.reduce((n, [a, b]) => n + b - a, 0));
  let at = 0;
  for (const [a, b] of keep) {
    out.set(bytes.subarray(a, b), at);
    at += b - a;
  }
  return out;
}

class Reader {
  pos = 0;
  constructor(private readonly b: Uint8Array, readonly end = b.length) {}
  byte(): number {
    if (this.pos >= this.end) throw malformed();
    return this.b[this.pos++]!;
  }
  /** An unsigned LEB128 of up to 32 bits. */
  u32(): number {
    let result = 0;
    let shift = 0;
    for (;;) {
      const byte = this.byte();
      if (shift < 28) result += (byte & 0x7f) * 2 ** shift;
      else if (shift === 28) result += (byte & 0x0f) * 2 ** shift;
      shift += 7;
      if ((byte & 0x80) === 0) return result;
      if (shift > 35) throw malformed();
    }
  }
  /** A signed LEB128 (any width up to 64 bits), skipped. */
  skipLeb(): void {
    for (let i = 0; i < 10; i++) if ((this.byte() & 0x80) === 0) return;
    throw malformed();
  }
  skip(n: number): void {
    if (this.pos + n > this.end) throw malformed();
    this.pos += n;
  }
  /** A block type: empty (0x40), one value type, or a type index (s33), returned as such. */
  blockType(): { readonly kind: 'empty' } | { readonly kind: 'value' } | { readonly kind: 'index'; readonly index: number } {
    const first = this.b[this.pos];
    if (first === 0x40) {
      this.pos++;
      return { kind: 'empty' };
    }
    if (first !== undefined && first >= 0x6f && first <= 0x7f) {
      this.pos++;
      return { kind: 'value' };
    }
    return { kind: 'index', index: this.u32() };
  }
  limits(): void {
    const flags = this.byte();
    this.u32();
    if (flags & 1) this.u32();
  }
}

function malformed(): Error {
  return badRequest('invalid bytecode: the module is malformed');
}

function refused(what: string): never {
  throw badRequest(`invalid bytecode: ${what}`);
}

interface FuncType {
  readonly params: number;
  readonly results: number;
}

/** Opcodes 0x45–0xc4 with no immediate: how many values each pops (pushing one). */
function numericPops(op: number): number | undefined {
  if (op === 0x45 || op === 0x50) return 1; // eqz
  if (op >= 0x46 && op <= 0x66) return 2; // comparisons
  if ((op >= 0x67 && op <= 0x69) || (op >= 0x79 && op <= 0x7b) || (op >= 0x8b && op <= 0x91) || (op >= 0x99 && op <= 0x9f)) return 1; // unary
  if ((op >= 0x6a && op <= 0x78) || (op >= 0x7c && op <= 0x8a) || (op >= 0x92 && op <= 0x98) || (op >= 0xa0 && op <= 0xa6)) return 2; // binary
  if (op >= 0xa7 && op <= 0xc4) return 1; // conversions, sign extension
  return undefined;
}

/**
 * The nesting of every function body in `bytes` (a module the caller has not parsed yet); 400
 * when it is malformed, uses an opcode contracts may not, or nests past the limits.
 */
export function checkCodeShape(bytes: Uint8Array): ModuleShape {
  const r = new Reader(bytes);
  r.skip(8); // magic and version (checked by the caller)
  const types: FuncType[] = [];
  const funcs: number[] = []; // type index of each function, imports first
  let controlDepth = 0;
  let operandDepth = 0;
  let treeDepth = 0;
  let functions = 0;
  let codeBytes = 0;
  let instructions = 0;
  let regions = 0;
  while (r.pos < r.end) {
    const id = r.byte();
    const size = r.u32();
    const end = r.pos + size;
    if (end > r.end) throw malformed();
    const s = new Reader(bytes, end);
    s.pos = r.pos;
    if (id === 1) {
      for (let n = s.u32(), i = 0; i < n; i++) {
        if (s.byte() !== 0x60) refused('a type that is not a function type');
        const params = s.u32();
        s.skip(params);
        const results = s.u32();
        s.skip(results);
        types.push({ params, results });
      }
    } else if (id === 2) {
      for (let n = s.u32(), i = 0; i < n; i++) {
        s.skip(s.u32());
        s.skip(s.u32());
        const kind = s.byte();
        if (kind === 0) funcs.push(s.u32());
        else if (kind === 1) {
          s.byte();
          s.limits();
        } else if (kind === 2) s.limits();
        else if (kind === 3) s.skip(2);
        else throw malformed();
      }
    } else if (id === 3) {
      for (let n = s.u32(), i = 0; i < n; i++) funcs.push(s.u32());
    } else if (id === 10) {
      codeBytes += size;
      for (let n = s.u32(), i = 0; i < n; i++) {
        functions++;
        const bodySize = s.u32();
        const bodyEnd = s.pos + bodySize;
        if (bodyEnd > end) throw malformed();
        const body = new Reader(bytes, bodyEnd);
        body.pos = s.pos;
        for (let groups = body.u32(), g = 0; g < groups; g++) {
          body.u32();
          body.byte();
        }
        const shape = scanBody(body, types, funcs);
        controlDepth = Math.max(controlDepth, shape.controlDepth);
        operandDepth = Math.max(operandDepth, shape.operandDepth);
        treeDepth = Math.max(treeDepth, shape.treeDepth);
        instructions += shape.instructions;
        regions += shape.regions;
        s.pos = bodyEnd;
      }
    }
    r.pos = end;
  }
  return { controlDepth, operandDepth, treeDepth, functions, codeBytes, instructions, regions };
}

/** An open block while scanning: where its values start on the stack, what it leaves, how deep what it holds goes. */
interface Frame {
  readonly base: number;
  readonly params: number;
  readonly results: number;
  /** Depth of the deepest subtree among its statements so far (and an if's condition). */
  inner: number;
}

/**
 * One function body's instructions. Each value on the operand stack carries the depth of the
 * expression tree that produced it, as Binaryen will build it: an instruction's subtree is one
 * deeper than its deepest operand, a block's one deeper than the deepest thing it holds. So a
 * run of `c c add c add …` (a left-deep tree, two values on the stack at most) counts as deep as
 * it is.
 */
function scanBody(r: Reader, types: readonly FuncType[], funcs: readonly number[]): CodeShape & { instructions: number; regions: number } {
  const frames: Frame[] = [{ base: 0, params: 0, results: 0, inner: 0 }];
  const vals: number[] = [];
  let maxHeight = 0;
  let maxDepth = 0;
  let maxTree = 0;
  let count = 0;
  let regions = 0;
  const top = (): Frame => frames[frames.length - 1]!;
  const typeOf = (index: number): FuncType => types[index] ?? refused(`type index ${index} is out of range`);
  const blockArity = (bt: ReturnType<Reader['blockType']>): FuncType => {
    if (bt.kind === 'index') return typeOf(bt.index);
    return bt.kind === 'empty' ? { params: 0, results: 0 } : { params: 0, results: 1 };
  };
  const note = (depth: number): void => {
    if (depth <= maxTree) return;
    maxTree = depth;
    if (maxTree > MAX_TREE_DEPTH) refused(`expressions and blocks nested more than ${MAX_TREE_DEPTH} deep`);
  };
  /** Pops `n` values (code after an unconditional branch may pop what it never pushed: never below the block's base); the deepest of them. */
  const take = (n: number): number => {
    const base = top().base;
    let deepest = 0;
    for (let i = 0; i < n && vals.length > base; i++) deepest = Math.max(deepest, vals.pop()!);
    return deepest;
  };
  const give = (depth: number, n: number): void => {
    note(depth);
    for (let i = 0; i < n; i++) vals.push(depth);
    if (vals.length > maxHeight) maxHeight = vals.length;
    if (maxHeight > MAX_OPERAND_DEPTH) refused(`a function keeps more than ${MAX_OPERAND_DEPTH} values on its operand stack (expressions nested too deep)`);
  };
  const statement = (depth: number): void => {
    note(depth);
    const f = top();
    if (depth > f.inner) f.inner = depth;
  };
  /** An instruction that pops `pops` values and pushes `pushes`. */
  const apply = (pops: number, pushes: number): void => {
    const depth = 1 + take(pops);
    if (pushes > 0) give(depth, pushes);
    else statement(depth);
  };
  /** An unconditional branch: a statement of everything on the stack, after which the stack is anything (unreachable code). */
  const leave = (): void => {
    statement(1 + take(vals.length));
    vals.length = top().base;
  };
  const open = (arity: FuncType, condition: number): void => {
    regions++;
    take(arity.params);
    frames.push({ base: vals.length, params: arity.params, results: arity.results, inner: condition });
    give(1, arity.params);
    maxDepth = Math.max(maxDepth, frames.length - 1);
    if (maxDepth > MAX_CONTROL_DEPTH) refused(`blocks nested more than ${MAX_CONTROL_DEPTH} deep`);
  };
  while (r.pos < r.end) {
    const op = r.byte();
    count++;
    const pops = numericPops(op);
    if (pops !== undefined) {
      apply(pops, 1);
      continue;
    }
    switch (op) {
      case 0x00: // unreachable
      case 0x0f: // return
        leave();
        break;
      case 0x0c: // br
        r.u32();
        leave();
        break;
      case 0x01:
        statement(1);
        break;
      case 0x02:
      case 0x03:
        open(blockArity(r.blockType()), 0);
        break;
      case 0x04: {
        const condition = take(1);
        open(blockArity(r.blockType()), condition);
        break;
      }
      case 0x05: {
        regions++;
        const f = top();
        statement(1 + take(vals.length - f.base));
        vals.length = f.base;
        give(1, f.params);
        break;
      }
      case 0x0b: {
        const f = top();
        const depth = 1 + Math.max(f.inner, take(vals.length - f.base));
        frames.pop();
        vals.length = f.base;
        note(depth);
        if (frames.length === 0) return { controlDepth: maxDepth, operandDepth: maxHeight, treeDepth: maxTree, instructions: count, regions };
        if (f.results > 0) give(depth, f.results);
        else statement(depth);
        break;
      }
      case 0x0d:
        r.u32();
        apply(1, 0);
        break;
      case 0x0e:
        for (let n = r.u32(), i = 0; i <= n; i++) r.u32();
        leave();
        break;
      case 0x10: {
        const t = typeOf(funcs[r.u32()] ?? refused('a call to a function index out of range'));
        apply(t.params, t.results);
        break;
      }
      case 0x11: {
        const t = typeOf(r.u32());
        r.u32();
        apply(1 + t.params, t.results);
        break;
      }
      case 0x1a:
        apply(1, 0);
        break;
      case 0x1b:
        apply(3, 1);
        break;
      case 0x1c:
        r.skip(r.u32());
        apply(3, 1);
        break;
      case 0x20:
      case 0x23:
        r.u32();
        apply(0, 1);
        break;
      case 0x21:
      case 0x24:
        r.u32();
        apply(1, 0);
        break;
      case 0x22:
        r.u32();
        apply(1, 1);
        break;
      case 0x3f:
        r.byte();
        apply(0, 1);
        break;
      case 0x40:
        r.byte();
        apply(1, 1);
        break;
      case 0x41:
      case 0x42:
        r.skipLeb();
        apply(0, 1);
        break;
      case 0x43:
        r.skip(4);
        apply(0, 1);
        break;
      case 0x44:
        r.skip(8);
        apply(0, 1);
        break;
      case 0xfc:
        prefixed(r, apply);
        break;
      default:
        if (op >= 0x28 && op <= 0x3e) {
          r.u32();
          r.u32();
          if (op <= 0x35) apply(1, 1);
          else apply(2, 0);
          break;
        }
        refused(`opcode 0x${op.toString(16)} is not allowed in contracts`);
    }
  }
  throw malformed();
}

/** The 0xfc instructions contracts may use: saturating truncations and bulk memory. */
function prefixed(r: Reader, apply: (pops: number, pushes: number) => void): void {
  const sub = r.u32();
  if (sub <= 7) apply(1, 1);
  else if (sub === 8) {
    r.u32();
    r.byte();
    apply(3, 0);
  } else if (sub === 9) {
    r.u32();
    apply(0, 0);
  } else if (sub === 10) {
    r.byte();
    r.byte();
    apply(3, 0);
  } else if (sub === 11) {
    r.byte();
    apply(3, 0);
  } else refused(`opcode 0xfc ${sub} is not allowed in contracts`);
}
