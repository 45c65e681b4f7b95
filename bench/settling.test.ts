import { test } from 'node:test';
import assert from 'node:assert/strict';
import { latencyBySlice, settlingWarning } from './settling.js';

/** Transactions submitted every 10 ms from `start` for `seconds`, each confirmed `latency(sentAt)` later. */
function phase(start: number, seconds: number, latency: (sentAt: number) => number): { submitted: Map<string, number>; confirmed: Map<string, number> } {
  const submitted = new Map<string, number>();
  const confirmed = new Map<string, number>();
  for (let t = start, i = 0; t < start + seconds * 1000; t += 10, i++) {
    submitted.set(`tx${i}`, t);
    confirmed.set(`tx${i}`, t + latency(t - start));
  }
  return { submitted, confirmed };
}

test('a phase is split by submission time and each slice gets its median latency', () => {
  // The tenth session's shape: slow for the first seconds, then steady.
  const { submitted, confirmed } = phase(5_000, 20, (t) => (t < 4_000 ? 700 : 350));
  const medians = latencyBySlice(submitted, confirmed, 5_000, 20, 4);
  assert.deepEqual(medians, [700, 350, 350, 350]);
  assert.match(settlingWarning(medians)!, /first quarter ran at p50 700 ms against 350 ms in its last: the devnet was still settling/);
});

test('a steady phase, or one that grows slower (a backlog, not start-up), raises no warning', () => {
  const steady = phase(0, 20, (t) => 340 + (t % 70));
  assert.equal(settlingWarning(latencyBySlice(steady.submitted, steady.confirmed, 0, 20, 4)), null);
  const backlog = phase(0, 20, (t) => 300 + t / 10);
  assert.equal(settlingWarning(latencyBySlice(backlog.submitted, backlog.confirmed, 0, 20, 4)), null);
  // Within the margin: 20 % slower at first is noise on this machine.
  assert.equal(settlingWarning([420, 360, 350, 350]), null);
});

test('unconfirmed transactions are left out, an empty slice is NaN, and late submissions fall in the last slice', () => {
  const submitted = new Map([
    ['a', 100],
    ['b', 200],
    ['c', 9_900],
    ['d', 10_500], // sent after the phase's nominal end (a slow sender): counted in the last slice
  ]);
  const confirmed = new Map([
    ['a', 600],
    ['c', 10_200],
    ['d', 10_800],
  ]);
  assert.deepEqual(latencyBySlice(submitted, confirmed, 0, 10, 4), [500, NaN, NaN, 300]);
  // NaN compares false: no warning from a slice with nothing in it.
  assert.equal(settlingWarning([NaN, 300]), null);
  assert.equal(settlingWarning([500]), null);
  assert.equal(settlingWarning([]), null);
});
