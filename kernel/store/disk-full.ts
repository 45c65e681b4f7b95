/**
 * A write the disk had no room for (ENOSPC), whichever layer met it: node's fs (the WAL, the
 * last-signed record), LevelDB (its message names the system error), or an error that wraps one
 * in its `cause`. A node that meets it stops rather than retry: LevelDB keeps refusing writes
 * after a failed one, and a validator that cannot persist what it signs must not sign (issue 39).
 */
export function isDiskFull(err: unknown, depth = 0): boolean {
  if (depth > 8 || typeof err !== 'object' || err === null) return false;
  const e = err as { code?: unknown; message?: unknown; cause?: unknown };
  if (e.code === 'ENOSPC') return true;
  if (typeof e.message === 'string' && /ENOSPC|No space left on device/i.test(e.message)) return true;
  const causes = Array.isArray(e.cause) ? (e.cause as unknown[]) : [e.cause];
  return causes.some((c) => isDiskFull(c, depth + 1));
}
