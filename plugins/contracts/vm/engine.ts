import { LRUCache } from 'lru-cache';
import { badRequest } from '../../../kernel/sdk.js';
import { FUEL_EXPORT, instrument, loadBinaryen, METERING_MODULE, STACK_EXPORT, type InstrumentedCode, type InstrumentLimits } from './instrument.js';
import { HOST_MODULE } from './host-api.js';

/**
 * The contract VM: metered modules compiled once per code hash (a bounded LRU), a fresh instance
 * per call, host functions over a synchronous view of state (state.ts) and one fuel and one stack
 * counter shared by the whole call tree. Everything here is synchronous: a storage read the view
 * does not hold yet throws `NeedKey`, and the driver (runner.ts) fetches it and runs the call
 * again from the start with the same inputs.
 */

export type TrapKind = 'out_of_fuel' | 'stack' | 'memory' | 'depth' | 'trap';

/** A contract stopped abnormally: the transaction fails, its writes roll back. */
export class ContractTrap extends Error {
  /** Fuel the call tree had used when it stopped (set by Vm.run). */
  fuelUsed: bigint | undefined;
  constructor(readonly kind: TrapKind, message: string) {
    super(message);
  }
}

/** A storage key the synchronous view has not fetched yet (state.ts): not a contract outcome. */
export class NeedKey extends Error {
  /** Fuel the interrupted run had used (set by Vm.run). */
  fuelUsed = 0n;
  constructor(readonly key: string) {
    super(`state key ${key} not fetched yet`);
  }
}

export interface ContractEvent {
  readonly contract: string;
  readonly name: string;
  readonly data: string;
}

/** What the host functions reach: one call tree's state, block and outputs. */
export interface CallEnv {
  readonly height: number;
  readonly time: number;
  /** Code of a deployed contract (throws NeedKey until fetched); undefined when no contract is there. */
  code(address: string): { readonly codeHash: string; readonly bytes: Uint8Array } | undefined;
  read(contract: string, key: Uint8Array): Uint8Array | undefined;
  write(contract: string, key: Uint8Array, value: Uint8Array): void;
  remove(contract: string, key: Uint8Array): void;
  readonly events: ContractEvent[];
}

export interface VmLimits extends InstrumentLimits {
  /** Contract levels of one call tree (part 1, Contract execution 8: 8). */
  readonly maxDepth: number;
}

/** Fuel the host charges for its own work, on top of the instructions. */
export const HOST_FUEL = {
  call: 100n,
  /** Each byte moved between the contract's memory and the host. */
  perByte: 1n,
  storageWrite: 500n,
  /** Each byte of key and value a write stores: state every node keeps (1 MiB ≈ 10 500 gas at the default rate). */
  storedByte: 100n,
  /** Each byte of an event's name and data: kept with the block on every node. */
  eventByte: 20n,
  contractCall: 1_000n,
} as const;

interface Compiled {
  readonly module: WebAssembly.Module;
  readonly memory: { readonly initial: number; readonly maximum: number };
  readonly exports: readonly string[];
}

export interface CallFrame {
  readonly contract: string;
  readonly caller: string;
  /** Export to run: `call` with the input, or `init` (no input). */
  readonly entry: 'call' | 'init';
  readonly input: Uint8Array;
}

export interface CallOutcome {
  readonly returnData: Uint8Array;
  /** Fuel the call tree used (at most the budget). */
  readonly fuelUsed: bigint;
}

const decoder = new TextDecoder('utf-8', { fatal: false });

/** One call tree's counters between contract levels. */
interface Tree {
  fuel: bigint;
  stack: number;
  /** The innermost stopped frame has handed its fuel over (see Vm.frame). */
  settled: boolean;
}

/**
 * Where instrumented code is kept node-locally beyond this process's caches (the plugin's index,
 * written at deploy in the block's batch). Only a cache: metering is deterministic, so bytes read
 * from it equal a fresh instrumentation and fuel is the same on a node that has none of them.
 */
export interface MeteredStore {
  load(key: string): Promise<InstrumentedCode | undefined>;
}

/** The key of a code hash metered with given limits (governance may change them). */
export const meteredKey = (codeHash: string, limits: InstrumentLimits): string => `${codeHash}:${limits.maxPages}:${limits.maxStack}`;

export class Vm {
  private readonly compiled: LRUCache<string, Compiled>;
  /**
   * Instrumented bytes, bounded by their size: a miss of `compiled` costs V8's compile only, not
   * Binaryen's metering pass (hundreds of milliseconds for a large module).
   */
  private readonly metered: LRUCache<string, InstrumentedCode>;
  private store: MeteredStore | undefined;
  /** Metering passes this VM ran (tests show a cache miss reused stored bytes). */
  instrumentations = 0;

  constructor(cacheSize = 64, meteredBytes = 128 * 1024 * 1024) {
    this.compiled = new LRUCache({ max: cacheSize });
    this.metered = new LRUCache({ maxSize: meteredBytes, sizeCalculation: (c) => Math.max(1, c.binary.length) });
  }

  /** Loads the toolkit prepare() needs; every async entry point (runner, deploy, admission) awaits it. */
  ready(): Promise<void> {
    return loadBinaryen();
  }

  /** Reads instrumented code from `store` on a cache miss (see preload). */
  useStore(store: MeteredStore): void {
    this.store = store;
  }

  /** Forgets compiled modules (as after 64 other contracts ran); instrumented bytes stay. */
  clearCompiled(): void {
    this.compiled.clear();
  }

  /** Forgets instrumented bytes held in memory (as a restarted node). */
  clearMetered(): void {
    this.metered.clear();
  }

  /**
   * Before a run needs it synchronously: brings a code hash's instrumented bytes from the store
   * into memory when neither cache holds it. Absent from the store (a node that state-synced, a
   * deploy in this very block), prepare() instruments it once.
   */
  async preload(codeHash: string, limits: InstrumentLimits): Promise<void> {
    const key = meteredKey(codeHash, limits);
    if (!this.store || this.compiled.has(key) || this.metered.has(key)) return;
    const stored = await this.store.load(key);
    if (stored) this.metered.set(key, stored);
  }

  /** Instruments bytecode (400 on refusal), or takes it from memory when done before. */
  meter(codeHash: string, bytes: Uint8Array, limits: InstrumentLimits): InstrumentedCode {
    const key = meteredKey(codeHash, limits);
    const hit = this.metered.get(key);
    if (hit) return hit;
    this.instrumentations++;
    const out = instrument(bytes, limits);
    this.metered.set(key, out);
    return out;
  }

  /**
   * Admission of a deploy (not consensus): the cheap checks first, so bytes that V8's validator
   * (parse and validate, a few milliseconds) refuses never reach Binaryen's metering pass; then prepare(). A block
   * still decides with instrument() alone, the same on every node whatever its V8.
   */
  admit(codeHash: string, bytes: Uint8Array, limits: InstrumentLimits): void {
    const key = meteredKey(codeHash, limits);
    if (this.compiled.has(key) || this.metered.has(key)) return;
    if (!WebAssembly.validate(bytes)) throw badRequest('invalid bytecode: the module does not validate');
    this.prepare(codeHash, bytes, limits);
  }

  /**
   * Checks and meters bytecode (400 on refusal) and keeps its compiled module under its hash and
   * the limits it was metered with (governance may change them).
   */
  prepare(codeHash: string, bytes: Uint8Array, limits: InstrumentLimits): Compiled {
    const key = meteredKey(codeHash, limits);
    const hit = this.compiled.get(key);
    if (hit) return hit;
    const out = this.meter(codeHash, bytes, limits);
    const entry: Compiled = { module: new WebAssembly.Module(out.binary), memory: out.memory, exports: out.exports };
    this.compiled.set(key, entry);
    return entry;
  }

  /** Runs one call tree from its root frame with `budget` fuel. Throws ContractTrap or NeedKey. */
  run(env: CallEnv, frame: CallFrame, budget: bigint, limits: VmLimits): CallOutcome {
    const tree: Tree = { fuel: budget, stack: 0, settled: false };
    try {
      const returnData = this.frame(env, frame, tree, 1, limits);
      return { returnData, fuelUsed: budget - tree.fuel };
    } catch (err) {
      const left = tree.fuel;
      const used = left < 0n ? budget : budget - left;
      if (err instanceof NeedKey) {
        err.fuelUsed = used;
        throw err;
      }
      let trap: ContractTrap;
      if (err instanceof ContractTrap) trap = err;
      else if (err instanceof WebAssembly.RuntimeError) trap = new ContractTrap('trap', `contract trapped: ${err.message}`);
      // V8's own stack limit should be out of reach (the stack counter stops far below it); a
      // RangeError here still fails only this transaction.
      else if (err instanceof RangeError) trap = new ContractTrap('stack', `contract exhausted the native stack: ${err.message}`);
      else throw err;
      trap.fuelUsed = used;
      throw trap;
    }
  }

  private frame(env: CallEnv, frame: CallFrame, tree: Tree, depth: number, limits: VmLimits): Uint8Array {
    if (depth > limits.maxDepth) throw new ContractTrap('depth', `cross-contract call depth ${depth} is above the limit of ${limits.maxDepth}`);
    const code = env.code(frame.contract);
    if (!code) throw new ContractTrap('trap', `no contract at ${frame.contract}`);
    const c = this.prepare(code.codeHash, code.bytes, limits);
    const memory = new WebAssembly.Memory({ initial: c.memory.initial, maximum: c.memory.maximum });
    // This instance's counters, set once it exists (host functions only run after that).
    let fuel: WebAssembly.Global | undefined;
    let stack: WebAssembly.Global | undefined;
    const spend = (amount: bigint): void => {
      const left = (fuel!.value as bigint) - amount;
      fuel!.value = left < 0n ? -1n : left;
      if (left < 0n) throw new ContractTrap('out_of_fuel', 'out of fuel');
    };
    const bytes = (ptr: number, len: number): Uint8Array => {
      if (ptr < 0 || len < 0 || ptr + len > memory.buffer.byteLength) throw new ContractTrap('trap', `contract passed memory [${ptr}, ${ptr + len}) outside its ${memory.buffer.byteLength} bytes`);
      spend(HOST_FUEL.call + HOST_FUEL.perByte * BigInt(len));
      return new Uint8Array(memory.buffer, ptr, len).slice();
    };
    const output = (data: Uint8Array, ptr: number, cap: number): number => {
      spend(HOST_FUEL.perByte * BigInt(data.length));
      if (data.length <= cap) {
        if (ptr < 0 || ptr + data.length > memory.buffer.byteLength) throw new ContractTrap('trap', 'contract output buffer outside its memory');
        new Uint8Array(memory.buffer).set(data, ptr);
      }
      return data.length;
    };
    const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
    let returnData: Uint8Array = new Uint8Array(0);
    const host: Record<string, (...args: never[]) => unknown> = {
      get_caller: (ptr: number, cap: number) => output(utf8(frame.caller), ptr, cap),
      get_self: (ptr: number, cap: number) => output(utf8(frame.contract), ptr, cap),
      storage_read: (kp: number, kl: number, op: number, cap: number) => {
        const value = env.read(frame.contract, bytes(kp, kl));
        return value === undefined ? -1 : output(value, op, cap);
      },
      storage_write: (kp: number, kl: number, vp: number, vl: number) => {
        spend(HOST_FUEL.storageWrite + HOST_FUEL.storedByte * BigInt(Math.max(0, kl) + Math.max(0, vl)));
        env.write(frame.contract, bytes(kp, kl), bytes(vp, vl));
      },
      storage_delete: (kp: number, kl: number) => {
        spend(HOST_FUEL.storageWrite);
        env.remove(frame.contract, bytes(kp, kl));
      },
      set_return: (ptr: number, len: number) => {
        returnData = bytes(ptr, len);
      },
      emit_event: (np: number, nl: number, dp: number, dl: number) => {
        spend(HOST_FUEL.eventByte * BigInt(Math.max(0, nl) + Math.max(0, dl)));
        env.events.push({ contract: frame.contract, name: decoder.decode(bytes(np, nl)), data: decoder.decode(bytes(dp, dl)) });
      },
      call_contract: (ap: number, al: number, ip: number, il: number, op: number, cap: number) => {
        spend(HOST_FUEL.contractCall);
        const callee = decoder.decode(bytes(ap, al));
        const calleeInput = bytes(ip, il);
        tree.fuel = fuel!.value as bigint;
        tree.stack = stack!.value as number;
        const out = this.frame(env, { contract: callee, caller: frame.contract, entry: 'call', input: calleeInput }, tree, depth + 1, limits);
        // The callee returned: its counters are the tree's; this instance goes on with them.
        fuel!.value = tree.fuel;
        tree.settled = false;
        return output(out, op, cap);
      },
      block_height: () => BigInt(env.height),
      block_time: () => BigInt(env.time),
      abort: () => {
        throw new ContractTrap('trap', 'contract aborted');
      },
    };
    const metering = {
      memory,
      out_of_fuel: () => {
        throw new ContractTrap('out_of_fuel', 'out of fuel');
      },
      stack_exhausted: () => {
        throw new ContractTrap('stack', `contract stack above ${limits.maxStack} (deep recursion)`);
      },
      memory_exhausted: () => {
        throw new ContractTrap('memory', `memory growth above the cap of ${c.memory.maximum} pages`);
      },
    };
    const instance = new WebAssembly.Instance(c.module, { [HOST_MODULE]: host, [METERING_MODULE]: metering } as WebAssembly.Imports);
    const ex = instance.exports as Record<string, unknown>;
    fuel = ex[FUEL_EXPORT] as WebAssembly.Global;
    stack = ex[STACK_EXPORT] as WebAssembly.Global;
    fuel.value = tree.fuel;
    stack.value = tree.stack;
    try {
      return this.enter(ex, frame, memory, () => returnData);
    } finally {
      // The innermost frame that stops (returning or throwing) hands its fuel to the tree; the
      // frames it unwinds through keep theirs out of it.
      if (!tree.settled) tree.fuel = fuel.value as bigint;
      tree.settled = true;
    }
  }

  private enter(ex: Record<string, unknown>, frame: CallFrame, memory: WebAssembly.Memory, returnData: () => Uint8Array): Uint8Array {
    const fn = (name: string): ((...a: number[]) => unknown) | undefined => (typeof ex[name] === 'function' ? (ex[name] as (...a: number[]) => unknown) : undefined);
    fn('_start')?.();
    if (frame.entry === 'init') {
      fn('init')?.();
      return returnData();
    }
    const call = fn('call');
    const alloc = fn('alloc');
    if (!call || !alloc) throw new ContractTrap('trap', `contract ${frame.contract} does not export call(input_ptr, input_len) and alloc(len)`);
    const ptr = Number(alloc(frame.input.length));
    if (!Number.isInteger(ptr) || ptr < 0 || ptr + frame.input.length > memory.buffer.byteLength) throw new ContractTrap('trap', 'alloc returned a pointer outside memory');
    new Uint8Array(memory.buffer).set(frame.input, ptr);
    call(ptr, frame.input.length);
    return returnData();
  }
}
