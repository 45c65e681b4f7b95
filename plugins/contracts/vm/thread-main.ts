import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { isChainError, NodeFault } from '../../../kernel/sdk.js';
import { Vm } from './engine.js';
import { runOnce, isFailure, TreeView } from './runner.js';
import { READ_PENDING, THREAD_STOPPING, type FetchReply, type FetchRequest, type ThreadInit, type ThreadReply, type ThreadRequest } from './thread-protocol.js';
import type { InstrumentedCode } from './instrument.js';
import { lowerThreadPriority } from './thread-priority.js';

/**
 * A contract thread (worker): runs call trees and meters code for the main thread
 * (contract-thread.ts). A state read blocks this thread until the main thread has the value
 * (Atomics.wait on a shared word, the value taken synchronously from the read channel), so a
 * call runs once, start to end, and the main thread's event loop stays free while it runs.
 */
const init = workerData as ThreadInit;
lowerThreadPriority(init.niceness);
const signal = new Int32Array(init.signal);
const port = init.port;
const vm = new Vm(undefined, init.meteredBytes);
let current = 0;

/** How long (ms) an answered read waits for its reply to be readable, before it is the node's fault. */
const LATE_ANSWER_MS = 5_000;

function fetchSync(request: FetchRequest): FetchReply {
  Atomics.store(signal, 0, READ_PENDING);
  port.postMessage(request);
  let got: ReturnType<typeof receiveMessageOnPort>;
  // Answered, the reply is on the port; but it was seen not yet readable there when the thread
  // woke (about once in 10^4 reads under load: it stopped the calibration bench, and would stop
  // a block on that node), so an answered read waits for it in 1 ms slices, up to a bound.
  for (let late = 0; late < LATE_ANSWER_MS; ) {
    const state = Atomics.load(signal, 0);
    if (state === THREAD_STOPPING) break;
    if (state === READ_PENDING) {
      Atomics.wait(signal, 0, READ_PENDING);
      continue;
    }
    got = receiveMessageOnPort(port);
    if (got !== undefined) break;
    Atomics.wait(signal, 0, state, 1);
    late++;
  }
  if (got === undefined) throw new NodeFault(`the main thread answered no ${request.ns} read of ${request.key}`);
  const reply = got.message as FetchReply;
  if (reply.ns === 'error') throw new NodeFault(reply.message);
  return reply;
}

vm.useStore({
  loadSync: (key): InstrumentedCode | undefined => {
    const reply = fetchSync({ id: current, ns: 'metered', key });
    return reply.ns === 'metered' ? (reply.code ?? undefined) : undefined;
  },
});

function handle(req: ThreadRequest): ThreadReply {
  current = req.id;
  try {
    if (req.kind === 'meter') {
      const code = req.admit ? vm.admit(req.codeHash, req.bytes, req.limits) : vm.meter(req.codeHash, req.bytes, req.limits);
      // Compiled now, so the deploy's init and the first calls find it (and a module V8 cannot compile fails here).
      vm.prepare(req.codeHash, req.bytes, req.limits);
      return { id: req.id, kind: 'metered', code };
    }
    const cache = new Map<string, Uint8Array | null>();
    const view = new TreeView(req.block, req.frame.contract, (key) => {
      const known = cache.get(key);
      if (known !== undefined) return known;
      const reply = fetchSync({ id: req.id, ns: 'state', key });
      const value = reply.ns === 'state' ? reply.value : null;
      cache.set(key, value);
      return value;
    });
    const r = runOnce(vm, view, req.frame, req.budget, req.limits);
    if (isFailure(r)) return { id: req.id, kind: 'trap', trap: r.trap.kind, message: r.trap.message, fuelUsed: r.fuelUsed };
    return { id: req.id, kind: 'result', returnData: r.outcome.returnData, fuelUsed: r.outcome.fuelUsed, writes: [...r.writes], events: r.events };
  } catch (err) {
    if (isChainError(err)) return { id: req.id, kind: 'refused', status: err.status, message: err.message };
    return { id: req.id, kind: 'fault', message: err instanceof Error ? err.message : String(err) };
  }
}

await vm.ready();
parentPort!.on('message', (req: ThreadRequest) => parentPort!.postMessage(handle(req)));
parentPort!.postMessage({ id: 0, kind: 'ready' });
