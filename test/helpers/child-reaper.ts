import { readdirSync, readFileSync } from 'node:fs';

let installed = false;

/**
 * Makes the processes this test file started (validators, gateways, relayers, a `chain devnet`
 * launcher and its validators) die with it. The test runner ends a file that passes its timeout
 * with SIGTERM, which by default exits without running `exit` handlers or any `after`: a
 * timed-out devnet test then left its four validators and gateway running for the rest of the
 * suite (a clean-clone CI, 2026-11-29: 20 minutes at ~13 % CPU each, slowing every file after
 * it). SIGTERM now exits through `exit`, where every descendant in this process group is killed,
 * and waited for, before any other handler (temp-dir.ts) removes their data directories. A
 * descendant started detached (its own group, e.g. netns.ts's cleanup reaper, meant to outlive
 * the file) is left alone. Linux only (procfs); elsewhere nothing is reaped, as before.
 */
export function reapChildrenOnExit(): void {
  if (installed) return;
  installed = true;
  process.once('SIGTERM', () => process.exit(143));
  process.prependListener('exit', killDescendants);
}

interface ProcStat {
  readonly ppid: number;
  readonly pgrp: number;
  readonly state: string;
}

function killDescendants(): void {
  const table = processTable();
  const group = table.get(process.pid)?.pgrp;
  if (group === undefined) return;
  const doomed = descendantsOf(process.pid, table).filter((pid) => table.get(pid)!.pgrp === group);
  for (const pid of doomed) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  // An exit handler cannot await: sleep in short steps until each is dead (a zombie or gone), at most 2 s.
  const nap = new Int32Array(new SharedArrayBuffer(4));
  for (let waited = 0; waited < 2_000 && doomed.some(alive); waited += 10) Atomics.wait(nap, 0, 0, 10);
}

function alive(pid: number): boolean {
  const s = statOf(String(pid));
  return s !== undefined && s.state !== 'Z' && s.state !== 'X';
}

/** Every process below `root`, breadth first. */
function descendantsOf(root: number, table: ReadonlyMap<number, ProcStat>): number[] {
  const children = new Map<number, number[]>();
  for (const [pid, s] of table) children.set(s.ppid, [...(children.get(s.ppid) ?? []), pid]);
  const out: number[] = [];
  for (let i = -1; i < out.length; i++) out.push(...(children.get(i < 0 ? root : out[i]!) ?? []));
  return out;
}

function processTable(): Map<number, ProcStat> {
  const table = new Map<number, ProcStat>();
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return table;
  }
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    const s = statOf(name);
    if (s) table.set(Number(name), s);
  }
  return table;
}

function statOf(pid: string): ProcStat | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name: state, ppid, pgrp, …
    const [state, ppid, pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: state!, ppid: Number(ppid), pgrp: Number(pgrp) };
  } catch {
    return undefined; // exited while we looked
  }
}
