import { readFileSync } from 'node:fs';

/**
 * The logs of the processes behind a test's RPC URLs, so that a wait which times out says what
 * the chain was doing (committing, changing rounds, refusing proposals) instead of only that it
 * waited: by the time anyone looks, a test devnet's folder is gone. The helpers that start
 * processes register them; `waitConfirmed` appends the tails on a timeout.
 */
export interface ProcessLog {
  readonly name: string;
  /** The whole log so far (a file read now, or lines kept in memory). */
  readonly read: () => string;
}

const byUrl = new Map<string, readonly ProcessLog[]>();

/** Every URL of one network shows the logs of the whole network: a stalled wait on one node is usually another's doing. */
export function registerNetworkLogs(urls: readonly string[], logs: readonly ProcessLog[]): void {
  for (const url of urls) byUrl.set(url, logs);
}

/** A log file, read when a tail is asked for. */
export function fileLog(name: string, path: string): ProcessLog {
  return { name, read: () => readFileSync(path, 'utf8') };
}

/** A pino line at warn (40) or above: what a tail of routine lines would push out of view. */
const WARNING = /"level":(4\d|5\d|6\d)\b/;

/**
 * For each log registered for `url`: its last warnings and errors from the whole run (a dropped
 * transaction, a refused proposal: often minutes before the wait gave up) and its last `lines`
 * lines, as one block of text ('' when none is).
 */
export function logTails(url: string, lines = 20): string {
  const logs = byUrl.get(url);
  if (logs === undefined) return '';
  return logs
    .map((log) => {
      let text: string;
      try {
        text = log.read();
      } catch (err) {
        text = `(unreadable: ${err instanceof Error ? err.message : String(err)})`;
      }
      const all = text.trimEnd().split('\n');
      const warnings = all.filter((l) => WARNING.test(l)).slice(-lines);
      const warned = warnings.length === 0 ? '' : `\n--- last ${warnings.length} warnings and errors of ${log.name} ---\n${warnings.join('\n')}`;
      return `${warned}\n--- last ${lines} lines of ${log.name} ---\n${all.slice(-lines).join('\n')}`;
    })
    .join('');
}
