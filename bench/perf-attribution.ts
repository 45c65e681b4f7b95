import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';

/*
 * Where a validator's main thread spends its CPU, from Linux `perf` (the load bench's `--perf`).
 *
 * Why not V8's CPU profiler: it samples on a wall-clock timer, and on this machine four
 * validators share two cores, so a main thread waits for a core about half the time; each of
 * those samples lands on whatever ran last (a call that woke a libuv thread, say) and reads as
 * its CPU. With `--cpu-prof` at 10^6 accounts, classic-level's `_getMany` showed 7.7 s of a 72 s
 * window, the queueing of a read. perf's `cpu-clock` event counts only time on a core, and with
 * `--perf-basic-prof-only-functions` (node writes /tmp/perf-<pid>.map) and
 * `--interpreted-frames-native-stack` (a frame of its own for a function still interpreted,
 * which would otherwise read as the interpreter's builtin) it names JavaScript frames too. Native
 * frames without frame pointers (glibc's malloc, OpenSSL's Keccak) end the unwinding, so their
 * callers are unknown: those samples are "no JS of ours" by owner, and the leaf kind says what
 * they were (`perf record --call-graph dwarf` names them, at far greater cost: docs/performance.md).
 */

/** Sampling rate of the recording, per second per thread: a prime, so it does not beat with the event loop's timers. */
export const PERF_HZ = 299;

/** A running `perf record` of some processes (all their threads), stopped with SIGINT. */
export class PerfRecording {
  private stderr = '';

  private constructor(
    private readonly child: ChildProcess,
    readonly file: string,
  ) {
    child.stderr!.on('data', (d: Buffer) => (this.stderr += d.toString()));
  }

  /** `cpu-clock`, not perf's default `cycles` where the host has the counter: time on a core, so a sample is 1/PERF_HZ s. */
  static async start(pids: readonly number[], file: string): Promise<PerfRecording> {
    const child = spawn('perf', ['record', '-e', 'cpu-clock', '-g', '-F', String(PERF_HZ), '-p', pids.join(','), '-o', file], { stdio: ['ignore', 'ignore', 'pipe'] });
    const recording = new PerfRecording(child, file);
    const failed = once(child, 'error').then(([err]) => {
      throw new Error(`perf record did not start (${(err as Error).message}): install linux-perf, or run without --perf`);
    });
    // An 'error' after the start (a failed kill) must not become an unhandled rejection.
    failed.catch(() => undefined);
    // perf opens its events before it writes anything; a short settle is enough to see it refuse.
    await Promise.race([failed, new Promise((resolve) => setTimeout(resolve, 300))]);
    if (recording.exited) throw new Error(`perf record exited at once (${child.exitCode ?? child.signalCode}): ${recording.stderr.trim()}`);
    return recording;
  }

  private get exited(): boolean {
    return this.child.exitCode !== null || this.child.signalCode !== null;
  }

  /** Stops the recording; throws if perf had failed (its file would hold nothing to attribute). */
  async stop(): Promise<void> {
    if (!this.exited) {
      const exited = once(this.child, 'exit');
      this.child.kill('SIGINT');
      await exited;
    }
    // perf ends on SIGINT by re-raising it, or with 0 (its processes exited first).
    const { exitCode, signalCode } = this.child;
    if (!(exitCode === 0 || signalCode === 'SIGINT')) throw new Error(`perf record failed (${exitCode ?? signalCode}): ${this.stderr.trim()}`);
  }
}

/** One sample of `perf script -F pid,tid,time,ip,sym,dso`: its thread and its frames, leaf first. */
export interface PerfSample {
  readonly pid: number;
  readonly tid: number;
  readonly frames: readonly string[];
}

/** Samples from `perf script` text, a line at a time (the text of a 25 s recording is ~100 MB). */
export async function* perfSamples(lines: AsyncIterable<string> | Iterable<string>): AsyncGenerator<PerfSample> {
  let current: { pid: number; tid: number; frames: string[] } | null = null;
  for await (const line of lines) {
    if (line.trim() === '') {
      if (current !== null) yield current;
      current = null;
      continue;
    }
    const head = /^\s*(\d+)\/(\d+)\s+[\d.]+:/.exec(line);
    if (head !== null && !line.startsWith('\t')) {
      if (current !== null) yield current;
      current = { pid: Number(head[1]), tid: Number(head[2]), frames: [] };
      continue;
    }
    // A frame: "<address> <symbol> (<object>)".
    if (current !== null) current.frames.push(line.trim().replace(/^[0-9a-f]+ /, ''));
  }
  if (current !== null) yield current;
}

/** The lines of `perf script` for a recording; throws at the end if perf failed. */
export async function* perfScriptLines(file: string): AsyncGenerator<string> {
  const child = spawn('perf', ['script', '-i', file, '-F', 'pid,tid,time,ip,sym,dso'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = once(child, 'close');
  yield* createInterface({ input: child.stdout!, crlfDelay: Infinity });
  const [code] = (await exited) as [number | null];
  if (code !== 0) throw new Error(`perf script -i ${file} failed (${code}): ${stderr.trim().slice(0, 500)}`);
}

/** What a sample's leaf frame is: JavaScript, a V8 builtin, the runtime, the allocator, LevelDB, GC… */
export function leafKind(frame: string | undefined): string {
  if (frame === undefined) return 'unknown';
  if (/classic-level|leveldb/.test(frame)) return 'LevelDB (native)';
  if (/Scaveng|Heap::|MarkCompact|Marking|Sweeper|Evacuat|MinorMC|GCTracer/.test(frame)) return 'GC';
  if (/\[kernel\.kallsyms\]/.test(frame)) return 'kernel';
  if (/libc\.so|libstdc\+\+|ld-linux/.test(frame)) return 'libc (malloc, memcpy…)';
  if (/perf-\d+\.map/.test(frame)) return 'JavaScript';
  if (/Keccak|SHA3|ChaCha|Poly1305|EVP_|ossl_|crc32/.test(frame)) return 'crypto and checksums (native)';
  if (/\buv_|uv__/.test(frame)) return 'libuv';
  if (/Builtins_/.test(frame)) return 'V8 builtins';
  if (/v8::|node::|napi_|v8impl/.test(frame)) return 'V8 and node runtime';
  return 'other native';
}

/** Whose work a sample is: the innermost frame of the project's own code (a kernel folder, the state tree, a plugin). */
export function ownerOf(frames: readonly string[]): string {
  for (const frame of frames) {
    const m = /dist\/(kernel\/state\/tree|kernel\/[^/]+|plugins\/[^/]+|cli|gateway|sdk)\//.exec(frame);
    if (m) return m[1]!;
  }
  return '(no JS of ours on the stack)';
}

export interface MainThreadAttribution {
  /** Samples of the processes' main threads (tid = pid), and of their other threads. */
  readonly mainSamples: number;
  readonly otherSamples: number;
  readonly byOwner: ReadonlyMap<string, number>;
  readonly byKind: ReadonlyMap<string, number>;
}

/** Counts the main threads' samples of `pids` by owner and by leaf kind. */
export async function attributeMainThreads(samples: AsyncIterable<PerfSample>, pids: ReadonlySet<number>): Promise<MainThreadAttribution> {
  const byOwner = new Map<string, number>();
  const byKind = new Map<string, number>();
  let mainSamples = 0;
  let otherSamples = 0;
  for await (const s of samples) {
    if (!pids.has(s.pid)) continue;
    if (s.tid !== s.pid) {
      otherSamples++;
      continue;
    }
    mainSamples++;
    const owner = ownerOf(s.frames);
    byOwner.set(owner, (byOwner.get(owner) ?? 0) + 1);
    const kind = leafKind(s.frames[0]);
    byKind.set(kind, (byKind.get(kind) ?? 0) + 1);
  }
  return { mainSamples, otherSamples, byOwner, byKind };
}

/** The attribution as lines, in ms of CPU per committed transaction summed over the processes. */
export function formatAttribution(a: MainThreadAttribution, committed: number): string[] {
  const perTx = (samples: number): string => ((samples / PERF_HZ) * 1000 / Math.max(1, committed)).toFixed(3);
  const rows = (m: ReadonlyMap<string, number>): string => [...m].sort((x, y) => y[1] - x[1]).filter(([, n]) => n / Math.max(1, a.mainSamples) >= 0.002).map(([k, n]) => `${k} ${perTx(n)}`).join(', ');
  return [
    `perf, CPU ms per committed tx summed over the validators: main threads ${perTx(a.mainSamples)}, their other threads ${perTx(a.otherSamples)}`,
    `  main threads by whose code is innermost on the stack: ${rows(a.byOwner)}`,
    `  main threads by leaf frame: ${rows(a.byKind)}`,
  ];
}
