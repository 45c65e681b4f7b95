import { blockStepsIn, type BlockStepsReading } from './block-steps.js';
import { stateReadsBetween, stateReadsIn, type StateReadSample } from './state-read-counts.js';
import { storeWorkIn, type StoreWork } from './store-work.js';
import { gcPausesBetween, parseGcPauses, type GcPausesByKind } from './gc-pauses.js';
import { THREAD_KINDS, cpuByKind, eventLoopsOf, mainThreadSched, noteEventLoopThreads, poolsNamed, selfCpuSeconds, threadCpu, threadSamples, type MainThreadSched, type ThreadCpu, type ThreadKind } from './thread-cpu.js';

/** A process the load bench watches: its RPC URL for /metrics (validators only) and its pid for procfs. */
export interface ProbedProcess {
  readonly url: string;
  readonly pid: number | undefined;
}

/** What the validators, the gateway and the bench itself spent over one phase. */
export interface PhaseResources {
  readonly wallSeconds: number;
  /** CPU seconds summed over the validators' main threads (event loops); NaN where procfs cannot say. */
  readonly mainCpuSeconds: number;
  /** CPU seconds summed over the validators' other threads: verify workers, libuv, GC helpers, LevelDB. */
  readonly otherCpuSeconds: number;
  /** The validators' CPU seconds by thread kind (thread-cpu.ts, `threadKinds`), summed; null where procfs cannot say. */
  readonly cpuByKind: Record<ThreadKind, number> | null;
  /** True when some validator's threads were told apart by start order alone (none seen waiting in epoll: thread-cpu.ts), which at 10^3 accounts mistakes the consensus worker for LevelDB's thread. */
  readonly kindsByStartOrderOnly: boolean;
  /** True when every validator's pool threads carry the names newer Node and libuv give them (thread-cpu.ts, `poolsNamed`), so those told V8's from libuv's; false under Node 20, where start order and counts do. */
  readonly kindsByThreadName: boolean;
  /** This process (load generator, confirmation watcher). */
  readonly clientCpuSeconds: number;
  /** The gateway's, all threads; 0 without one, NaN where procfs cannot say. */
  readonly gatewayCpuSeconds: number;
  /** Per validator, ms per second its main thread ran and waited for a core. */
  readonly sched: ReadonlyArray<MainThreadSched | null>;
  /** Per validator, event-loop delay over the phase (beyond the sampling interval). */
  readonly loopP99Ms: readonly number[];
  readonly loopMaxMs: readonly number[];
  readonly gc: readonly GcPausesByKind[];
  /** Per validator, committed state keys read from the store over the phase (chain_state_reads_total). */
  readonly stateReads: ReadonlyArray<readonly StateReadSample[]>;
  /** Per validator, its block steps and LevelDB files at the start and at the end of the phase. */
  readonly blockSteps: { readonly before: readonly BlockStepsReading[]; readonly after: readonly BlockStepsReading[] };
  /** Per validator, each LevelDB store's point reads and compaction at the start and at the end of the phase. */
  readonly storeWork: { readonly before: ReadonlyArray<ReadonlyMap<string, StoreWork>>; readonly after: ReadonlyArray<ReadonlyMap<string, StoreWork>> };
}

/** Prometheus text of a node's /metrics; refused after `timeoutMs` when given (a poll that must not outlive its deadline). */
export async function metricsText(url: string, timeoutMs?: number): Promise<string> {
  return (await fetch(`${url}/metrics`, timeoutMs === undefined ? {} : { signal: AbortSignal.timeout(timeoutMs) })).text();
}

/** The named samples' values in a /metrics text (the first series of each), NaN where absent. */
export function valuesIn(text: string, names: readonly string[]): number[] {
  return names.map((name) => {
    const m = new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.e+-]+)$`, 'm').exec(text);
    return m ? Number(m[1]) : NaN;
  });
}

function cpuOf(pid: number | undefined): ThreadCpu | null {
  return pid ? threadCpu(pid) : null;
}

function schedOf(pid: number | undefined): MainThreadSched | null {
  return pid ? mainThreadSched(pid) : null;
}

function sumKinds(each: ReadonlyArray<Record<ThreadKind, number>>): Record<ThreadKind, number> {
  const out = Object.fromEntries(THREAD_KINDS.map((k) => [k, 0])) as Record<ThreadKind, number>;
  for (const one of each) for (const k of THREAD_KINDS) out[k] += one[k];
  return out;
}

function used(before: ThreadCpu | null, after: ThreadCpu | null): ThreadCpu | null {
  return before && after ? { main: after.main - before.main, other: after.other - before.other } : null;
}

/**
 * Readings taken before a phase and again after it. Starting one scrapes every validator's
 * /metrics, which restarts its event-loop window, so the delay read at the end covers this phase
 * alone, not start-up, funding or the previous rate.
 */
export class PhaseProbe {
  private constructor(
    private readonly validators: readonly ProbedProcess[],
    /** null without a gateway, undefined for one whose pid is unknown. */
    private readonly gatewayPid: number | null | undefined,
    private readonly startedAt: number,
    private readonly gcBefore: readonly GcPausesByKind[],
    private readonly cpuBefore: ReadonlyArray<ThreadCpu | null>,
    private readonly schedBefore: ReadonlyArray<MainThreadSched | null>,
    private readonly clientCpuBefore: number,
    private readonly gatewayCpuBefore: ThreadCpu | null,
    private readonly threadsBefore: ReadonlyArray<ReturnType<typeof threadSamples>>,
    private readonly stateReadsBefore: ReadonlyArray<readonly StateReadSample[]>,
    private readonly blockStepsBefore: readonly BlockStepsReading[],
    private readonly storeWorkBefore: ReadonlyArray<ReadonlyMap<string, StoreWork>>,
  ) {
    this.noteLoops();
    // Often enough to catch every worker thread idle at least once, which tells it from LevelDB's (thread-cpu.ts).
    this.loopTimer = setInterval(() => this.noteLoops(), 500);
    this.loopTimer.unref();
  }

  private readonly loopTimer: NodeJS.Timeout;

  private noteLoops(): void {
    for (const n of this.validators) if (n.pid) noteEventLoopThreads(n.pid);
  }

  /** `gatewayPid` null without a gateway, undefined for one whose pid is unknown. */
  static async start(validators: readonly ProbedProcess[], gatewayPid: number | null | undefined): Promise<PhaseProbe> {
    const texts = await Promise.all(validators.map((n) => metricsText(n.url)));
    const gcBefore = texts.map(parseGcPauses);
    return new PhaseProbe(
      validators,
      gatewayPid,
      performance.now(),
      gcBefore,
      validators.map((n) => cpuOf(n.pid)),
      validators.map((n) => schedOf(n.pid)),
      selfCpuSeconds(),
      gatewayPid === null ? null : cpuOf(gatewayPid),
      validators.map((n) => (n.pid ? threadSamples(n.pid) : null)),
      texts.map(stateReadsIn),
      texts.map(blockStepsIn),
      texts.map(storeWorkIn),
    );
  }

  /** Stops the sampling of how threads wait, for a phase that ends without `finish` (it failed). */
  stop(): void {
    clearInterval(this.loopTimer);
  }

  async finish(): Promise<PhaseResources> {
    this.stop();
    this.noteLoops();
    const cpu = this.validators.map((n, i) => used(this.cpuBefore[i] ?? null, cpuOf(n.pid)));
    const afters = this.validators.map((n) => (n.pid ? threadSamples(n.pid) : null));
    const kinds = this.validators.map((n, i) => {
      const before = this.threadsBefore[i];
      const after = afters[i];
      return n.pid && before && after ? cpuByKind(n.pid, before, after) : null;
    });
    const byKind = kinds.some((k) => k === null) ? null : sumKinds(kinds as Array<Record<ThreadKind, number>>);
    const schedAfter = this.validators.map((n) => schedOf(n.pid));
    // One scrape per validator: p99, max and the GC counters come from the same window.
    const texts = await Promise.all(this.validators.map((n) => metricsText(n.url)));
    const loops = texts.map((t) => valuesIn(t, ['event_loop_delay_p99_seconds', 'event_loop_delay_max_seconds']));
    const clientCpuSeconds = selfCpuSeconds() - this.clientCpuBefore;
    const gatewayUsed = this.gatewayPid === null ? null : used(this.gatewayCpuBefore, cpuOf(this.gatewayPid));
    const wallSeconds = (performance.now() - this.startedAt) / 1000;
    return {
      wallSeconds,
      mainCpuSeconds: cpu.reduce((a, u) => a + (u?.main ?? NaN), 0),
      otherCpuSeconds: cpu.reduce((a, u) => a + (u?.other ?? NaN), 0),
      cpuByKind: byKind,
      kindsByStartOrderOnly: this.validators.some((n) => n.pid !== undefined && eventLoopsOf(n.pid).size === 0),
      kindsByThreadName: afters.length > 0 && afters.every((a) => a !== null && poolsNamed(a)),
      clientCpuSeconds,
      gatewayCpuSeconds: this.gatewayPid === null ? 0 : gatewayUsed ? gatewayUsed.main + gatewayUsed.other : NaN,
      sched: this.schedBefore.map((b, i) => {
        const a = schedAfter[i];
        return b && a ? { runMs: (a.runMs - b.runMs) / wallSeconds, waitMs: (a.waitMs - b.waitMs) / wallSeconds } : null;
      }),
      loopP99Ms: loops.map((l) => l[0]! * 1000),
      loopMaxMs: loops.map((l) => l[1]! * 1000),
      gc: texts.map((t, i) => gcPausesBetween(this.gcBefore[i]!, parseGcPauses(t))),
      stateReads: texts.map((t, i) => stateReadsBetween(this.stateReadsBefore[i]!, stateReadsIn(t))),
      blockSteps: { before: this.blockStepsBefore, after: texts.map(blockStepsIn) },
      storeWork: { before: this.storeWorkBefore, after: texts.map(storeWorkIn) },
    };
  }
}
