import { percentile } from './percentile.js';

/**
 * Whether a fixed-rate phase measured a steady state. A devnet runs slow for its first 10–20 s
 * under load (JIT, heap growth; docs/performance.md, "What makes the latency tail"), and if the
 * warm-up ends before that, the timed phase's first seconds set its p99 on their own. The bench
 * splits each phase by submission time and compares the first part's median latency with the
 * last's, so a run says when its own warm-up was too short instead of quoting a skewed ratio.
 */

/** Median submit-to-confirm latency of transactions submitted in each of `parts` equal slices of the phase; NaN where a slice has none confirmed. */
export function latencyBySlice(submitted: ReadonlyMap<string, number>, confirmed: ReadonlyMap<string, number>, start: number, seconds: number, parts: number): number[] {
  const slices = Array.from({ length: parts }, (): number[] => []);
  const sliceMs = (seconds * 1000) / parts;
  for (const [hash, sentAt] of submitted) {
    const seenAt = confirmed.get(hash);
    if (seenAt === undefined) continue;
    const slice = Math.min(parts - 1, Math.max(0, Math.floor((sentAt - start) / sliceMs)));
    slices[slice]!.push(seenAt - sentAt);
  }
  return slices.map((lat) => percentile(lat.sort((a, b) => a - b), 50));
}

/** How much slower the first slice ran than the last before the phase counts as still settling. */
export const SETTLING_RATIO = 1.25;

/** A warning when the first slice's median is over SETTLING_RATIO × the last's, else null. */
export function settlingWarning(medians: readonly number[]): string | null {
  const first = medians[0];
  const last = medians[medians.length - 1];
  if (first === undefined || last === undefined || medians.length < 2 || !(first > SETTLING_RATIO * last)) return null;
  const slice = medians.length === 2 ? 'half' : medians.length === 4 ? 'quarter' : `1/${medians.length}`;
  return `its first ${slice} ran at p50 ${first.toFixed(0)} ms against ${last.toFixed(0)} ms in its last: the devnet was still settling, so p99 is the start-up's; raise --warmup`;
}
