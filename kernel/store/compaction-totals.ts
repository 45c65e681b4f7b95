/** LevelDB's cumulative flush and compaction counters of one level, as `leveldb.stats` prints them. */
export interface LevelCounters {
  readonly files: number;
  readonly sizeMb: number;
  readonly seconds: number;
  readonly readMb: number;
  readonly writtenMb: number;
}

/**
 * The rows "level files size(MB) time(sec) read(MB) write(MB)" under `leveldb.stats`' "Compactions"
 * header, by level. LevelDB prints a level once it has files or counters; its level-0 writes are
 * the memtable flushes. Every figure is rounded to a whole MB or second (its `%8.0f`), so a
 * difference over a phase resolves what a busy store writes, not a single block.
 */
export function levelCounters(stats: string): Map<number, LevelCounters> {
  const out = new Map<number, LevelCounters>();
  for (const line of stats.split('\n')) {
    const m = /^\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*$/.exec(line);
    if (m) out.set(Number(m[1]), { files: Number(m[2]), sizeMb: Number(m[3]), seconds: Number(m[4]), readMb: Number(m[5]), writtenMb: Number(m[6]) });
  }
  return out;
}

/** The counters summed over the levels: what the store's background thread has read, written and spent since it opened. */
export function compactionTotals(stats: string): { readonly seconds: number; readonly readMb: number; readonly writtenMb: number } {
  let seconds = 0;
  let readMb = 0;
  let writtenMb = 0;
  for (const c of levelCounters(stats).values()) {
    seconds += c.seconds;
    readMb += c.readMb;
    writtenMb += c.writtenMb;
  }
  return { seconds, readMb, writtenMb };
}
