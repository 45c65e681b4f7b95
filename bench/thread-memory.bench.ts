/**
 * What each kind of worker thread a validator may run costs in resident memory, measured in this
 * process (no lock needed): the process at rest, then after starting the signature-verify pool
 * (one worker per core) and each contract thread (an isolate that loads Binaryen) one by one,
 * each reading taken once the thread says it is ready and a second has passed. docs/performance.md,
 * "Where a validator's memory goes", quotes it.
 *
 *   npx tsc -p tsconfig.json && node --max-semi-space-size=32 dist/bench/thread-memory.bench.js [--provider noble] [--contract-threads 2]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { VerifyPool } from '../kernel/crypto/verify-pool/pool.js';
import { ContractThread } from '../plugins/contracts/vm/contract-thread.js';
import { PROVIDER_NAMES, type ProviderName } from '../kernel/crypto/providers/common.js';
import { parsePositiveInt } from './load-plan.js';

const { values } = parseArgs({ options: { provider: { type: 'string', default: 'noble' }, 'contract-threads': { type: 'string', default: '2' } } });
const contractThreads = parsePositiveInt(values['contract-threads']!, '--contract-threads');
const provider = PROVIDER_NAMES.find((p) => p === values.provider);
if (!provider) throw new Error(`--provider: one of ${PROVIDER_NAMES.join(', ')}`);
const chosen: ProviderName = provider;

function reading(): { rss: number; anonymous: number; heapTotal: number; external: number } {
  const rollup = readFileSync('/proc/self/smaps_rollup', 'utf8');
  const kib = (name: string): number => Number(new RegExp(`^${name}:\\s+(\\d+) kB$`, 'm').exec(rollup)?.[1] ?? NaN) / 1024;
  const m = process.memoryUsage();
  return { rss: kib('Rss'), anonymous: kib('Anonymous'), heapTotal: m.heapTotal / 2 ** 20, external: m.external / 2 ** 20 };
}

let previous = reading();
function report(what: string): void {
  const now = reading();
  console.log(`${what.padEnd(44)} RSS ${now.rss.toFixed(0).padStart(4)} MiB (+${(now.rss - previous.rss).toFixed(0)}), anonymous +${(now.anonymous - previous.anonymous).toFixed(0)}; this thread's heap ${now.heapTotal.toFixed(0)}, external ${now.external.toFixed(0)}`);
  previous = now;
}

await sleep(1000);
report('at rest');
const pool = new VerifyPool({ provider: chosen });
await sleep(3000);
report(`verify pool (${pool.size} workers, ${chosen})`);
const threads: ContractThread[] = [];
for (let i = 0; i < contractThreads; i++) {
  const t = new ContractThread({ meteredBytes: 128 * 1024 * 1024, name: `contracts-${i}` });
  await t.ready();
  threads.push(t);
  await sleep(1000);
  report(`contract thread ${i + 1} (Binaryen loaded)`);
}
for (const t of threads) t.terminate(new Error('bench done'));
await pool.close();
