import type { MessagePort } from 'node:worker_threads';
import type { CallFrame, ContractEvent, TrapKind, VmLimits } from './engine.js';
import type { InstrumentedCode, InstrumentLimits } from './instrument.js';
import type { BlockClock } from './runner.js';

/**
 * Messages between the main thread and a contract thread (contract-thread.ts, thread-main.ts).
 * Requests and replies travel on the worker's own channel; reads of state travel on a second
 * channel while the contract thread waits on a shared word (Atomics), so a contract's storage
 * read returns synchronously without running the call again.
 */
export type ThreadRequest =
  | { readonly id: number; readonly kind: 'run'; readonly block: BlockClock; readonly frame: CallFrame; readonly budget: bigint; readonly limits: VmLimits }
  /** Checks and meters code: `admit` first asks V8's validator (admission), else Binaryen alone decides (a block). */
  | { readonly id: number; readonly kind: 'meter'; readonly codeHash: string; readonly bytes: Uint8Array; readonly limits: InstrumentLimits; readonly admit: boolean };

export type ThreadReply =
  | { readonly id: number; readonly kind: 'result'; readonly returnData: Uint8Array; readonly fuelUsed: bigint; readonly writes: Array<readonly [string, Uint8Array | null]>; readonly events: readonly ContractEvent[] }
  | { readonly id: number; readonly kind: 'trap'; readonly trap: TrapKind; readonly message: string; readonly fuelUsed: bigint }
  | { readonly id: number; readonly kind: 'metered'; readonly code: InstrumentedCode }
  /** A ChainError the request met (a deploy's bytecode refused: 400). */
  | { readonly id: number; readonly kind: 'refused'; readonly status: number; readonly message: string }
  /** A NodeFault (or any failure that is not the contract's): the request's outcome is unknown on this node. */
  | { readonly id: number; readonly kind: 'fault'; readonly message: string };

/** A read the contract thread waits for: a state key of the request's reader, or instrumented code from the node's index. */
export interface FetchRequest {
  readonly id: number;
  readonly ns: 'state' | 'metered';
  readonly key: string;
}

export type FetchReply =
  | { readonly ns: 'state'; readonly value: Uint8Array | null }
  | { readonly ns: 'metered'; readonly code: InstrumentedCode | null }
  | { readonly ns: 'error'; readonly message: string };

/** Values of the shared word (ThreadInit.signal). */
export const READ_PENDING = 0;
export const READ_ANSWERED = 1;
/** The main thread is stopping the contract thread: a read waiting for an answer will get none. */
export const THREAD_STOPPING = 2;

/** Data the worker starts with. */
export interface ThreadInit {
  /** The shared word the contract thread waits on: READ_PENDING, READ_ANSWERED or THREAD_STOPPING. */
  readonly signal: SharedArrayBuffer;
  /** The contract thread's end of the read channel. */
  readonly port: MessagePort;
  /** Bytes of instrumented code the thread keeps in memory. */
  readonly meteredBytes: number;
  /** Nice levels the thread lowers its own CPU priority by (thread-priority.ts): off-chain threads yield the cores to the main thread. */
  readonly niceness: number;
}
