import { readFileSync } from 'node:fs';
import { valuesIn } from './phase-probe.js';

/**
 * Where a validator's resident memory is, in MiB, from two readings taken together: the kernel's
 * /proc/<pid>/smaps_rollup (resident, anonymous, file-backed pages) and the node's own /metrics
 * (prom-client's V8 heap and `external` gauges, main thread only). `native` is the anonymous
 * memory neither of those holds: LevelDB's caches and write buffers, the allocator's arenas, the
 * worker threads' isolates (verify pool, contract threads), WebAssembly memories.
 */
export interface MemoryBreakdown {
  readonly rss: number;
  readonly heapUsed: number;
  readonly heapTotal: number;
  readonly external: number;
  readonly native: number;
  readonly fileBacked: number;
  readonly threads: number;
}

const MIB = 2 ** 20;

/** Reads both sources; null once the process is gone or off Linux. */
export function breakdownOf(smapsRollup: string, status: string, metrics: string): MemoryBreakdown | null {
  const kib = (name: string): number => {
    const m = new RegExp(`^${name}:\\s+(\\d+) kB$`, 'm').exec(smapsRollup);
    return m ? (Number(m[1]) * 1024) / MIB : NaN;
  };
  const rss = kib('Rss');
  const anonymous = kib('Anonymous');
  const [heapUsed, heapTotal, external] = valuesIn(metrics, ['nodejs_heap_size_used_bytes', 'nodejs_heap_size_total_bytes', 'nodejs_external_memory_bytes']).map((b) => b / MIB) as [number, number, number];
  const threads = Number(/^Threads:\s+(\d+)$/m.exec(status)?.[1] ?? NaN);
  if ([rss, anonymous, heapUsed, heapTotal, external].some((x) => !Number.isFinite(x))) return null;
  return { rss, heapUsed, heapTotal, external, native: Math.max(0, anonymous - heapTotal - external), fileBacked: rss - anonymous, threads };
}

/** A live process's breakdown (its /metrics already fetched); null if it is gone. */
export function processBreakdown(pid: number, metrics: string): MemoryBreakdown | null {
  try {
    return breakdownOf(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'), readFileSync(`/proc/${pid}/status`, 'utf8'), metrics);
  } catch {
    return null;
  }
}

/** One line per validator for the bench's output. */
export function formatBreakdown(b: MemoryBreakdown | null): string {
  if (!b) return 'n/a';
  const f = (x: number): string => x.toFixed(0);
  return `RSS ${f(b.rss)} = V8 heap ${f(b.heapTotal)} (used ${f(b.heapUsed)}) + external ${f(b.external)} + native ${f(b.native)} + file-backed ${f(b.fileBacked)}; ${b.threads} threads`;
}
