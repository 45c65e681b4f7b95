import { test } from 'node:test';
import assert from 'node:assert/strict';
import { breakdownOf, formatBreakdown } from './memory-breakdown.js';

test('a validator memory breakdown splits the anonymous pages into V8 heap, external and native', () => {
  const rollup = ['00400000-7ffd0000 ---p 00000000 00:00 0 [rollup]', 'Rss:              716800 kB', 'Pss:              700000 kB', 'Anonymous:        665600 kB'].join('\n');
  const status = 'Name:\tnode\nThreads:\t23\nVmHWM:\t  800000 kB\n';
  const metrics = ['# HELP nodejs_heap_size_total_bytes x', 'nodejs_heap_size_total_bytes 209715200', 'nodejs_heap_size_used_bytes 157286400', 'nodejs_external_memory_bytes 41943040'].join('\n');
  const b = breakdownOf(rollup, status, metrics);
  assert.deepEqual(b, { rss: 700, heapUsed: 150, heapTotal: 200, external: 40, native: 650 - 200 - 40, fileBacked: 50, threads: 23 });
  assert.equal(formatBreakdown(b), 'RSS 700 = V8 heap 200 (used 150) + external 40 + native 410 + file-backed 50; 23 threads');
  assert.equal(breakdownOf(rollup, status, 'nodejs_heap_size_used_bytes 1'), null, 'a missing gauge gives no breakdown');
  assert.equal(formatBreakdown(null), 'n/a');
});
