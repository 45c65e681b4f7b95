import { codeHashOf, codeKey, contractCodec, contractKey, contractKeyOf, storageKey } from '../store.js';
import { NodeFault } from '../../../kernel/sdk.js';
import { ContractTrap, NeedKey, type CallEnv, type CallFrame, type CallOutcome, type ContractCode, type ContractEvent, type Vm, type VmLimits } from './engine.js';

/** What the runner reads state through: the plugin's store in a transaction, or at a committed height. */
export interface StateReader {
  get(key: string): Promise<Uint8Array | undefined>;
}

export interface TreeResult {
  readonly outcome: CallOutcome;
  /** The call tree's writes, keys of the plugin's namespace sorted; null deletes. */
  readonly writes: ReadonlyArray<readonly [string, Uint8Array | null]>;
  readonly events: readonly ContractEvent[];
}

export interface TreeFailure {
  readonly trap: ContractTrap;
  /** Fuel charged: the whole budget when out of fuel, else what ran before the trap. */
  readonly fuelUsed: bigint;
}

export interface BlockClock {
  readonly height: number;
  readonly time: number;
}

/**
 * One run's view of state, the same wherever the run happens: `fetch` gives a key's committed
 * value (null when absent) synchronously, or throws NeedKey (this thread) or blocks on the main
 * thread (the contract thread). Reads see the run's own writes first. The first read of a key
 * is reported to the VM (`firstRead`, which charges it), except the root contract's record and
 * code, which the call's base gas pays for; a callee's code counts as read when the callee is
 * looked up, whether or not its bytes are needed (a compiled module may be at hand), so the
 * charge never depends on a node's caches.
 */
export class TreeView {
  readonly writes = new Map<string, Uint8Array | null>();
  readonly events: ContractEvent[] = [];
  private readonly read = new Set<string>();
  private readonly codes = new Map<string, ContractCode | undefined>();
  readonly env: CallEnv;

  constructor(
    block: BlockClock,
    private readonly root: string,
    private readonly fetch: (key: string) => Uint8Array | null,
  ) {
    const view = this;
    this.env = {
      height: block.height,
      time: block.time,
      events: this.events,
      code: (address) => view.code(address),
      read: (contract, key) => view.value(storageKey(contract, key), true),
      write: (contract, key, v) => void view.writes.set(storageKey(contract, key), v),
      remove: (contract, key) => void view.writes.set(storageKey(contract, key), null),
    };
  }

  private touch(key: string): void {
    if (this.read.has(key)) return;
    this.read.add(key);
    this.env.firstRead?.();
  }

  private value(key: string, charged: boolean): Uint8Array | undefined {
    if (this.writes.has(key)) return this.writes.get(key) ?? undefined;
    if (charged) this.touch(key);
    return this.fetch(key) ?? undefined;
  }

  private code(address: string): ContractCode | undefined {
    if (this.codes.has(address)) return this.codes.get(address);
    const charged = address !== this.root;
    const recordKey = contractKeyOf(address);
    // Text that is no address names no contract: the lookup is charged as any other, and nothing is read.
    if (recordKey === undefined && charged) this.touch(`contract-name:${address}`);
    const raw = recordKey === undefined ? undefined : this.value(recordKey, charged);
    let code: ContractCode | undefined;
    if (raw !== undefined) {
      const hash = contractCodec.decode(raw).code_hash;
      const key = codeKey(hash);
      if (charged) this.touch(key);
      code = {
        codeHash: hash,
        bytes: () => {
          const bytes = this.value(key, false);
          if (bytes === undefined) throw new NodeFault(`the code ${hash} of ${address} is missing from state`);
          return bytes;
        },
      };
    }
    this.codes.set(address, code);
    return code;
  }

  /** The writes, keys sorted: what the transaction applies. */
  sortedWrites(): Array<readonly [string, Uint8Array | null]> {
    return [...this.writes.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  }
}

/** A finished run as the transaction applies it, or the trap it ended with (out of fuel: the whole budget). */
export function runOnce(vm: Vm, view: TreeView, frame: CallFrame, budget: bigint, limits: VmLimits): TreeResult | TreeFailure {
  try {
    const outcome = vm.run(view.env, frame, budget, limits);
    return { outcome, writes: view.sortedWrites(), events: view.events };
  } catch (err) {
    if (err instanceof ContractTrap) return { trap: err, fuelUsed: err.kind === 'out_of_fuel' ? budget : (err.fuelUsed ?? budget) };
    throw err;
  }
}

/**
 * Runs a call tree in this thread against state read asynchronously: every key it reads is
 * fetched once and kept for the transaction; a read of a key not fetched yet stops the run
 * (NeedKey), the key is fetched, and the tree runs again from the start. Each run starts from
 * the same state, the same input and the same budget, so the run that completes is the same on
 * every node, and so are its fuel and writes (the charge of a first read is the same whether it
 * stopped a run or not). The runs before it are work the fuel does not count: this path is for
 * tests, benches and tools; a node runs contracts in its contract thread (worker.ts), where a
 * read waits for the key instead. Bounded by `maxKeys` (the VM traps past it).
 */
export async function runTree(vm: Vm, reader: StateReader, block: BlockClock, frame: CallFrame, budget: bigint, limits: VmLimits, fetched = new Map<string, Uint8Array | null>()): Promise<TreeResult | TreeFailure> {
  await vm.ready();
  // The root contract's record and code are always read first: fetched up front.
  const root = contractKey(frame.contract);
  if (!fetched.has(root)) fetched.set(root, (await reader.get(root)) ?? null);
  const rootRecord = fetched.get(root);
  if (rootRecord) {
    const hash = contractCodec.decode(rootRecord).code_hash;
    const code = codeKey(hash);
    if (!fetched.has(code)) fetched.set(code, (await reader.get(code)) ?? null);
    await vm.preload(hash, limits);
  }
  for (;;) {
    const view = new TreeView(block, frame.contract, (key) => {
      const v = fetched.get(key);
      if (v === undefined) throw new NeedKey(key);
      return v;
    });
    try {
      return runOnce(vm, view, frame, budget, limits);
    } catch (err) {
      if (!(err instanceof NeedKey)) throw err;
      fetched.set(err.key, (await reader.get(err.key)) ?? null);
      // A callee's code: its instrumented bytes from the node's store, if kept (a cache only).
      const codeHash = codeHashOf(err.key);
      if (codeHash !== undefined) await vm.preload(codeHash, limits);
    }
  }
}


export function isFailure(r: TreeResult | TreeFailure): r is TreeFailure {
  return 'trap' in r;
}
