import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/** The least favoured Linux nice value. */
const LOWEST = 19;

/**
 * Lowers the CPU priority of the calling thread by `steps` nice levels, so that on a busy machine
 * the node's main thread (consensus messages, `/health`, every route) is scheduled ahead of it.
 * Linux nice values are per thread: the thread's id is read from /proc/thread-self, and
 * setpriority on it touches this thread only. Elsewhere (no /proc) it does nothing. It can only
 * lower, which needs no privilege, and it never changes what the thread computes, only when.
 * Returns the nice value set, or undefined when the platform offers no per-thread priority.
 */
export function lowerThreadPriority(steps: number): number | undefined {
  if (steps <= 0) return undefined;
  let tid: number;
  try {
    // "<pid>/task/<tid>"
    tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
  } catch {
    return undefined;
  }
  if (!Number.isSafeInteger(tid) || tid <= 0) return undefined;
  try {
    const nice = Math.min(LOWEST, getPriority(tid) + steps);
    setPriority(tid, nice);
    return getPriority(tid);
  } catch {
    return undefined;
  }
}
