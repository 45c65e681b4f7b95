import { mkdirSync, openSync, closeSync, writeSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Claims on loopback ports across the test processes of one machine. Probing a port (bind, then
 * close) says it is free now, not that it stays free until the launcher binds it seconds later:
 * two test files that start devnets at once (`test/run.mjs` runs two files at a time) could probe
 * the same block and both take it. A claim is a file created exclusively (`wx`) per port, naming
 * the claiming process; it lasts until that process exits, and a claim whose process is gone is
 * taken over.
 */
const DIR = join(tmpdir(), 'pq-chain-test-ports');
const mine: string[] = [];
let releasing = false;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: a process of another user holds that pid, so it is alive.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** The pid a claim file names; undefined while it is being written, or when it is gone. */
function ownerOf(file: string): number | undefined {
  try {
    const pid = Number(readFileSync(file, 'utf8'));
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function claimOne(port: number): boolean {
  const file = join(DIR, `${port}`);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      mine.push(file);
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = ownerOf(file);
      if (owner === undefined || owner === process.pid || alive(owner)) return false;
      // Its process is gone (killed before its exit handler ran): the claim is stale.
      rmSync(file, { force: true });
    }
  }
  return false;
}

/** Claims ports `start`..`start + n - 1` for this process, all or none. */
export function claimPorts(start: number, n: number): boolean {
  mkdirSync(DIR, { recursive: true });
  if (!releasing) {
    releasing = true;
    process.on('exit', releaseAll);
  }
  const taken: number[] = [];
  for (let p = start; p < start + n; p++) {
    if (!claimOne(p)) {
      for (const q of taken) release(q);
      return false;
    }
    taken.push(p);
  }
  return true;
}

function release(port: number): void {
  const file = join(DIR, `${port}`);
  const i = mine.indexOf(file);
  if (i >= 0) mine.splice(i, 1);
  rmSync(file, { force: true });
}

function releaseAll(): void {
  for (const file of mine.splice(0)) rmSync(file, { force: true });
}
