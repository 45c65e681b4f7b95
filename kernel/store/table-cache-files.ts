import { readFileSync } from 'node:fs';

/** classic-level's own default for `maxOpenFiles`. */
const LEVELDB_DEFAULT = 1_000;
/** Past this the table cache's own memory (an index block per file) is the concern, not descriptors. */
const MOST = 20_000;

/**
 * How many table files LevelDB may keep open. A store of 10^7 accounts holds ~1,450 tables of
 * 2 MiB; with classic-level's 1,000 a point read may reopen a table (open, footer, index block),
 * which cost the state tree ~170 µs of CPU per read and made a changed key at 10^7 4× dearer
 * than with every table open (docs/performance.md, "Third pass: 10^7 keys"). What LevelDB can
 * use of a larger cache is bounded by the process's open-files limit: it memory-maps up to 1,000
 * tables (no descriptor kept) and keeps a descriptor open for at most a fifth of the soft limit
 * more; a cached table beyond those reopens its file on each read. So 1,000 + soft / 5, never
 * below LevelDB's default and at most 20,000. Node raises its soft limit to the hard one at start,
 * so in a node this is the hard limit (`ulimit -Hn`); read from /proc/self/limits. `limits` is
 * that file's text, for tests.
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
  return Math.max(LEVELDB_DEFAULT, Math.min(MOST, LEVELDB_DEFAULT + Math.floor(soft / 5)));
}
