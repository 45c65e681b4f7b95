import { parentPort, workerData } from 'node:worker_threads';
import { isProviderName, loadProvider } from '../providers/index.js';
import { unpackBatch, type VerifyRequest, type VerifyResponse } from './protocol.js';

/*
 * Pool worker: loads the provider the main thread selected (by name: functions do not cross
 * threads) and answers verify batches. A load failure throws here, which the pool sees as an
 * 'error' event and answers that worker's batches in-thread instead.
 */
const name: unknown = (workerData as { provider?: unknown } | null)?.provider;
if (!isProviderName(name)) throw new Error(`verify-pool worker: unknown provider ${String(name)}`);
const load = loadProvider(name);
if (!load.ok) throw new Error(`verify-pool worker: provider ${name} unavailable: ${load.reason}`);
const provider = load.provider;
const port = parentPort;
if (!port) throw new Error('verify-pool worker must run in a worker thread');

port.on('message', (req: VerifyRequest) => {
  const items = unpackBatch(req.batch);
  const results = new Uint8Array(items.length);
  items.forEach((it, i) => {
    results[i] = provider.verify(it.signature, it.message, it.publicKey) ? 1 : 0;
  });
  const res: VerifyResponse = { id: req.id, results };
  port.postMessage(res, [results.buffer]);
});
