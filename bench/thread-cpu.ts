import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

/**
 * CPU seconds a process has used, split into its main thread (the event loop: consensus, RPC,
 * execution) and every other thread (verify workers, libuv pool, GC). Read from Linux procfs, so
 * a benchmark can say where each committed transaction's CPU went; null elsewhere.
 */
export interface ThreadCpu {
  readonly main: number;
  readonly other: number;
}

const TICKS_PER_SECOND = 100; // USER_HZ: 100 on every Linux ABI Node supports

/**
 * The fields of a procfs `stat` file after the parenthesised command name (which may hold spaces),
 * so field n of the line is index n − 3: utime and stime (14, 15) at 11 and 12, start time (22) at 19.
 */
function statFields(statPath: string): string[] {
  const stat = readFileSync(statPath, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

function ticksOf(statPath: string): number {
  const fields = statFields(statPath);
  return Number(fields[11]) + Number(fields[12]);
}

export function threadCpu(pid: number): ThreadCpu | null {
  try {
    let main = 0;
    let other = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const ticks = ticksOf(`/proc/${pid}/task/${tid}/stat`);
      if (Number(tid) === pid) main += ticks;
      else other += ticks;
    }
    return { main: main / TICKS_PER_SECOND, other: other / TICKS_PER_SECOND };
  } catch {
    return null;
  }
}

/**
 * Time a process's main thread has spent running and runnable but waiting for a core, in
 * milliseconds (Linux schedstat). On an oversubscribed machine the wait, not the thread's own
 * work, is most of the event-loop delay; null off Linux or without schedstats.
 */
export interface MainThreadSched {
  readonly runMs: number;
  readonly waitMs: number;
}

export function mainThreadSched(pid: number): MainThreadSched | null {
  try {
    const [run, wait] = readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').trim().split(' ').map(Number);
    return run === undefined || wait === undefined || !Number.isFinite(run) || !Number.isFinite(wait) ? null : { runMs: run / 1e6, waitMs: wait / 1e6 };
  } catch {
    return null;
  }
}

/** Own process CPU (all threads), in seconds: the load generator's share of the machine. */
export function selfCpuSeconds(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

/**
 * Peak resident memory of a process in bytes (VmHWM: the kernel's high-water mark, so a spike
 * between two reads is not missed); null off Linux or once the process is gone.
 */
export function peakRssBytes(pid: number): number | null {
  try {
    const m = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/**
 * What each of a node process's threads is. Told apart by the order Node creates them and by how
 * they wait: on Linux, Node 20 (libuv 1.46) leaves every thread named as the process (`node` in
 * /proc/<pid>/task/<tid>/comm), so names tell nothing there. Newer releases name the V8 platform's
 * workers `V8Worker` and libuv (1.50+) its pool threads `libuv-worker`; where those names appear
 * they are used instead of the counts (`threadKinds`).
 */
export type ThreadKind = 'main' | 'platform' | 'libuv' | 'workers' | 'leveldb' | 'other';

export const THREAD_KINDS: readonly ThreadKind[] = ['main', 'platform', 'libuv', 'workers', 'leveldb', 'other'];

export interface ThreadSample {
  readonly ticks: number;
  /** Start time in clock ticks after boot (stat field 22). */
  readonly start: number;
  /** The thread's name (`comm`); absent where it could not be read. */
  readonly name?: string;
}

/** Every thread's CPU ticks, start time and name; null off Linux or once the process is gone. */
export function threadSamples(pid: number): Map<number, ThreadSample> | null {
  try {
    const out = new Map<number, ThreadSample>();
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const fields = statFields(`/proc/${pid}/task/${tid}/stat`);
      let name: string | undefined;
      try {
        name = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      } catch {
        // The thread ended between the two reads: its ticks still count.
      }
      out.set(Number(tid), { ticks: Number(fields[11]) + Number(fields[12]), start: Number(fields[19]), ...(name === undefined ? {} : { name }) });
    }
    return out;
  } catch {
    return null;
  }
}

/**
 * How many threads a node process starts before any of its JavaScript can start one: V8's
 * platform (`platform`: the delayed-task scheduler, `--v8-pool-size` workers, then the inspector's
 * SIGUSR1 thread), then libuv's pool (`libuv`: UV_THREADPOOL_SIZE threads, created together at the
 * first use of the pool, which for an ES module entry is its own loading).
 */
export interface NodeThreadLayout {
  readonly platform: number;
  readonly libuv: number;
}

/** libuv's bound on UV_THREADPOOL_SIZE (MAX_THREADPOOL_SIZE in threadpool.c). */
const MAX_LIBUV_POOL = 1024;

/** The value of `--v8-pool-size` among node options (`--v8-pool-size=N` or `--v8-pool-size N`); undefined when not given. */
function v8PoolSizeIn(options: readonly string[]): number | undefined {
  let size: number | undefined;
  options.forEach((arg, i) => {
    if (arg.startsWith('--v8-pool-size=')) size = Number.parseInt(arg.slice('--v8-pool-size='.length), 10);
    else if (arg === '--v8-pool-size' && options[i + 1] !== undefined) size = Number.parseInt(options[i + 1]!, 10);
  });
  return size;
}

/**
 * The layout of a node process started with `argv` (its /proc cmdline) and `env`, as Node 20 and
 * libuv 1.46 size their pools: V8's pool from `--v8-pool-size` (the command line over NODE_OPTIONS;
 * 4 by default, fewer than 1 meaning one per core but one), plus the delayed-task scheduler and,
 * in a build with the inspector, its signal thread; libuv's from UV_THREADPOOL_SIZE as C's atoi
 * reads it (4 unless set, 0 meaning 1, at most 1024).
 */
export function nodeThreadLayoutOf(argv: readonly string[], env: Readonly<Record<string, string | undefined>>, cores: number, inspector: boolean): NodeThreadLayout {
  // Node's own options come before the script, the first argument not an option (nor the size after `--v8-pool-size`).
  let script = 1;
  while (script < argv.length && (argv[script]!.startsWith('-') || argv[script - 1] === '--v8-pool-size')) script++;
  const execArgv = argv.slice(1, script);
  const given = v8PoolSizeIn(execArgv) ?? v8PoolSizeIn((env.NODE_OPTIONS ?? '').split(/\s+/).filter(Boolean)) ?? 4;
  const v8Pool = Math.max(Number.isNaN(given) || given < 1 ? cores - 1 : given, 1);
  const raw = env.UV_THREADPOOL_SIZE;
  let libuv = 4;
  if (raw !== undefined) {
    const n = Number(/^\s*[+-]?\d+/.exec(raw)?.[0] ?? 0);
    libuv = n === 0 ? 1 : n < 0 || n > MAX_LIBUV_POOL ? MAX_LIBUV_POOL : n; // atoi into an unsigned: negative wraps past the bound
  }
  return { platform: 1 + v8Pool + (inspector ? 1 : 0), libuv };
}

/**
 * The layout of the running node process `pid`, from its /proc cmdline and environ; Node's
 * defaults (4 and 4) where those cannot be read. Assumes it runs this process's node binary (the
 * bench starts its validators with process.execPath), so this one's build says whether the
 * inspector's signal thread is there.
 */
export function nodeThreadLayout(pid: number): NodeThreadLayout {
  const read = (file: string): string[] => {
    try {
      return readFileSync(`/proc/${pid}/${file}`, 'utf8').split('\0').filter((s, i, all) => s !== '' || i < all.length - 1);
    } catch {
      return [];
    }
  };
  const env: Record<string, string> = {};
  for (const entry of read('environ')) {
    const eq = entry.indexOf('=');
    if (eq > 0) env[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  return nodeThreadLayoutOf(read('cmdline'), env, availableParallelism(), process.features.inspector);
}

/**
 * Per process, the threads ever seen waiting in epoll: event loops (the main thread, Node's worker
 * threads). Keyed by pid and kept with the process's start time, since one bench command starts
 * several devnets and a later validator may be given an earlier one's pid.
 */
const eventLoopThreads = new Map<number, { readonly started: number; readonly tids: Set<number> }>();

/** A process's start time in clock ticks after boot (stat field 22); NaN once it is gone. */
function processStart(pid: number): number {
  try {
    return Number(statFields(`/proc/${pid}/stat`)[19]);
  } catch {
    return NaN;
  }
}

/** `wchan` names an epoll wait `do_epoll_wait` on recent kernels, `ep_poll` on older ones. */
const EPOLL_WAIT = /epoll|ep_poll/;

/** The threads of `pid` seen waiting in epoll so far (this process, not an earlier one with its pid); empty when none. */
export function eventLoopsOf(pid: number): ReadonlySet<number> {
  const known = eventLoopThreads.get(pid);
  return known !== undefined && known.started === processStart(pid) ? known.tids : new Set();
}

/**
 * Notes which of a process's threads wait in epoll right now (`wchan`). A Node worker thread
 * (transaction verify pool, the consensus signature worker, contract threads) idles in its own
 * event loop's epoll; LevelDB's background thread, libuv's pool and V8's GC helpers idle on a
 * condition variable. (V8's delayed-task scheduler thread waits in epoll too: `threadKinds` files
 * the platform's threads by start order before it asks how a thread waits.) Called often enough,
 * every worker is caught idle at least once.
 */
export function noteEventLoopThreads(pid: number): void {
  const started = processStart(pid);
  if (Number.isNaN(started)) return;
  let known = eventLoopThreads.get(pid);
  if (known?.started !== started) eventLoopThreads.set(pid, (known = { started, tids: new Set() }));
  const seen = known.tids;
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        if (EPOLL_WAIT.test(readFileSync(`/proc/${pid}/task/${tid}/wchan`, 'utf8'))) seen.add(Number(tid));
      } catch {
        // The thread ended between the listing and the read.
      }
    }
  } catch {
    // Not Linux, or the process is gone.
  }
}

/** Names Node and libuv give their pools' threads in releases after Node 20 (`uv_thread_setname`). */
const POOL_NAMES: ReadonlyMap<string, ThreadKind> = new Map([
  ['V8Worker', 'platform'],
  ['libuv-worker', 'libuv'],
]);

/** True when `samples` carry the names newer Node and libuv give their pools' threads, so `threadKinds` goes by them. */
export function poolsNamed(samples: ReadonlyMap<number, ThreadSample>): boolean {
  return [...samples.values()].some((s) => s.name !== undefined && POOL_NAMES.has(s.name));
}

/**
 * The kind of each thread of a validator, in the order Node creates them (start time, then tid).
 * First come the threads Node starts before any JavaScript runs, then libuv's pool, both counted
 * by `layout` (`nodeThreadLayout`: 6 and 4 for a validator) — or, where the pools' threads carry
 * names (`poolsNamed`), told by those: `V8Worker` is the platform's, `libuv-worker` libuv's, and
 * an unnamed thread before the last of libuv's the platform's too (its scheduler and signal
 * threads). Counted, not told by gaps in start time: the pool can start in the same 10 ms tick as
 * the platform's last thread, and grouping by gaps then filed every thread as V8's.
 * What starts later comes in an order that depends on the state's size: the transaction verify
 * pool's 2 workers at boot, the consensus signature worker when block production starts,
 * LevelDB's one background thread (memtable flushes, compactions) at its first flush, which at
 * 10^6 accounts is during genesis and at 10^3 under load, and contract threads on first use. So
 * these are told apart by how they wait: a thread ever seen in epoll (`noteEventLoopThreads`,
 * given as `eventLoops`) is a worker, the first of the others LevelDB's, and any after it `other`.
 * Without that knowledge (no sample yet), start order alone decides, as at 10^6: two workers,
 * then LevelDB. Checked against samples of devnet validators at 10^3 and 10^6 accounts
 * (thread-cpu.test.ts).
 */
export function threadKinds(
  pid: number,
  samples: ReadonlyMap<number, ThreadSample>,
  eventLoops: ReadonlySet<number> = eventLoopsOf(pid),
  layout: NodeThreadLayout = nodeThreadLayout(pid),
): Map<number, ThreadKind> {
  const kinds = new Map<number, ThreadKind>([[pid, 'main']]);
  const rest = [...samples.entries()].filter(([tid]) => tid !== pid).sort((a, b) => a[1].start - b[1].start || a[0] - b[0]);
  let later: Array<[number, ThreadSample]>;
  if (poolsNamed(samples)) {
    let lastPoolThread = -1;
    rest.forEach(([, s], i) => {
      if (s.name !== undefined && POOL_NAMES.has(s.name)) lastPoolThread = i;
    });
    for (const [tid, s] of rest.slice(0, lastPoolThread + 1)) kinds.set(tid, POOL_NAMES.get(s.name ?? '') ?? 'platform');
    later = rest.slice(lastPoolThread + 1);
  } else {
    for (const [tid] of rest.slice(0, layout.platform)) kinds.set(tid, 'platform');
    for (const [tid] of rest.slice(layout.platform, layout.platform + layout.libuv)) kinds.set(tid, 'libuv');
    later = rest.slice(layout.platform + layout.libuv);
  }
  // Without knowledge of how they wait: by start order, one thread at a time.
  const byOrder: ThreadKind[] = ['workers', 'workers', 'leveldb'];
  let leveldb = false;
  for (const [tid] of later) {
    if (eventLoops.size === 0) kinds.set(tid, byOrder.shift() ?? 'other');
    else if (eventLoops.has(tid)) kinds.set(tid, 'workers');
    else if (!leveldb) {
      leveldb = true;
      kinds.set(tid, 'leveldb');
    } else kinds.set(tid, 'other');
  }
  return kinds;
}

/** CPU seconds per thread kind between two samples of one process (threads gone by the second are not counted). */
export function cpuByKind(
  pid: number,
  before: ReadonlyMap<number, ThreadSample>,
  after: ReadonlyMap<number, ThreadSample>,
  layout: NodeThreadLayout = nodeThreadLayout(pid),
): Record<ThreadKind, number> {
  const kinds = threadKinds(pid, after, eventLoopsOf(pid), layout);
  const out = Object.fromEntries(THREAD_KINDS.map((k) => [k, 0])) as Record<ThreadKind, number>;
  for (const [tid, s] of after) out[kinds.get(tid) ?? 'other'] += (s.ticks - (before.get(tid)?.ticks ?? 0)) / TICKS_PER_SECOND;
  return out;
}

/**
 * Nanoseconds this process's main thread and its other threads (libuv's pool, LevelDB's
 * compaction thread, V8's GC helpers) have run, from Linux schedstat; null elsewhere.
 * process.cpuUsage() sums every thread, so it alone cannot say whose work grew. With `perThread`,
 * each thread's run time times `sign` is added to its entry: -1 before and +1 after a window
 * leaves each thread's share of that window.
 */
export function selfThreadRunNs(perThread?: Map<number, number>, sign = 1): { main: number; other: number } | null {
  try {
    let main = 0;
    let other = 0;
    // The main thread's own reading last before a window and first after it, so that the
    // bench's procfs reads stay out of the main thread's figure.
    const tids = readdirSync('/proc/self/task').map(Number).filter((t) => t !== process.pid);
    const order = sign < 0 ? [...tids, process.pid] : [process.pid, ...tids];
    for (const tid of order) {
      const ns = Number(readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      if (tid === process.pid) main += ns;
      else other += ns;
      perThread?.set(tid, (perThread.get(tid) ?? 0) + sign * ns);
    }
    return { main, other };
  } catch {
    return null;
  }
}

/**
 * The thread of this process created last among those not in `known`, by start time: after
 * `known` is taken with a LevelDB store open (so V8's and libuv's threads exist), the one thread
 * a memtable flush then starts is LevelDB's background thread (one per process, shared by every
 * store; it runs flushes and compactions). null off Linux or when no new thread started.
 */
export function newestSelfThreadSince(known: ReadonlySet<number>): { tid: number; newThreads: number } | null {
  const samples = threadSamples(process.pid);
  if (samples === null) return null;
  const fresh = [...samples.entries()].filter(([tid]) => !known.has(tid)).sort((a, b) => a[1].start - b[1].start || a[0] - b[0]);
  const last = fresh[fresh.length - 1];
  return last === undefined ? null : { tid: last[0], newThreads: fresh.length };
}
