import { readdirSync, readFileSync } from 'node:fs';

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

function ticksOf(statPath: string): number {
  const stat = readFileSync(statPath, 'utf8');
  // Fields after the parenthesised command name; utime and stime are fields 14 and 15 of the line.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
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
