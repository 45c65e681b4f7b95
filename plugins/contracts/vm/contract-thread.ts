import { MessageChannel, Worker } from 'node:worker_threads';
import { ChainError, NodeFault, unavailable } from '../../../kernel/sdk.js';
import { ContractTrap, type CallFrame, type VmLimits } from './engine.js';
import type { InstrumentedCode, InstrumentLimits } from './instrument.js';
import type { BlockClock, StateReader, TreeFailure, TreeResult } from './runner.js';
import { READ_ANSWERED, THREAD_STOPPING, type FetchReply, type FetchRequest, type ThreadInit, type ThreadReply, type ThreadRequest } from './thread-protocol.js';

/** Where the main thread finds instrumented code a contract thread asks for (the node's index). */
export type MeteredLoader = (key: string) => Promise<InstrumentedCode | undefined>;

/** What a request's reads are answered from. */
export interface ThreadSources {
  /** State the request's call tree reads (a transaction's overlay, or committed state). */
  readonly reader?: StateReader;
  /** Instrumented code kept by the node asking (its index). */
  readonly loadMetered: MeteredLoader;
}

interface Pending {
  readonly resolve: (reply: ThreadReply) => void;
  readonly reject: (err: Error) => void;
  readonly sources: ThreadSources;
}

/**
 * One contract thread (a worker running thread-main.ts), seen from the main thread: requests go
 * one at a time, and the thread's reads of state are answered here from the request's reader, so
 * a call tree runs once while the main thread's event loop keeps serving consensus and RPC.
 *
 * A thread that dies (out of memory, terminated for running too long) fails what it was doing
 * with a NodeFault, and the next request starts a new one.
 */
export class ContractThread {
  private worker: Worker | undefined;
  private signal: Int32Array | undefined;
  private port: { close(): void } | undefined;
  /** Resolves once the worker has loaded its toolkit (Binaryen: a second or more on a loaded machine). */
  private loaded: Promise<void> = Promise.resolve();
  /** The worker is loading its toolkit. */
  private booting = false;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  /** Requests run one after another: each waits for the one before. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly opts: { readonly meteredBytes: number; readonly name: string; readonly niceness?: number }) {}

  /** Starts the worker now (it loads Binaryen), instead of at the first request. */
  start(): void {
    if (this.worker) return;
    const signal = new SharedArrayBuffer(4);
    const channel = new MessageChannel();
    const init: ThreadInit = { signal, port: channel.port2, meteredBytes: this.opts.meteredBytes, niceness: this.opts.niceness ?? 0 };
    // A 4 MiB stack: the metered code's stack counter traps far below V8's limit in any thread.
    const worker = new Worker(new URL('./thread-main.js', import.meta.url), { workerData: init, transferList: [channel.port2], name: this.opts.name, resourceLimits: { stackSizeMb: 4 } });
    this.worker = worker;
    this.booting = true;
    let markLoaded: () => void = () => undefined;
    this.loaded = new Promise<void>((resolve) => (markLoaded = resolve));
    this.signal = new Int32Array(signal);
    this.port = channel.port1;
    const view = this.signal;
    channel.port1.on('message', (f: FetchRequest) => void this.answer(f, channel.port1, view));
    channel.port1.unref();
    worker.on('message', (reply: ThreadReply | { id: 0; kind: 'ready' }) => {
      if (reply.id === 0) {
        markLoaded();
        this.booting = false;
        this.holdWhileBusy();
        return;
      }
      const p = this.pending.get(reply.id);
      if (!p) return;
      this.pending.delete(reply.id);
      this.holdWhileBusy();
      p.resolve(reply as ThreadReply);
      // A fault may leave a read's late reply on the port, which the next read would take for its
      // own (replies carry no key): the next request gets a new thread and a new port.
      if ((reply as ThreadReply).kind === 'fault') this.terminate(new NodeFault(`the contract thread ${this.opts.name} was replaced after a fault`));
    });
    const gone = (why: string): void => {
      markLoaded();
      if (this.worker !== worker) return;
      this.worker = undefined;
      this.fail(new NodeFault(`the contract thread ${this.opts.name} stopped: ${why}`));
      channel.port1.close();
      if (this.port === channel.port1) this.port = undefined;
    };
    worker.on('error', (err) => gone(err.message));
    worker.on('exit', (code) => gone(`exit code ${code}`));
  }

  /**
   * A thread keeps the process alive while it loads or runs a request, and not when idle (a
   * test's or a tool's process exits with its threads idle). Called after the listeners are on:
   * adding a 'message' listener refs the worker's port again.
   */
  private holdWhileBusy(): void {
    if (!this.worker) return;
    if (this.booting || this.pending.size > 0) this.worker.ref();
    else this.worker.unref();
  }

  private async answer(f: FetchRequest, port: MessagePortLike, signal: Int32Array): Promise<void> {
    let reply: FetchReply;
    try {
      const p = this.pending.get(f.id);
      if (!p) reply = { ns: 'error', message: `no request ${f.id} is running on this thread` };
      else if (f.ns === 'metered') reply = { ns: 'metered', code: (await p.sources.loadMetered(f.key)) ?? null };
      else if (!p.sources.reader) reply = { ns: 'error', message: `request ${f.id} reads no state` };
      else reply = { ns: 'state', value: (await p.sources.reader.get(f.key)) ?? null };
    } catch (err) {
      reply = { ns: 'error', message: `reading ${f.key} for a contract failed: ${err instanceof Error ? err.message : String(err)}` };
    }
    port.postMessage(reply);
    Atomics.store(signal, 0, READ_ANSWERED);
    Atomics.notify(signal, 0);
  }

  private fail(err: Error): void {
    const all = [...this.pending.values()];
    this.pending.clear();
    for (const p of all) p.reject(err);
  }

  private request(req: ThreadRequest extends infer R ? (R extends unknown ? Omit<R, 'id'> : never) : never, sources: ThreadSources): Promise<ThreadReply> {
    const run = (): Promise<ThreadReply> =>
      new Promise<ThreadReply>((resolve, reject) => {
        this.start();
        const id = this.nextId++;
        this.pending.set(id, { resolve, reject, sources });
        this.holdWhileBusy();
        this.worker!.postMessage({ ...req, id } as ThreadRequest);
      });
    const next = this.queue.then(run, run);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Runs a call tree: the result, or the trap it ended with (the whole budget when out of fuel). */
  async run(sources: ThreadSources & { readonly reader: StateReader }, block: BlockClock, frame: CallFrame, budget: bigint, limits: VmLimits): Promise<TreeResult | TreeFailure> {
    const reply = await this.request({ kind: 'run', block: { height: block.height, time: block.time }, frame, budget, limits: { maxPages: limits.maxPages, maxStack: limits.maxStack, maxDepth: limits.maxDepth, maxKeys: limits.maxKeys } }, sources);
    if (reply.kind === 'result') return { outcome: { returnData: reply.returnData, fuelUsed: reply.fuelUsed }, writes: reply.writes, events: reply.events };
    if (reply.kind === 'trap') {
      const trap = new ContractTrap(reply.trap, reply.message);
      trap.fuelUsed = reply.fuelUsed;
      return { trap, fuelUsed: reply.fuelUsed };
    }
    throw unexpected(reply);
  }

  /** Checks and meters code (a ChainError 400 when refused). `admit`: V8's validator first, as admission does. */
  async meter(sources: ThreadSources, codeHash: string, bytes: Uint8Array, limits: InstrumentLimits, admit: boolean): Promise<InstrumentedCode> {
    const reply = await this.request({ kind: 'meter', codeHash, bytes, limits: { maxPages: limits.maxPages, maxStack: limits.maxStack }, admit }, sources);
    if (reply.kind === 'metered') return reply.code;
    throw unexpected(reply);
  }

  /** Starts the worker if needed and resolves once it is ready for requests. */
  ready(): Promise<void> {
    this.start();
    return this.loaded;
  }

  /** Stops the worker: what it was doing fails with `err`; the next request starts a new one. */
  terminate(err: Error): void {
    const worker = this.worker;
    this.worker = undefined;
    this.fail(err);
    if (this.signal) {
      // A thread waiting for a read wakes up and finds no answer; then it is gone.
      Atomics.store(this.signal, 0, THREAD_STOPPING);
      Atomics.notify(this.signal, 0);
    }
    this.port?.close();
    this.port = undefined;
    void worker?.terminate();
  }

  close(): Promise<void> {
    this.terminate(new NodeFault(`the contract thread ${this.opts.name} was closed`));
    return Promise.resolve();
  }

  /** Whether a worker is running (tests). */
  get running(): boolean {
    return this.worker !== undefined;
  }
}

interface MessagePortLike {
  postMessage(value: unknown): void;
}

function unexpected(reply: ThreadReply): Error {
  if (reply.kind === 'refused') return new ChainError(reply.status, reply.message);
  if (reply.kind === 'fault') return new NodeFault(reply.message);
  return new NodeFault(`unexpected reply ${reply.kind} from a contract thread`);
}

/** How far below the node's priority off-chain threads run (Linux nice levels; 19 is the floor). */
export const OFFCHAIN_NICENESS = 10;

/**
 * Contract threads for work outside consensus (dry runs, the checks of a deploy at admission):
 * at most `threads` run at once, at most `queue` wait, anything beyond is refused at once (503),
 * and a request running longer than `timeoutMs` is stopped (its thread terminated, 503). Nothing
 * here shares a thread with blocks, so no dry run can delay one.
 */
export class ThreadPool {
  private readonly idle: ContractThread[] = [];
  private readonly waiting: Array<(t: ContractThread) => void> = [];
  private busy = 0;
  private readonly threads: ContractThread[] = [];

  constructor(private readonly opts: { readonly threads: number; readonly queue: number; readonly timeoutMs: number; readonly meteredBytes: number }) {
    for (let i = 0; i < opts.threads; i++) {
      // Dry runs and deploy checks wait on nobody's block: on busy cores they yield to the main thread (issue 29: /health under attack).
      const t = new ContractThread({ meteredBytes: opts.meteredBytes, name: `contracts-offchain-${i}`, niceness: OFFCHAIN_NICENESS });
      this.threads.push(t);
      this.idle.push(t);
    }
  }

  /** Runs `work` on a free thread, within the time bound (counted once the thread is ready). */
  async submit<T>(what: string, work: (t: ContractThread) => Promise<T>): Promise<T> {
    const thread = await this.acquire(what);
    let timer: NodeJS.Timeout | undefined;
    try {
      await thread.ready();
      // ready() also resolves when the worker died while loading: that is the node's fault, not a timeout of the request.
      if (!thread.running) throw new NodeFault(`the contract thread for ${what} stopped while starting`);
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          const err = unavailable(`${what} ran longer than ${this.opts.timeoutMs} ms and was stopped`, 'a dry run may use at most max_block_gas; retry later');
          thread.terminate(err);
          reject(err);
        }, this.opts.timeoutMs);
      });
      return await Promise.race([work(thread), timeout]);
    } finally {
      clearTimeout(timer);
      this.release(thread);
    }
  }

  private acquire(what: string): Promise<ContractThread> {
    const free = this.idle.pop();
    if (free) {
      this.busy++;
      return Promise.resolve(free);
    }
    if (this.waiting.length >= this.opts.queue) {
      return Promise.reject(unavailable(`${what} refused: this node already runs ${this.busy} and queues ${this.waiting.length} contract requests outside consensus`, 'retry later'));
    }
    return new Promise((resolve) => this.waiting.push((t) => resolve(t)));
  }

  private release(thread: ContractThread): void {
    const next = this.waiting.shift();
    if (next) next(thread);
    else {
      this.busy--;
      this.idle.push(thread);
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.threads.map((t) => t.close()));
  }
}
