import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { isProviderName, loadProvider, signerFor } from '../providers/index.js';
import { isSignRequest, unpackBatch, type ReadyNotice, type SignResponse, type VerifyResponse, type WorkerRequest } from './protocol.js';

/*
 * Pool worker: loads the provider the main thread selected (by name: functions do not cross
 * threads) and answers verify batches and sign requests. A load failure throws here, which the
 * pool sees as an 'error' event and answers that worker's requests in-thread instead.
 */
const data = (workerData ?? {}) as { provider?: unknown; nice?: unknown; signing?: unknown };
const name: unknown = data.provider;
if (!isProviderName(name)) throw new Error(`verify-pool worker: unknown provider ${String(name)}`);
const load = loadProvider(name);
if (!load.ok) throw new Error(`verify-pool worker: provider ${name} unavailable: ${load.reason}`);
const provider = load.provider;
const sign = signerFor(provider, data.signing === 'native' ? 'native' : 'deterministic');
const port = parentPort;
if (!port) throw new Error('verify-pool worker must run in a worker thread');
if (typeof data.nice === 'number' && data.nice > 0) lowerThreadPriority(data.nice);

/**
 * Bulk verification yields the CPU to the event loop: on Linux a thread has its own nice value,
 * set through its thread id. Elsewhere the worker keeps the process priority.
 */
function lowerThreadPriority(nice: number): void {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (Number.isSafeInteger(tid) && tid > 0) setPriority(tid, nice);
  } catch {
    // no procfs: not Linux, or a sandbox without it
  }
}

port.on('message', (req: WorkerRequest) => {
  if (isSignRequest(req)) {
    let res: SignResponse;
    try {
      res = { id: req.id, signature: sign(req.sign.message, req.sign.secretKey) };
    } catch (err) {
      res = { id: req.id, error: err instanceof Error ? err.message : String(err) };
    }
    port.postMessage(res);
    return;
  }
  const items = unpackBatch(req.batch);
  const results = new Uint8Array(items.length);
  items.forEach((it, i) => {
    results[i] = provider.verify(it.signature, it.message, it.publicKey) ? 1 : 0;
  });
  const res: VerifyResponse = { id: req.id, results };
  port.postMessage(res, [results.buffer]);
});

const ready: ReadyNotice = { ready: true };
port.postMessage(ready);
