import { codeKey, contractCodec, contractKey, storageKey } from '../store.js';
import { ContractTrap, NeedKey, type CallEnv, type CallFrame, type CallOutcome, type ContractEvent, type Vm, type VmLimits } from './engine.js';

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

/**
 * Runs a call tree against state read asynchronously, with a synchronous view for the VM: every
 * key it reads is fetched once and kept for the transaction; a read of a key not fetched yet
 * stops the run (NeedKey), the key is fetched, and the tree runs again from the start. Each run
 * starts from the same state, the same input and the same budget, so the run that completes is
 * the same on every node, and so are its fuel and writes; earlier, interrupted runs leave nothing.
 * `maxKeys` bounds the distinct keys (and so the runs) of one transaction.
 */
export async function runTree(vm: Vm, reader: StateReader, block: { height: number; time: number }, frame: CallFrame, budget: bigint, limits: VmLimits & { maxKeys: number }, fetched = new Map<string, Uint8Array | null>()): Promise<TreeResult | TreeFailure> {
  await vm.ready();
  // The root contract's record and code are always read first: fetched up front (on every node
  // alike, so the runs that follow, and their bound below, are the same everywhere).
  const root = contractKey(frame.contract);
  if (!fetched.has(root)) fetched.set(root, (await reader.get(root)) ?? null);
  const rootRecord = fetched.get(root);
  if (rootRecord) {
    const hash = contractCodec.decode(rootRecord).code_hash;
    const code = codeKey(hash);
    if (!fetched.has(code)) fetched.set(code, (await reader.get(code)) ?? null);
    await vm.preload(hash, limits);
  }
  let rerunFuel = 0n;
  for (;;) {
    const writes = new Map<string, Uint8Array | null>();
    const events: ContractEvent[] = [];
    const value = (key: string): Uint8Array | undefined => {
      if (writes.has(key)) return writes.get(key) ?? undefined;
      if (!fetched.has(key)) throw new NeedKey(key);
      return fetched.get(key) ?? undefined;
    };
    const codes = new Map<string, { codeHash: string; bytes: Uint8Array } | undefined>();
    const env: CallEnv = {
      height: block.height,
      time: block.time,
      events,
      code(address) {
        if (codes.has(address)) return codes.get(address);
        const raw = value(contractKey(address));
        const rec = raw === undefined ? undefined : contractCodec.decode(raw);
        const bytes = rec === undefined ? undefined : value(codeKey(rec.code_hash));
        const code = rec === undefined || bytes === undefined ? undefined : { codeHash: rec.code_hash, bytes };
        codes.set(address, code);
        return code;
      },
      read: (contract, key) => value(storageKey(contract, key)),
      write: (contract, key, v) => void writes.set(storageKey(contract, key), v),
      remove: (contract, key) => void writes.set(storageKey(contract, key), null),
    };
    try {
      const outcome = vm.run(env, frame, budget, limits);
      const sorted = [...writes.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
      return { outcome, writes: sorted, events };
    } catch (err) {
      if (err instanceof NeedKey) {
        if (fetched.size >= limits.maxKeys) return { trap: new ContractTrap('trap', `the call read more than ${limits.maxKeys} storage keys`), fuelUsed: budget };
        // The interrupted runs are work too: bounded so that reads placed late in a heavy call
        // cannot make a node redo it hundreds of times. The sequence of runs is the same on every
        // node (each stops at the same instruction on the same keys), so this bound is too.
        rerunFuel += err.fuelUsed;
        if (rerunFuel > budget * RERUN_FACTOR) return { trap: new ContractTrap('out_of_fuel', `out of fuel: storage reads made the call run again past ${RERUN_FACTOR} times its fuel budget (read its keys earlier)`), fuelUsed: budget };
        fetched.set(err.key, (await reader.get(err.key)) ?? null);
        // A callee's code: its instrumented bytes from the node's store, if kept (a cache only:
        // it changes neither the runs nor their fuel).
        if (err.key.startsWith(CODE_PREFIX)) await vm.preload(err.key.slice(CODE_PREFIX.length), limits);
        continue;
      }
      if (err instanceof ContractTrap) return { trap: err, fuelUsed: err.kind === 'out_of_fuel' ? budget : usedBeforeTrap(err, budget) };
      throw err;
    }
  }
}

function usedBeforeTrap(err: ContractTrap, budget: bigint): bigint {
  return err.fuelUsed ?? budget;
}

const CODE_PREFIX = codeKey('');

/** How much fuel, in budgets, the interrupted runs of one call tree may burn in all. */
export const RERUN_FACTOR = 4n;

export function isFailure(r: TreeResult | TreeFailure): r is TreeFailure {
  return 'trap' in r;
}
