import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compactionTotals, levelCounters } from './compaction-totals.js';

// LevelDB's `leveldb.stats` as it prints it (db_impl.cc, DBImpl::GetProperty).
const STATS = `                               Compactions
Level  Files Size(MB) Time(sec) Read(MB) Write(MB)
--------------------------------------------------
  0        2        7         1        0         7
  1        5        9         2       16        12
  3       40      120         0        0         0
`;

test('reads each level\'s row and sums the counters over the levels', () => {
  const levels = levelCounters(STATS);
  assert.deepEqual([...levels.keys()], [0, 1, 3]);
  assert.deepEqual(levels.get(1), { files: 5, sizeMb: 9, seconds: 2, readMb: 16, writtenMb: 12 });
  assert.deepEqual(compactionTotals(STATS), { seconds: 3, readMb: 16, writtenMb: 19 });
  assert.deepEqual(compactionTotals(''), { seconds: 0, readMb: 0, writtenMb: 0 });
});
