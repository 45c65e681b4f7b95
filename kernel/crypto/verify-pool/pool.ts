import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { loadProvider, signerFor, type LoadedProvider, type ProviderName, type SigningMode } from '../providers/index.js';
import { isReadyNotice, packBatch, type SignRequest, type VerifyItem, type VerifyRequest, type WorkerResponse } from './protocol.js';

export interface VerifyPoolOptions {
  /** The provider each worker loads: the name selectProvider chose in the main thread. */
  readonly provider: ProviderName;
  /** Worker threads; default os.availableParallelism(). */
  readonly size?: number;
  /** How long a request may wait for companions before its batch is sent (ms). */
  readonly batchWindowMs?: number;
  /** A batch is sent at once when this many requests are waiting. */
  readonly maxBatch?: number;
  /**
   * Nice value of the worker threads (Linux): above 0 they yield the CPU to the event loop, so
   * bulk transaction verification never delays consensus steps or RPC answers. Default 0.
   */
  readonly nice?: number;
  /**
   * How sign requests are answered. `deterministic` (default): FIPS 204's deterministic variant,
   * which every provider can make (through noble when its library cannot). `native`: the
   * provider's own signer where it has one (PQClean, OpenSSL sign hedged, several times faster
   * than noble), else the deterministic one. Hedged signatures differ at each call; callers that
   * may be asked to sign the same message twice must keep what they signed (the consensus
   * double-sign guard does), not re-sign.
   */
  readonly signing?: SigningMode;
}

/** How long close() waits for a worker still loading its provider (a load takes milliseconds). */
const WORKER_LOAD_BOUND_MS = 10_000;

interface SignJob {
  readonly message: Uint8Array;
  readonly secretKey: Uint8Array;
  readonly resolve: (signature: Uint8Array) => void;
  readonly reject: (err: Error) => void;
}

interface Job extends VerifyItem {
  readonly resolve: (ok: boolean) => void;
}

interface Slot {
  readonly worker: Worker;
  /** Settles when the worker has loaded its provider, or has died trying: only then may close() terminate it. */
  readonly settled: Promise<void>;
  /** Settles `settled`: on the worker's ready notice (onResults) or its death (onDeath). */
  readonly settle: () => void;
  alive: boolean;
  inFlight: number;
  readonly batches: Map<number, Job[]>;
  readonly signs: Map<number, SignJob>;
}

/**
 * ML-DSA-65 verification on worker_threads, so a flood of transactions and votes does not stall
 * the event loop (consensus timers, RPC, p2p). Requests are collected for up to batchWindowMs or
 * maxBatch items, then split across the least-loaded workers: one postMessage per batch instead
 * of per signature. Whatever cannot go to a worker (pool closed, a worker died) is verified
 * in-thread with the same provider, so a caller never sees a rejection.
 */
export class VerifyPool {
  readonly size: number;
  readonly providerName: ProviderName;
  readonly stats = { batches: 0, pooled: 0, inThread: 0 };
  private readonly local: LoadedProvider;
  private readonly signHere: (message: Uint8Array, secretKey: Uint8Array) => Uint8Array;
  private readonly windowMs: number;
  private readonly maxBatch: number;
  private readonly slots: Slot[] = [];
  private queue: Job[] = [];
  private timer: NodeJS.Timeout | null = null;
  private nextId = 1;
  private closed = false;
  private closing: Promise<void> | null = null;
  private drainWaiters: (() => void)[] = [];

  constructor(options: VerifyPoolOptions) {
    const load = loadProvider(options.provider);
    if (!load.ok) throw new Error(`verify pool: provider ${options.provider} unavailable: ${load.reason}`);
    this.local = load.provider;
    const signing = options.signing ?? 'deterministic';
    this.signHere = signerFor(this.local, signing);
    this.providerName = options.provider;
    this.size = Math.max(1, Math.floor(options.size ?? availableParallelism()));
    this.windowMs = Math.max(0, options.batchWindowMs ?? 1);
    this.maxBatch = Math.max(1, Math.floor(options.maxBatch ?? 64));
    // Resolved next to this module, so it works from dist/ as compiled (worker.ts -> worker.js).
    const script = new URL('./worker.js', import.meta.url);
    for (let i = 0; i < this.size; i++) {
      const workerData = { provider: options.provider, nice: options.nice ?? 0, signing };
      let settle!: () => void;
      const settled = new Promise<void>((resolve) => (settle = resolve));
      const slot: Slot = { worker: new Worker(script, { workerData, name: `verify-${i}` }), settled, settle, alive: true, inFlight: 0, batches: new Map(), signs: new Map() };
      // Idle workers must not keep the process alive; a worker is ref'd only while it has work.
      slot.worker.unref();
      slot.worker.on('message', (res: WorkerResponse) => this.onResults(slot, res));
      slot.worker.on('error', () => this.onDeath(slot));
      slot.worker.on('exit', () => this.onDeath(slot));
      this.slots.push(slot);
    }
  }

  /** Workers still able to take batches. */
  get liveWorkers(): number {
    return this.slots.filter((s) => s.alive).length;
  }

  verify(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): Promise<boolean> {
    if (this.closed || this.liveWorkers === 0) return Promise.resolve(this.verifyHere(signature, message, publicKey));
    return new Promise<boolean>((resolve) => {
      this.queue.push({ signature, message, publicKey, resolve });
      if (this.queue.length >= this.maxBatch) this.flush();
      else this.timer ??= setTimeout(() => this.flush(), this.windowMs);
    });
  }

  /**
   * Signs on a worker (noble's signing holds a thread for several milliseconds, which the event
   * loop should not), with the signer `signing` chose. Goes out at once, to the least-loaded worker.
   */
  sign(message: Uint8Array, secretKey: Uint8Array): Promise<Uint8Array> {
    const live = this.slots.filter((s) => s.alive);
    if (this.closed || live.length === 0) {
      try {
        return Promise.resolve(this.signHere(message, secretKey));
      } catch (err) {
        return Promise.reject(err instanceof Error ? err : new Error(String(err)));
      }
    }
    const slot = live.reduce((a, b) => (b.inFlight < a.inFlight ? b : a));
    return new Promise<Uint8Array>((resolve, reject) => {
      const id = this.nextId++;
      slot.signs.set(id, { message, secretKey, resolve, reject });
      this.acquire(slot, 1);
      const req: SignRequest = { id, sign: { message, secretKey } };
      slot.worker.postMessage(req);
    });
  }

  verifyMany(items: readonly VerifyItem[]): Promise<boolean[]> {
    return Promise.all(items.map((it) => this.verify(it.signature, it.message, it.publicKey)));
  }

  /** Sends what is queued, waits for every batch in flight, then terminates the workers. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      this.closed = true;
      this.flush();
      await new Promise<void>((resolve) => {
        if (this.inFlight() === 0) resolve();
        else this.drainWaiters.push(resolve);
      });
      for (const s of this.slots) s.alive = false;
      // Ref'd while it finishes loading: a process that exits with a worker still inside the
      // addon's load dies the same way as one that terminates it there. Bounded, so a worker
      // that never loads cannot hold a node's stop forever: past the bound it is terminated.
      await Promise.all(this.slots.map(async (s) => {
        s.worker.ref();
        let bound: NodeJS.Timeout | undefined;
        await Promise.race([s.settled, new Promise<void>((resolve) => (bound = setTimeout(resolve, WORKER_LOAD_BOUND_MS)))]);
        clearTimeout(bound);
        await s.worker.terminate();
      }));
    })();
    return this.closing;
  }

  private verifyHere(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean {
    this.stats.inThread++;
    return this.local.verify(signature, message, publicKey);
  }

  private inFlight(): number {
    return this.slots.reduce((n, s) => n + s.inFlight, 0);
  }

  private flush(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    const jobs = this.queue;
    this.queue = [];
    if (jobs.length === 0) return;
    const live = this.slots.filter((s) => s.alive);
    if (live.length === 0) {
      for (const j of jobs) j.resolve(this.verifyHere(j.signature, j.message, j.publicKey));
      return;
    }
    // One chunk per live worker (fewer for small batches), each to the least-loaded worker.
    const chunks = Math.min(live.length, jobs.length);
    const per = Math.ceil(jobs.length / chunks);
    for (let at = 0; at < jobs.length; at += per) {
      const slot = live.reduce((a, b) => (b.inFlight < a.inFlight ? b : a));
      this.dispatch(slot, jobs.slice(at, at + per));
    }
  }

  private dispatch(slot: Slot, jobs: Job[]): void {
    const id = this.nextId++;
    const batch = packBatch(jobs);
    slot.batches.set(id, jobs);
    this.acquire(slot, jobs.length);
    this.stats.batches++;
    this.stats.pooled += jobs.length;
    const req: VerifyRequest = { id, batch };
    slot.worker.postMessage(req, [batch]);
  }

  private onResults(slot: Slot, res: WorkerResponse): void {
    if (isReadyNotice(res)) return slot.settle();
    if (!('results' in res)) {
      const job = slot.signs.get(res.id);
      if (!job) return;
      slot.signs.delete(res.id);
      if (res.signature) job.resolve(res.signature);
      else job.reject(new Error(`signing failed in the worker: ${res.error ?? 'unknown error'}`));
      this.release(slot, 1);
      return;
    }
    const jobs = slot.batches.get(res.id);
    if (!jobs) return;
    slot.batches.delete(res.id);
    this.settle(slot, jobs, (j, i) => res.results[i] === 1);
  }

  private onDeath(slot: Slot): void {
    slot.settle();
    if (!slot.alive && slot.batches.size === 0 && slot.signs.size === 0) return;
    slot.alive = false;
    for (const [id, job] of slot.signs) {
      slot.signs.delete(id);
      try {
        job.resolve(this.local.sign(job.message, job.secretKey));
      } catch (err) {
        job.reject(err instanceof Error ? err : new Error(String(err)));
      }
      this.release(slot, 1);
    }
    // Answer the dead worker's batches here rather than leave their callers hanging.
    for (const [id, jobs] of slot.batches) {
      slot.batches.delete(id);
      this.settle(slot, jobs, (j) => this.verifyHere(j.signature, j.message, j.publicKey));
    }
  }

  private settle(slot: Slot, jobs: Job[], result: (job: Job, index: number) => boolean): void {
    jobs.forEach((j, i) => j.resolve(result(j, i)));
    this.release(slot, jobs.length);
  }

  /** `count` requests sent to the slot: a worker with work keeps the process alive. */
  private acquire(slot: Slot, count: number): void {
    if (slot.inFlight === 0) slot.worker.ref();
    slot.inFlight += count;
  }

  /** `count` requests of the slot are answered: unref an idle worker, wake close() when all are. */
  private release(slot: Slot, count: number): void {
    slot.inFlight -= count;
    if (slot.inFlight === 0) slot.worker.unref();
    if (this.inFlight() === 0 && this.drainWaiters.length > 0) {
      const waiters = this.drainWaiters;
      this.drainWaiters = [];
      for (const w of waiters) w();
    }
  }
}
