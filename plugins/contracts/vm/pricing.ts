/**
 * The fuel schedule: what every resource a contract uses costs, in one place (issue 29 item 1).
 *
 * One fuel unit is meant to be about the same time whatever buys it, so that a transaction's gas
 * limit bounds its time and memory, not only its instruction count. The numbers are calibrated by
 * `bench/contracts-calibration.bench.ts`, which measures nanoseconds per fuel unit for every
 * instruction class, host function and instantiation cost below and checks that the slowest is
 * within 4× of the median; `plugins/contracts/README.md` quotes its last run. They are consensus
 * rules: changing one changes the gas of calls, so every validator must run the same schedule
 * (a new schedule is a new build, as any rule change is).
 *
 * Fast instructions (integer arithmetic, locals) cost 1 and are the cheapest per nanosecond: an
 * integer cannot be smaller, and overpricing what is fast is harmless. Everything slower is
 * priced up to the median rate or above. The instruction prices follow the code V8's baseline
 * compiler (Liftoff, the only tier contracts run in: baseline-tier.ts) emits, where a chain of
 * dependent instructions runs at their latency.
 *
 * Schedule 2 (2026-11-28, metering "m4"): a compare whose result is a value, `eqz`, `select` and
 * i64 division priced on their own; first reads, `storage_read`, deletes, calls, table slots and
 * a deploy's instructions, regions and bytes raised. The fuel of most calls went up with it, and
 * so the gas of deploys and of calls above the base 50 gas (bench/contracts-calibration.bench.ts
 * had put compare/select/eqz at 4–8.5×, i64 div/rem at 4–7× and a first read at up to 9.9× the
 * median). 2026-11-29, same metering: `memory.grow` 100 000 fuel a page (was 60 000), charged by
 * the host at run time, so instrumented code is unchanged; contracts that grow memory pay more.
 */

/** Fuel of one instruction, by class; the metering pass (instrument.ts) sums them per control region. */
export const INSTRUCTION_FUEL = {
  /** Any instruction not named below (arithmetic, locals, constants, loads, stores, branches). */
  base: 1,
  /** Entering a block, an if arm or a loop iteration: the charge the meter itself runs there. */
  region: 5,
  /** i32/i64 mul: a multiply's latency on a dependent chain. */
  mul: 3,
  /** i32 div and rem: tens of cycles. */
  divRem: 10,
  /** i64 div and rem: up to several times an i32 division's latency, and the most variable from run to run. */
  divRem64: 40,
  /**
   * A compare (eq, ne, lt, gt, le, ge) or eqz whose result is a value: the baseline compiler
   * emits the compare, a set-on-condition and a zero extension, three dependent steps. An i32
   * compare or i32.eqz that is directly the condition of `if` or `br_if` costs `base` instead:
   * Liftoff fuses it into the conditional jump (i64 ones it does not).
   */
  compare: 4,
  /** select: a test of its condition and a conditional move, at the end of the condition's chain. */
  select: 6,
  /** global.get and global.set: a load or store through the instance in baseline code. */
  global: 3,
  /** A direct call: the callee's stack counting, its frame (locals zeroed), its wrapper. */
  call: 30,
  /** An indirect call: a table lookup and signature check on top of a call. */
  callIndirect: 36,
  /** br_table: a bounds check and an indirect jump. */
  brTable: 4,
} as const;

/** memory.fill, memory.copy and memory.init: fuel per byte their size operand names, charged before they run. */
export const BULK_FUEL_PER_BYTE = 1n;

/**
 * memory.grow, charged before the host grows the memory: per page added (committed and zeroed by
 * the operating system on first touch), and per call, because a memory that grew cannot go back
 * to the pool: the next instance of that contract allocates a new one (memory-pool.ts).
 */
export const GROW_FUEL = {
  perGrow: 300_000,
  perPage: 100_000,
} as const;

/**
 * Instantiating a module, charged from the call tree's fuel before the host allocates anything
 * (a contract level's memory and instance): V8 builds the instance's function table, globals,
 * tables and element segments, copies the data segments, and the memory's initial pages are
 * zeroed. Computed once per code hash by instrument.ts from the module's shape.
 */
export const INSTANCE_FUEL = {
  base: 25_000,
  /** Each function of the metered module (imports and the stack wrappers included). */
  perFunction: 30,
  perGlobal: 300,
  /** Each slot of a table's initial size. */
  perTableSlot: 80,
  /** Each function reference an element segment writes. */
  perElement: 80,
  /** Each byte of data segments copied into memory. */
  perDataByte: 1,
  /** Each initial 64 KiB page of memory (zeroed for a reused memory, committed for a new one). */
  perPage: 8_000,
} as const;

/** Largest table a contract may declare (slots): tables are allocated at instantiation. */
export const MAX_TABLE_SLOTS = 65_536;

/** Fuel the host charges for its own work, on top of the instructions (engine.ts). */
export const HOST_FUEL = {
  /** Every host function call: the boundary crossing and its checks. */
  call: 2_000,
  /** storage_read, on top: the key built and looked up in the call's writes and reads. */
  storageRead: 5_000,
  /** Each byte moved between the contract's memory and the host (arguments, outputs). */
  perByte: 1,
  /** A storage write, before its bytes. */
  storageWrite: 2_000,
  /** Each byte of key and value a write stores: state every node keeps (1 MiB ≈ 10 500 gas at the default rate). */
  storedByte: 100,
  /** A storage delete (3 000 since schedule 2: 2 000 measured 2.7–2.9× the median). */
  storageDelete: 3_000,
  /** Each byte of an event's name and data: kept with the block on every node. */
  eventByte: 20,
  /** An event, before its bytes. */
  event: 2_000,
  /**
   * The first read of a state key in a call tree (a storage key, or a callee's record and code):
   * the node fetches it from its store while the call waits. The run that stopped there is charged
   * too, as fuel already used (runner.ts: the read premium). A contract thread's read waits for
   * the main thread (contract-thread.ts): 15–80 µs of CPU a read measured, the most on a quiet
   * machine, where the waiting threads are woken from idle. Not higher: a call that declares no
   * gas_limit (every part 1 client's) runs on 50 gas, 10^6 fuel, and the token's `transfer_from`
   * makes four first reads (about 204 000 fuel besides them; 844 000 in all at this price).
   */
  firstRead: 160_000,
  /** call_contract, before the callee's instantiation (which costs its own INSTANCE_FUEL). */
  contractCall: 2_000,
} as const;

/**
 * A deploy, charged before its bytes are checked and metered and before its init runs: the
 * metering pass (the shape scan, Binaryen reading, validating, rewriting and writing the module,
 * V8 compiling it) takes time by module, by function, by instruction and by control region (where
 * it inserts a charge); every byte is also hashed, stored and scanned. The code of a shipped
 * template pays `perByte` only: its metering is paid once per node, not per deploy.
 */
export const DEPLOY_FUEL = {
  perModule: 3_000_000,
  perFunction: 130_000,
  /**
   * Raised in schedule 2 (from 7 000, 20 000 and 10): real compiled code (the token template's,
   * nested deeper than the synthetic shapes) took 2.9–4.2× the median per fuel, and 200 KB of
   * data segments (per-byte work) 2.7–3.7×.
   */
  perInstruction: 13_000,
  perRegion: 40_000,
  perByte: 15,
} as const;
