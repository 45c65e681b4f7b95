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

/** The last `lines` lines of each log registered for `url`, as one block of text ('' when none is). */
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
      return `\n--- last ${lines} lines of ${log.name} ---\n${text.trimEnd().split('\n').slice(-lines).join('\n')}`;
    })
    .join('');
}
