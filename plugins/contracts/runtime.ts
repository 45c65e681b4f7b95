import { LRUCache } from 'lru-cache';
import { meteredKey, type CallFrame, type Vm, type VmLimits } from './vm/engine.js';
import type { InstrumentedCode, InstrumentLimits } from './vm/instrument.js';
import { runTree, type BlockClock, type StateReader, type TreeFailure, type TreeResult } from './vm/runner.js';
import { ContractThread, ThreadPool, type MeteredLoader } from './vm/contract-thread.js';

/**
 * Where the plugin runs contracts and meters code. A node runs them in contract threads: one
 * for blocks, and a bounded pool for dry runs and the checks of a deploy at admission, so that
 * neither a block's contracts nor anyone's dry run holds the main thread's event loop (consensus
 * messages, `/health`, every route). Tests and tools may run them in this thread.
 */
export interface ContractRuntime {
  run(reader: StateReader, block: BlockClock, frame: CallFrame, budget: bigint, limits: VmLimits): Promise<TreeResult | TreeFailure>;
  /** Checks and meters code (400 when refused); `admit`: V8's cheap validator first, as admission does. */
  meter(codeHash: string, bytes: Uint8Array, limits: InstrumentLimits, admit?: boolean): Promise<InstrumentedCode>;
}

/**
 * Instrumented code metered by any contract thread of this process, for the others: a deploy is
 * metered at admission (on every validator, which admits what its peers relay), outside
 * consensus, and the block thread then takes it from here instead of metering again on the
 * consensus path. A cache only: metering is deterministic, so the bytes are the same either way.
 */
const sharedMetered = new LRUCache<string, InstrumentedCode>({ maxSize: 64 * 1024 * 1024, sizeCalculation: (c) => Math.max(1, c.binary.length) });

/** `loadMetered` with this process's shared cache in front. */
function withShared(loadMetered: MeteredLoader): MeteredLoader {
  return async (key) => sharedMetered.get(key) ?? (await loadMetered(key));
}

async function keepShared(codeHash: string, limits: InstrumentLimits, metered: Promise<InstrumentedCode>): Promise<InstrumentedCode> {
  const code = await metered;
  sharedMetered.set(meteredKey(codeHash, limits), code);
  return code;
}

/** A runtime on one contract thread, its reads of instrumented code answered from `loadMetered`. */
export function threadRuntime(thread: ContractThread, loadMetered: MeteredLoader): ContractRuntime {
  const sources = { loadMetered: withShared(loadMetered) };
  return {
    run: (reader, block, frame, budget, limits) => thread.run({ ...sources, reader }, block, frame, budget, limits),
    meter: (codeHash, bytes, limits, admit = false) => keepShared(codeHash, limits, thread.meter(sources, codeHash, bytes, limits, admit)),
  };
}

/** A runtime on the pool of threads outside consensus: each request bounded in time, refused (503) when the pool is full. */
export function pooledRuntime(pool: ThreadPool, loadMetered: MeteredLoader): ContractRuntime {
  const sources = { loadMetered: withShared(loadMetered) };
  return {
    run: (reader, block, frame, budget, limits) => pool.submit('a dry run', (t) => t.run({ ...sources, reader }, block, frame, budget, limits)),
    meter: (codeHash, bytes, limits, admit = false) => keepShared(codeHash, limits, pool.submit('checking a deploy', (t) => t.meter(sources, codeHash, bytes, limits, admit))),
  };
}

/** A runtime in this thread (runner.ts: reads that miss run the call again). */
export function inThreadRuntime(vm: Vm): ContractRuntime {
  return {
    run: (reader, block, frame, budget, limits) => runTree(vm, reader, block, frame, budget, limits),
    meter: async (codeHash, bytes, limits, admit = false) => {
      await vm.ready();
      return admit ? vm.admit(codeHash, bytes, limits) : vm.meter(codeHash, bytes, limits);
    },
  };
}

export interface ThreadOptions {
  /** Threads for dry runs and deploy checks (each runs one request at a time). */
  readonly offchainThreads: number;
  /** Requests that may wait for one; beyond, 503. */
  readonly offchainQueue: number;
  /** A request running longer is stopped, 503. */
  readonly offchainTimeoutMs: number;
}

export const DEFAULT_THREAD_OPTIONS: ThreadOptions = { offchainThreads: 1, offchainQueue: 8, offchainTimeoutMs: 3_000 };

interface ProcessThreads {
  readonly consensus: BlockThread;
  readonly offchain: ThreadPool;
}

/** The blocks' contract thread, which says whether it was ever started (started on demand: index.ts). */
class BlockThread extends ContractThread {
  private startedOnce = false;

  get everStarted(): boolean {
    return this.startedOnce;
  }

  override start(): void {
    this.startedOnce = true;
    super.start();
  }
}

let shared: ProcessThreads | undefined;

/**
 * The process's contract threads, made on first use. One set per process: nodes run in one
 * process only in tests, where they share them (a thread keeps no node's state between requests,
 * only caches of code by hash).
 */
export function processThreads(opts: ThreadOptions): ProcessThreads {
  shared ??= {
    consensus: new BlockThread({ meteredBytes: 128 * 1024 * 1024, name: 'contracts-blocks' }),
    offchain: new ThreadPool({ threads: opts.offchainThreads, queue: opts.offchainQueue, timeoutMs: opts.offchainTimeoutMs, meteredBytes: 32 * 1024 * 1024 }),
  };
  return shared;
}
