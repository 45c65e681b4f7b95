import { scanModule, type HostSignature, type ModuleFacts } from './scan.js';

/** decisions.md §46: the analyzer's name and version; any change to a rule or weight is a new name. */
export const STATIC_V1 = 'static-v1';

export type Severity = 'low' | 'medium' | 'high' | 'critical';

export interface Violation {
  readonly rule: string;
  readonly severity: Severity;
  readonly weight: number;
  readonly message: string;
  /** Byte offset of the first occurrence, for rules about an instruction or an import. */
  readonly offset?: number;
}

export interface StaticAnalysis {
  /** min(100, the sum of the fired rules' weights). */
  readonly risk_score: number;
  readonly model: string;
  /** The fired rules in §46's table order. */
  readonly violations: readonly Violation[];
}

interface Rule {
  readonly rule: string;
  readonly severity: Severity;
  readonly weight: number;
  /** undefined: the rule does not fire; a number: it fires at that offset; `null`: it fires and has no offset. */
  readonly fires: (f: ModuleFacts) => number | null | undefined;
  readonly message: (f: ModuleFacts) => string;
}

const at = (offset: number | undefined): number | undefined => offset;
const when = (b: boolean): null | undefined => (b ? null : undefined);

/** §46's table, in its order: the weights are integers and the sum is capped, nothing else. */
export const RULES: readonly Rule[] = [
  { rule: 'float-instruction', severity: 'critical', weight: 80, fires: (f) => at(f.floatAt), message: () => 'the module uses an f32, f64 or v128 type or a floating-point or vector instruction: results may differ between machines' },
  { rule: 'unknown-import', severity: 'critical', weight: 80, fires: (f) => at(f.unknownImportAt), message: () => 'an import is not a function of the node\'s host API (module "env", name and signature as documented in plugins/contracts/README.md)' },
  { rule: 'start-function', severity: 'high', weight: 40, fires: (f) => when(f.hasStart), message: () => 'the module has a start function, which runs on instantiation before any call' },
  { rule: 'missing-call-export', severity: 'high', weight: 40, fires: (f) => when(!f.exportsCall), message: () => 'no function is exported as `call`: the contract cannot be called' },
  { rule: 'unbounded-loop', severity: 'high', weight: 40, fires: (f) => at(f.unboundedLoopAt), message: () => 'a loop ends with an unconditional branch back to itself and has no branch out and no return: it runs until out of fuel' },
  { rule: 'memory-grow-in-loop', severity: 'high', weight: 40, fires: (f) => at(f.memoryGrowInLoopAt), message: () => 'memory.grow inside a loop' },
  { rule: 'recursion', severity: 'medium', weight: 15, fires: (f) => at(f.recursionAt), message: () => 'a function calls itself, directly or through other functions of the module' },
  { rule: 'host-call-in-loop', severity: 'medium', weight: 10, fires: (f) => at(f.hostCallInLoopAt), message: () => 'storage_write, emit_event or call_contract is called inside a loop' },
  { rule: 'large-initial-memory', severity: 'medium', weight: 10, fires: (f) => when(f.initialPages > 16), message: (f) => `the memory's initial size is ${f.initialPages} pages, above 16` },
  { rule: 'indirect-call', severity: 'low', weight: 5, fires: (f) => at(f.indirectCallAt), message: () => 'a call_indirect instruction: its target is chosen at run time' },
  { rule: 'cross-contract-call', severity: 'low', weight: 5, fires: (f) => at(f.callContractImportAt), message: () => 'the module imports call_contract and may call other contracts' },
  { rule: 'large-bytecode', severity: 'low', weight: 5, fires: (f) => when(f.size > 65_536), message: (f) => `the bytecode is ${f.size} bytes, above 65 536` },
  { rule: 'exported-global', severity: 'low', weight: 5, fires: (f) => when(f.exportsMutableGlobal), message: () => 'a mutable global is exported' },
];

/** The risk of a module's facts under static-v1: pure, integer-only, the same on every machine. */
export function judge(facts: ModuleFacts): StaticAnalysis {
  const violations: Violation[] = [];
  let sum = 0;
  for (const r of RULES) {
    const fired = r.fires(facts);
    if (fired === undefined) continue;
    sum += r.weight;
    const v: Violation = { rule: r.rule, severity: r.severity, weight: r.weight, message: r.message(facts) };
    violations.push(fired === null ? v : { ...v, offset: fired });
  }
  return { risk_score: Math.min(100, sum), model: STATIC_V1, violations };
}

/** static-v1 of `bytes` (throws UnreadableModule for bytes that are not a module wasmparser reads). */
export function analyzeStaticV1(bytes: Uint8Array, host: ReadonlyMap<string, HostSignature>, hostModule: string): StaticAnalysis {
  return judge(scanModule(bytes, host, hostModule));
}
