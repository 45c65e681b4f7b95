/**
 * The throughput issue's targets, judged from one load-bench run, so the verdict is printed next
 * to the table instead of worked out by hand from it. Benchmarks print; tests never assert
 * timing: this only reads figures the run measured.
 */

/** One timed rate of a run, as the load bench measured it. */
export interface RateResult {
  /** tx/s: the fixed rate asked for, or for flat out the rate the devnet let the client submit. */
  readonly offered: number;
  /** Sent flat out (the next transfer as soon as one is answered): full load by definition. */
  readonly flatOut?: boolean;
  /** Flat out sent its whole pre-signed pool before its time was up: from then on nothing was offered. */
  readonly exhausted?: boolean;
  readonly committedTps: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Mean interval between the rate's blocks (what a transaction waits for, plus the votes). */
  readonly blockIntervalMs: number;
  /** Worst validator's event-loop delay p99 at this rate. */
  readonly eventLoopP99Ms: number;
  /** Worst validator's peak RSS up to the end of this rate; null where procfs cannot say. */
  readonly peakRssMiB: number | null;
  /** Why the phase's latency is not a steady state's (its first part ran slower; settling.ts), if so. */
  readonly settling?: string;
}

export interface TargetInputs {
  /** The provider the validators ran (`noble` is the pure-JS one the TPS/C bound is on). */
  readonly provider: string;
  /** cores × v / validators, with v measured in the same run. */
  readonly C: number;
  /** CHAIN_BLOCK_MS the devnet ran with. */
  readonly blockMs: number;
  readonly rates: readonly RateResult[];
}

export interface TargetLine {
  readonly target: string;
  readonly measured: string;
  /** null where the target does not apply to this run (e.g. TPS/C ≥ 0.7 on a native provider). */
  readonly met: boolean | null;
}

export const PURE_JS_PROVIDER = 'noble';
export const MIN_PURE_JS_TPS_PER_C = 0.7;
export const MAX_EVENT_LOOP_P99_MS = 50;
export const MAX_PEAK_RSS_MIB = 512;
/**
 * A top rate that commits less than this share of what it was offered saturated the devnet. The
 * committed rate counts from the first submission to the last confirmation, so the last block's
 * latency costs ~2 % of a 20 s window; a window of a few seconds reads as saturated whatever it is.
 */
export const SATURATED_BELOW = 0.95;

/** The rate nearest half the sustained one is flagged when further from it than this share. */
export const HALF_RATE_TOLERANCE = 0.2;

const ms = (x: number): string => (x >= 1000 ? `${(x / 1000).toFixed(2)} s` : `${x.toFixed(0)} ms`);
/** A figure the run could not measure (one block in a window, no confirmations) is NaN: no verdict, not a failure. */
const known = (...xs: number[]): boolean => xs.every(Number.isFinite);

/** Full load: the flat-out phase if the run had one, else the highest rate offered. */
function topRate(rates: readonly RateResult[]): RateResult {
  return rates.find((r) => r.flatOut) ?? rates.reduce((a, r) => (r.offered > a.offered ? r : a));
}

/**
 * Whether full load reached the devnet's capacity: flat out does (the devnet's own answers set the
 * pace) unless it ran out of pre-signed transfers; otherwise, when it committed less than it was
 * offered.
 */
export function isSaturated(rates: readonly RateResult[]): boolean {
  if (rates.length === 0) return false;
  const full = topRate(rates);
  return (full.flatOut === true && full.exhausted !== true) || full.committedTps < SATURATED_BELOW * full.offered;
}

/**
 * The most the devnet committed at any offered rate (offered beyond it, it commits about that):
 * what every verdict here, and the scale ratio (scale-ratio.ts), reads as a run's rate; null for a
 * run with no timed rate.
 */
export function sustainedRate(rates: readonly RateResult[]): number | null {
  return rates.length === 0 ? null : Math.max(...rates.map((r) => r.committedTps));
}

/** How a rate reads in a verdict: "115 tx/s offered", or "flat out (74.2 tx/s submitted)". */
function offeredText(r: RateResult): string {
  return r.flatOut ? `flat out (${r.offered.toFixed(1)} tx/s submitted)` : `${r.offered} tx/s offered`;
}

export function evaluateTargets(run: TargetInputs): TargetLine[] {
  if (run.rates.length === 0) return [];
  // Sustained (sustainedRate); full load: the highest rate offered; half: the rate nearest half the sustained.
  const sustained = sustainedRate(run.rates)!;
  const full = topRate(run.rates);
  // Flat out is never "half the sustained rate" unless it is all the run has.
  const fixed = run.rates.filter((r) => !r.flatOut);
  const half = (fixed.length > 0 ? fixed : run.rates).reduce((a, r) => (Math.abs(r.offered - sustained / 2) < Math.abs(a.offered - sustained / 2) ? r : a));
  // A block interval is the pace (CHAIN_BLOCK_MS) plus propose-to-commit; that remainder stands
  // for the round of votes. It also holds building, validating and executing the block, so the
  // bound it gives is the generous reading of the target, and the output says so.
  const voteRoundMs = Math.max(0, half.blockIntervalMs - run.blockMs);
  const p50Bound = 3 * run.blockMs + voteRoundMs;
  const tpsPerC = sustained / run.C;
  const peaks = run.rates.map((r) => r.peakRssMiB);
  const peak = peaks.some((p) => p === null) ? null : Math.max(...(peaks as number[]));
  // Committing (nearly) all it was offered at the top rate, the devnet was not saturated: the
  // sustained rate is at least what it committed, and "full load" was not full.
  const saturated = isSaturated(run.rates);
  const caveat = saturated
    ? ''
    : full.flatOut
      ? ` (not saturated: flat out sent its whole pre-signed pool early and committed all of it; raise --max-pool)`
      : ` (not saturated: ${full.committedTps.toFixed(1)} of ${full.offered} tx/s offered committed at the top rate; offer more, or flat out)`;
  const offHalf = Math.abs(half.offered - sustained / 2) > HALF_RATE_TOLERANCE * (sustained / 2) ? `; ${half.flatOut ? half.offered.toFixed(1) : half.offered} is more than ${HALF_RATE_TOLERANCE * 100} % from half the sustained rate, offer a rate nearer it` : '';
  const unsettled = half.settling ? ` (${half.settling})` : '';
  const at = `at ${offeredText(half)} (half of ${sustained.toFixed(1)} sustained is ${(sustained / 2).toFixed(1)}${offHalf})`;
  return [
    {
      target: `pure-JS sustained TPS/C ≥ ${MIN_PURE_JS_TPS_PER_C}`,
      measured: `${sustained.toFixed(1)} / ${run.C.toFixed(1)} = ${tpsPerC.toFixed(2)}${run.provider === PURE_JS_PROVIDER ? '' : ` (${run.provider}: its target is ≥ 3 × the ${PURE_JS_PROVIDER} run's TPS)`}${caveat}`,
      met: run.provider === PURE_JS_PROVIDER && known(tpsPerC) ? tpsPerC >= MIN_PURE_JS_TPS_PER_C : null,
    },
    {
      target: 'p50 ≤ 3 × CHAIN_BLOCK_MS + one round of votes, at half the sustained rate',
      measured: `p50 ${ms(half.p50Ms)} ${at}; bound 3 × ${run.blockMs} + ${voteRoundMs.toFixed(0)} (block interval − CHAIN_BLOCK_MS: the votes and the block's own processing) = ${ms(p50Bound)}${caveat}${unsettled}`,
      met: known(half.p50Ms, p50Bound) ? half.p50Ms <= p50Bound : null,
    },
    {
      target: 'p99 ≤ 2 × p50, same rate',
      measured: `p99 ${ms(half.p99Ms)}, p99/p50 ${(half.p99Ms / half.p50Ms).toFixed(2)}${unsettled}`,
      met: known(half.p99Ms, half.p50Ms) ? half.p99Ms <= 2 * half.p50Ms : null,
    },
    {
      target: `event-loop p99 < ${MAX_EVENT_LOOP_P99_MS} ms under full load, every validator`,
      measured: `worst validator ${full.eventLoopP99Ms.toFixed(1)} ms at ${offeredText(full)}${caveat}`,
      met: known(full.eventLoopP99Ms) ? full.eventLoopP99Ms < MAX_EVENT_LOOP_P99_MS : null,
    },
    {
      target: `peak RSS < ${MAX_PEAK_RSS_MIB} MiB per validator`,
      measured: peak === null ? 'n/a (no procfs)' : `worst validator ${peak.toFixed(0)} MiB`,
      met: peak === null ? null : peak < MAX_PEAK_RSS_MIB,
    },
  ];
}

export function formatTargets(lines: readonly TargetLine[]): string {
  const mark = (met: boolean | null): string => (met === null ? 'n/a ' : met ? 'met ' : 'NOT ');
  return lines.map((l) => `  ${mark(l.met)} ${l.target}: ${l.measured}`).join('\n');
}

export const MIN_NATIVE_OVER_PURE_JS = 3;

/**
 * "The native provider's run is at least 3 times the pure-JS run": the best committed rate of the
 * fastest non-noble run over the noble run's; null unless the command ran both kinds.
 */
export function nativeOverPureJs(runs: ReadonlyArray<{ readonly provider: string; readonly results: readonly RateResult[] }>): TargetLine | null {
  type Run = (typeof runs)[number];
  const best = (r: Run): number => sustainedRate(r.results) ?? 0;
  const bestRun = (of: Run[]): Run | undefined => of.reduce<Run | undefined>((a, r) => (a === undefined || best(r) > best(a) ? r : a), undefined);
  const pure = bestRun(runs.filter((r) => r.provider === PURE_JS_PROVIDER));
  const top = bestRun(runs.filter((r) => r.provider !== PURE_JS_PROVIDER));
  if (!pure || !top) return null;
  const pureTps = best(pure);
  const nativeTps = best(top);
  if (pureTps === 0) return { target: `native ≥ ${MIN_NATIVE_OVER_PURE_JS} × pure-JS committed throughput`, measured: `the ${PURE_JS_PROVIDER} run committed nothing`, met: null };
  const ratio = nativeTps / pureTps;
  const unsaturated = [top, pure].filter((r) => !isSaturated(r.results)).map((r) => r.provider);
  const caveat = unsaturated.length === 0 ? '' : ` (not saturated: ${unsaturated.join(', ')}; the ratio compares what was offered, not capacities)`;
  return {
    target: `native ≥ ${MIN_NATIVE_OVER_PURE_JS} × pure-JS committed throughput`,
    measured: `${top.provider} ${nativeTps.toFixed(1)} / ${PURE_JS_PROVIDER} ${pureTps.toFixed(1)} tx/s = ${ratio.toFixed(2)}×${caveat}`,
    met: ratio >= MIN_NATIVE_OVER_PURE_JS,
  };
}
