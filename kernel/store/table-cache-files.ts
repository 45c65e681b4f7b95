import { readFileSync } from 'node:fs';

/** classic-level's own default for `maxOpenFiles`. */
const LEVELDB_DEFAULT = 1_000;
/** Past this the table cache's own memory (an index block per file) is the concern, not descriptors. */
const MOST = 20_000;

/**
 * How many table files LevelDB may keep open: half the process's soft limit on open files (the
 * rest stays for peers, clients and logs), read from /proc/self/limits, and never below LevelDB's
 * default of 1,000 (what a node opened with before). A store of 10^7 accounts holds ~1,450 tables
 * of 2 MiB; with 1,000 a point read may reopen a table (open, footer, index block), which cost
 * the state tree ~170 µs of CPU per read and made a changed key 4× dearer than with every table
 * open (docs/performance.md, "Third pass: 10^7 keys"). `limits` is the file's text, for tests.
 */
export function tableCacheFiles(limits?: string): number {
  let text = limits;
  if (text === undefined) {
    try {
      text = readFileSync('/proc/self/limits', 'utf8');
    } catch {
      return LEVELDB_DEFAULT; // not Linux
    }
  }
  const m = /^Max open files\s+(\S+)/m.exec(text);
  if (!m) return LEVELDB_DEFAULT;
  const soft = m[1] === 'unlimited' ? Number.POSITIVE_INFINITY : Number(m[1]);
  if (!(soft > 0)) return LEVELDB_DEFAULT;
  return Math.max(LEVELDB_DEFAULT, Math.min(MOST, Math.floor(soft / 2)));
}
