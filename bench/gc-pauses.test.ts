import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GC_PAUSE_BUCKETS } from '../kernel/node/metrics.js';
import { formatGcPauses, gcPausesBetween, parseGcPauses } from './gc-pauses.js';

const sample = (minor: { count: number; sum: number; le20: number; le50: number }): string =>
  [
    '# TYPE nodejs_gc_duration_seconds histogram',
    ...GC_PAUSE_BUCKETS.map((le) => `nodejs_gc_duration_seconds_bucket{le="${le}",kind="minor"} ${le < 0.02 ? 0 : le === 0.02 ? minor.le20 : le === 0.05 ? minor.le50 : minor.count}`),
    `nodejs_gc_duration_seconds_bucket{le="+Inf",kind="minor"} ${minor.count}`,
    `nodejs_gc_duration_seconds_sum{kind="minor"} ${minor.sum}`,
    `nodejs_gc_duration_seconds_count{kind="minor"} ${minor.count}`,
    'nodejs_gc_duration_seconds_bucket{le="+Inf",kind="major"} 2',
    'nodejs_gc_duration_seconds_sum{kind="major"} 0.09',
    'nodejs_gc_duration_seconds_count{kind="major"} 2',
    'nodejs_gc_duration_seconds_bucket{le="0.02",kind="major"} 0',
    'nodejs_gc_duration_seconds_bucket{le="0.05",kind="major"} 1',
  ].join('\n');

test('GC pauses are read per kind from the histogram, and a phase is the difference of two readings', () => {
  const before = parseGcPauses(sample({ count: 10, sum: 0.1, le20: 8, le50: 10 }));
  assert.deepEqual(before.minor, { count: 10, sumMs: 100, over20: 2, over50: 0 });
  assert.deepEqual(before.major, { count: 2, sumMs: 90, over20: 2, over50: 1 });
  const after = parseGcPauses(sample({ count: 25, sum: 0.75, le20: 12, le50: 21 }));
  const phase = gcPausesBetween(before, after);
  assert.equal(phase.minor!.count, 15);
  assert.ok(Math.abs(phase.minor!.sumMs - 650) < 1e-9);
  assert.equal(phase.minor!.over20, 11);
  assert.equal(phase.minor!.over50, 4);
  assert.deepEqual(phase.major, { count: 0, sumMs: 0, over20: 0, over50: 0 });
  assert.equal(formatGcPauses(phase), 'minor 15 (0.65 s, 11 > 20 ms, 4 > 50 ms)');
  assert.equal(formatGcPauses({}), 'none');
});

