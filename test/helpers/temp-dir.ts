import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made: string[] = [];

/**
 * A fresh directory under the OS temp dir, removed when this process exits (passed or failed):
 * a cluster leaves a few hundred MiB of LevelDB behind, and a suite run leaves dozens. Set
 * KEEP_TEST_DATA=1 to keep them for a post-mortem; the paths are in the nodes' logs.
 */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (process.env.KEEP_TEST_DATA) return dir;
  if (made.length === 0) process.on('exit', removeAll);
  made.push(dir);
  return dir;
}

function removeAll(): void {
  // Child processes may still be writing on an abnormal exit; a directory that will not go is
  // left for the OS's temp cleaner rather than failing the exit.
  for (const dir of made.splice(0)) {
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 2 });
    } catch {
      // left behind
    }
  }
}
