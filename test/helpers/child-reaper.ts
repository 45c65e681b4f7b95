import { readdirSync, readFileSync } from 'node:fs';

let installed = false;

/**
 * Makes the processes this test file started (validators, gateways, relayers) die with it. The
 * test runner ends a file that passes its timeout with SIGTERM, which by default exits without
 * running `exit` handlers or any `after`: a timed-out devnet test then left its four validators
 * and gateway running for the rest of the suite (a clean-clone CI, 2026-11-29: 20 minutes at ~13 %
 * CPU each, slowing every file after it). SIGTERM now exits through `exit`, where the children are
 * killed before any other handler (temp-dir.ts) removes their data directories.
 */
export function reapChildrenOnExit(): void {
  if (installed) return;
  installed = true;
  process.once('SIGTERM', () => process.exit(143));
  process.prependListener('exit', killChildren);
}

function killChildren(): void {
  for (const pid of childPids()) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

/** This process's direct children, from procfs (empty where there is none). */
function childPids(): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      // Fields after the parenthesised command name: state, then the parent's pid.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === process.pid) out.push(Number(name));
    } catch {
      // exited while we looked
    }
  }
  return out;
}
