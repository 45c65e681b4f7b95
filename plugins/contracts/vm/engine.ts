import { LRUCache } from 'lru-cache';
import { badRequest, isChainError, NodeFault } from '../../../kernel/sdk.js';
import { CHARGE_EXPORT, ENTRY_EXPORTS, FUEL_EXPORT, instrument, loadBinaryen, METERING_MODULE, STACK_EXPORT, type InstrumentedCode, type InstrumentLimits } from './instrument.js';
import { HOST_MODULE } from './host-api.js';
import { GROW_FUEL, HOST_FUEL } from './pricing.js';
import { MemoryPool } from './memory-pool.js';
import { pinBaselineTier } from './baseline-tier.js';

/**
 * The contract VM: metered modules compiled once per code hash (a bounded LRU), a fresh instance
 * per contract level (its memory reused from a pool, zeroed), host functions over a synchronous
 * view of state and one fuel and one stack counter shared by the whole call tree. Everything here
 * is synchronous. Where state is read asynchronously (runner.ts, in this thread), a storage read
 * the view does not hold yet throws `NeedKey` and the driver runs the call again once it has the
 * key; in the contract thread (worker.ts) reads block on the main thread instead.
 *
 * What the VM charges is pricing.ts. Every charge comes before the work and the allocation it
 * pays for (an instance, a memory, a grow, bytes copied out of the contract's memory), so a call
 * that cannot pay stops before it allocates, at the same point on every node. What still fails
 * to allocate (the host out of memory or address space) is a NodeFault, never a contract trap:
 * it says nothing about the transaction, and another node would not fail there.
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

/** A storage key the synchronous view has not fetched yet (runner.ts): not a contract outcome. */
export class NeedKey extends Error {
  constructor(readonly key: string) {
    super(`state key ${key} not fetched yet`);
  }
}

export interface ContractEvent {
  readonly contract: string;
  readonly name: string;
  readonly data: string;
}

/** A deployed contract's code as a call sees it: its hash, and its bytes when the compiled module is not at hand. */
export interface ContractCode {
  readonly codeHash: string;
  bytes(): Uint8Array;
}

/** What the host functions reach: one call tree's state, block and outputs. */
export interface CallEnv {
  readonly height: number;
  readonly time: number;
  /** Code of a deployed contract; undefined when no contract is there. */
  code(address: string): ContractCode | undefined;
  read(contract: string, key: Uint8Array): Uint8Array | undefined;
  write(contract: string, key: Uint8Array, value: Uint8Array): void;
  remove(contract: string, key: Uint8Array): void;
  readonly events: ContractEvent[];
  /**
   * Set by Vm.run: the env calls it the first time the tree reads a state key (a storage key, a
   * callee's record or code), before it uses the value. The VM charges HOST_FUEL.firstRead there.
   */
  firstRead?: () => void;
}

export interface VmLimits extends InstrumentLimits {
  /** Contract levels of one call tree (part 1, Contract execution 8: 8). */
  readonly maxDepth: number;
  /** Distinct state keys one call tree may read. */
  readonly maxKeys: number;
}

export { HOST_FUEL } from './pricing.js';

interface Compiled {
  readonly module: WebAssembly.Module;
  readonly memory: { readonly initial: number; readonly maximum: number };
  readonly exports: readonly string[];
  readonly instanceFuel: number;
  /** Size of the metered module: what the compiled cache is bounded by. */
  readonly wireBytes: number;
}

/** Code bytes, or how to get them when a cache misses (a contract thread fetches them from the main thread). */
export type CodeBytes = Uint8Array | (() => Uint8Array);

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
const encoder = new TextEncoder();

/** The running instance's fuel: its global (exact, read after it stops) and its charge export (cheap). */
interface Live {
  readonly global: WebAssembly.Global;
  readonly charge: (n: number) => void;
}

const CHARGE_CHUNK = 0xffff_ffff;

/**
 * One call tree's counters. While an instance runs, its fuel global holds the count (`live`);
 * between levels the tree does.
 */
class Tree {
  fuel: bigint;
  stack = 0;
  keysRead = 0;
  /** A level trapped with its stack counter past the limit (the metered code's stack trap). */
  stackExceeded = false;
  live: Live | undefined;
  constructor(fuel: bigint) {
    this.fuel = fuel;
  }
  left(): bigint {
    return this.live ? (this.live.global.value as bigint) : this.fuel;
  }
  /**
   * Charges `n` fuel (a safe integer) before the work it pays for. In an instance the module's
   * `__charge` does it and traps as the metered code does when the count goes below zero;
   * between levels it is the tree's count, and running out throws the trap here.
   */
  spend(n: number): void {
    if (this.live) {
      let rest = n;
      while (rest > CHARGE_CHUNK) {
        this.live.charge(CHARGE_CHUNK);
        rest -= CHARGE_CHUNK;
      }
      this.live.charge(rest);
      return;
    }
    const left = this.fuel - BigInt(n);
    this.fuel = left < 0n ? -1n : left;
    if (left < 0n) throw new ContractTrap('out_of_fuel', 'out of fuel');
  }
}

/**
 * Where instrumented code is kept node-locally beyond this process's caches (the plugin's index,
 * written at deploy in the block's batch). Only a cache: metering is deterministic, so bytes read
 * from it equal a fresh instrumentation and fuel is the same on a node that has none of them.
 * `load` serves a run in this thread (awaited before it, see `preload`); `loadSync` a run in the
 * contract thread, which blocks on the main thread for it.
 */
export interface MeteredStore {
  load?(key: string): Promise<InstrumentedCode | undefined>;
  loadSync?(key: string): InstrumentedCode | undefined;
}

/** The key of a code hash metered with given limits (governance may change them) and this build's schedule. */
export const meteredKey = (codeHash: string, limits: InstrumentLimits): string => `${codeHash}:${limits.maxPages}:${limits.maxStack}:${METERING_VERSION}`;
/** Bumped with every change to what instrument.ts injects, so bytes metered by an older build are not reused. */
export const METERING_VERSION = 'm4';

/** Bytes of compiled modules kept (their wire size): an attacker must deploy more code than this, priced per byte, to make calls compile again. */
const COMPILED_CACHE_BYTES = 256 * 1024 * 1024;

export class Vm {
  private readonly compiled: LRUCache<string, Compiled>;
  /**
   * Instrumented bytes, bounded by their size: a miss of `compiled` costs V8's compile only, not
   * Binaryen's metering pass (hundreds of milliseconds for a large module).
   */
  private readonly metered: LRUCache<string, InstrumentedCode>;
  private store: MeteredStore | undefined;
  private readonly memories = new MemoryPool();
  /** Metering passes this VM ran (tests show a cache miss reused stored bytes). */
  instrumentations = 0;

  constructor(compiledBytes = COMPILED_CACHE_BYTES, meteredBytes = 128 * 1024 * 1024) {
    pinBaselineTier();
    this.compiled = new LRUCache({ maxSize: compiledBytes, sizeCalculation: (c) => Math.max(1, c.wireBytes) });
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

  /** Forgets compiled modules (as after the cache filled with other contracts); instrumented bytes stay. */
  clearCompiled(): void {
    this.compiled.clear();
  }

  /** Forgets instrumented bytes held in memory (as a restarted node). */
  clearMetered(): void {
    this.metered.clear();
  }

  /**
   * Before a run in this thread needs it synchronously: brings a code hash's instrumented bytes
   * from the store into memory when neither cache holds it. Absent from the store (a node that
   * state-synced, a deploy in this very block), prepare() instruments it once.
   */
  async preload(codeHash: string, limits: InstrumentLimits): Promise<void> {
    const key = meteredKey(codeHash, limits);
    if (!this.store?.load || this.compiled.has(key) || this.metered.has(key)) return;
    const stored = await this.store.load(key);
    if (stored) this.metered.set(key, stored);
  }

  /** Instruments bytecode (400 on refusal), or takes it from memory or the node's store when done before. */
  meter(codeHash: string, bytes: CodeBytes, limits: InstrumentLimits): InstrumentedCode {
    const key = meteredKey(codeHash, limits);
    const hit = this.metered.get(key) ?? this.store?.loadSync?.(key);
    if (hit) {
      this.metered.set(key, hit);
      return hit;
    }
    this.instrumentations++;
    const out = instrument(typeof bytes === 'function' ? bytes() : bytes, limits);
    this.metered.set(key, out);
    return out;
  }

  /**
   * Admission of a deploy (not consensus): the cheap checks first, so bytes that V8's validator
   * (parse and validate, a few milliseconds) refuses never reach Binaryen's metering pass; then
   * prepare(). A block still decides with instrument() alone, the same on every node whatever
   * its V8.
   */
  admit(codeHash: string, bytes: Uint8Array, limits: InstrumentLimits): InstrumentedCode {
    const key = meteredKey(codeHash, limits);
    const known = this.metered.get(key);
    if (known) return known;
    if (!WebAssembly.validate(bytes)) throw badRequest('invalid bytecode: the module does not validate');
    this.prepare(codeHash, bytes, limits);
    return this.metered.get(key)!;
  }

  /**
   * Checks and meters bytecode (400 on refusal) and keeps its compiled module under its hash and
   * the limits it was metered with (governance may change them).
   */
  prepare(codeHash: string, bytes: CodeBytes, limits: InstrumentLimits): Compiled {
    const key = meteredKey(codeHash, limits);
    const hit = this.compiled.get(key);
    if (hit) return hit;
    const out = this.meter(codeHash, bytes, limits);
    let module: WebAssembly.Module;
    try {
      module = new WebAssembly.Module(out.binary);
    } catch (err) {
      // Binaryen validated what it emitted: V8 refusing it, or running out of memory compiling
      // it, is this node's problem, not the contract's.
      throw new NodeFault(`compiling metered contract code ${codeHash} failed: ${err instanceof Error ? err.message : String(err)}`);
    }
    const entry: Compiled = { module, memory: out.memory, exports: out.exports, instanceFuel: out.instanceFuel, wireBytes: out.binary.length };
    this.compiled.set(key, entry);
    return entry;
  }

  /** Runs one call tree from its root frame with `budget` fuel. Throws ContractTrap, NeedKey or NodeFault. */
  run(env: CallEnv, frame: CallFrame, budget: bigint, limits: VmLimits): CallOutcome {
    const tree = new Tree(budget);
    env.firstRead = () => {
      tree.keysRead++;
      if (tree.keysRead > limits.maxKeys) throw new ContractTrap('trap', `the call read more than ${limits.maxKeys} storage keys`);
      tree.spend(HOST_FUEL.firstRead);
    };
    try {
      const returnData = this.frame(env, frame, tree, 1, limits);
      return { returnData, fuelUsed: budget - tree.fuel };
    } catch (err) {
      if (err instanceof NeedKey || err instanceof NodeFault) throw err;
      const left = tree.left();
      const used = left < 0n ? budget : budget - left;
      let trap: ContractTrap;
      if (err instanceof ContractTrap) trap = err;
      // The metered code traps with `unreachable` when a counter passes its limit: the counters
      // tell those apart from the contract's own traps (which leave them in range).
      else if (err instanceof WebAssembly.RuntimeError && left < 0n) trap = new ContractTrap('out_of_fuel', 'out of fuel');
      else if (err instanceof WebAssembly.RuntimeError && tree.stackExceeded) trap = new ContractTrap('stack', `contract stack above ${limits.maxStack} (deep recursion)`);
      else if (err instanceof WebAssembly.RuntimeError) trap = new ContractTrap('trap', `contract trapped: ${err.message}`);
      // Anything else (V8's own stack limit, which the stack counter keeps far away, an
      // allocation that failed, a host bug) may not happen on another node at this point.
      else throw new NodeFault(`contract execution failed on this node: ${err instanceof Error ? `${err.name}: ${err.message}` : String(err)}`);
      trap.fuelUsed = used;
      throw trap;
    } finally {
      env.firstRead = undefined;
    }
  }

  private frame(env: CallEnv, frame: CallFrame, tree: Tree, depth: number, limits: VmLimits): Uint8Array {
    if (depth > limits.maxDepth) throw new ContractTrap('depth', `cross-contract call depth ${depth} is above the limit of ${limits.maxDepth}`);
    const code = env.code(frame.contract);
    if (!code) throw new ContractTrap('trap', `no contract at ${frame.contract}`);
    let c: Compiled;
    try {
      c = this.prepare(code.codeHash, () => code.bytes(), limits);
    } catch (err) {
      // Code deployed under other limits (governance lowered the memory cap since) is refused the
      // same way on every node.
      if (isChainError(err)) throw new ContractTrap('trap', `contract ${frame.contract} cannot run under the current limits: ${err.message}`);
      throw err;
    }
    // Paid before anything is allocated for this level.
    tree.spend(c.instanceFuel);
    const memory = this.memories.acquire(c.memory.initial, c.memory.maximum);
    let fuel: WebAssembly.Global | undefined;
    let stack: WebAssembly.Global | undefined;
    let live: Live | undefined;
    const spend = (n: number): void => tree.spend(n);
    /** A copy of the contract's bytes [ptr, ptr + len), paid per byte (with `base`) before it is made. */
    const bytes = (ptr: number, len: number, base = 0): Uint8Array => {
      if (ptr < 0 || len < 0 || ptr + len > memory.buffer.byteLength) throw new ContractTrap('trap', `contract passed memory [${ptr}, ${ptr + len}) outside its ${memory.buffer.byteLength} bytes`);
      spend(base + HOST_FUEL.perByte * len);
      return new Uint8Array(memory.buffer, ptr, len).slice();
    };
    const output = (data: Uint8Array, ptr: number, cap: number, base = 0): number => {
      spend(base + HOST_FUEL.perByte * data.length);
      if (data.length <= cap) {
        if (ptr < 0 || ptr + data.length > memory.buffer.byteLength) throw new ContractTrap('trap', 'contract output buffer outside its memory');
        new Uint8Array(memory.buffer).set(data, ptr);
      }
      return data.length;
    };
    const nonNegative = (n: number): number => Math.max(0, n);
    let callerBytes: Uint8Array | undefined;
    let selfBytes: Uint8Array | undefined;
    let returnData: Uint8Array = new Uint8Array(0);
    const host: Record<string, (...args: never[]) => unknown> = {
      get_caller: (ptr: number, cap: number) => output((callerBytes ??= encoder.encode(frame.caller)), ptr, cap, HOST_FUEL.call),
      get_self: (ptr: number, cap: number) => output((selfBytes ??= encoder.encode(frame.contract)), ptr, cap, HOST_FUEL.call),
      storage_read: (kp: number, kl: number, op: number, cap: number) => {
        const value = env.read(frame.contract, bytes(kp, kl, HOST_FUEL.call + HOST_FUEL.storageRead));
        return value === undefined ? -1 : output(value, op, cap);
      },
      storage_write: (kp: number, kl: number, vp: number, vl: number) => {
        spend(HOST_FUEL.call + HOST_FUEL.storageWrite + HOST_FUEL.storedByte * (nonNegative(kl) + nonNegative(vl)));
        env.write(frame.contract, bytes(kp, kl), bytes(vp, vl));
      },
      storage_delete: (kp: number, kl: number) => {
        env.remove(frame.contract, bytes(kp, kl, HOST_FUEL.call + HOST_FUEL.storageDelete));
      },
      set_return: (ptr: number, len: number) => {
        returnData = bytes(ptr, len, HOST_FUEL.call);
      },
      emit_event: (np: number, nl: number, dp: number, dl: number) => {
        spend(HOST_FUEL.call + HOST_FUEL.event + HOST_FUEL.eventByte * (nonNegative(nl) + nonNegative(dl)));
        env.events.push({ contract: frame.contract, name: decoder.decode(bytes(np, nl)), data: decoder.decode(bytes(dp, dl)) });
      },
      call_contract: (ap: number, al: number, ip: number, il: number, op: number, cap: number) => {
        const callee = decoder.decode(bytes(ap, al, HOST_FUEL.call + HOST_FUEL.contractCall));
        const calleeInput = bytes(ip, il);
        // The callee's instance holds the count while it runs; this one takes it back after.
        tree.fuel = fuel!.value as bigint;
        tree.stack = stack!.value as number;
        tree.live = undefined;
        let out: Uint8Array;
        try {
          out = this.frame(env, { contract: callee, caller: frame.contract, entry: 'call', input: calleeInput }, tree, depth + 1, limits);
        } finally {
          fuel!.value = tree.fuel;
          tree.live = live;
        }
        return output(out, op, cap);
      },
      block_height: () => {
        spend(HOST_FUEL.call);
        return BigInt(env.height);
      },
      block_time: () => {
        spend(HOST_FUEL.call);
        return BigInt(env.time);
      },
      abort: () => {
        throw new ContractTrap('trap', 'contract aborted');
      },
    };
    const metering = {
      memory,
      grow: (delta: number): number => {
        const pages = delta >>> 0;
        const current = memory.buffer.byteLength / 65_536;
        spend(GROW_FUEL.perGrow + GROW_FUEL.perPage * pages);
        if (current + pages > c.memory.maximum) throw new ContractTrap('memory', `memory growth above the cap of ${c.memory.maximum} pages`);
        try {
          return memory.grow(pages);
        } catch (err) {
          throw new NodeFault(`growing a contract's memory to ${current + pages} pages failed on this node: ${err instanceof Error ? err.message : String(err)}`);
        }
      },
    };
    let instance: WebAssembly.Instance;
    try {
      instance = new WebAssembly.Instance(c.module, { [HOST_MODULE]: host, [METERING_MODULE]: metering } as WebAssembly.Imports);
    } catch (err) {
      this.memories.release(memory, c.memory.initial, c.memory.maximum);
      // A data segment outside the memory is the contract's (the same everywhere); the rest is not.
      if (err instanceof WebAssembly.RuntimeError) throw new ContractTrap('trap', `contract could not be instantiated: ${err.message}`);
      throw new NodeFault(`instantiating contract ${frame.contract} failed on this node: ${err instanceof Error ? err.message : String(err)}`);
    }
    const ex = instance.exports as Record<string, unknown>;
    fuel = ex[FUEL_EXPORT] as WebAssembly.Global;
    stack = ex[STACK_EXPORT] as WebAssembly.Global;
    live = { global: fuel, charge: ex[CHARGE_EXPORT] as (n: number) => void };
    fuel.value = tree.fuel;
    stack.value = tree.stack;
    const outer = tree.live;
    tree.live = live;
    try {
      return this.enter(ex, frame, memory, () => returnData);
    } finally {
      // Whatever stopped this level, the tree carries on with its count.
      tree.fuel = fuel.value as bigint;
      if ((stack.value as number) > limits.maxStack) tree.stackExceeded = true;
      tree.live = outer;
      this.memories.release(memory, c.memory.initial, c.memory.maximum);
    }
  }

  private enter(ex: Record<string, unknown>, frame: CallFrame, memory: WebAssembly.Memory, returnData: () => Uint8Array): Uint8Array {
    const fn = (name: string): ((...a: number[]) => unknown) | undefined => (ENTRY_EXPORTS.has(name) && typeof ex[name] === 'function' ? (ex[name] as (...a: number[]) => unknown) : undefined);
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
