import { test } from 'node:test';
import assert from 'node:assert/strict';
import { evaluateTargets, formatTargets, nativeOverPureJs, type RateResult } from './targets.js';

const rate = (offered: number, committedTps: number, p50Ms: number, p99Ms: number, blockIntervalMs: number, eventLoopP99Ms: number, peakRssMiB: number | null): RateResult => ({
  offered,
  committedTps,
  p50Ms,
  p99Ms,
  blockIntervalMs,
  eventLoopP99Ms,
  peakRssMiB,
});

// The eighth session's pqclean run (README): 115 / 230 / 260 tx/s offered.
const pqclean = [rate(115, 113.0, 379, 687, 367, 25.8, 274), rate(230, 223.2, 1195, 1952, 788, 87.8, 372), rate(260, 256.0, 934, 2435, 608, 66.2, 401)];

test('a native run: the half rate is the one nearest half the sustained, full load is the highest offered, TPS/C does not apply', () => {
  const lines = evaluateTargets({ provider: 'pqclean', C: 1749.2, blockMs: 200, rates: pqclean });
  assert.deepEqual(
    lines.map((l) => l.met),
    [null, true, true, false, true],
  );
  assert.match(lines[1]!.measured, /p50 379 ms at 115 tx\/s offered \(half of 256\.0 sustained is 128\.0\); bound 3 × 200 \+ 167 \(block interval − CHAIN_BLOCK_MS: the votes and the block's own processing\) = 767 ms/);
  assert.match(lines[2]!.measured, /p99\/p50 1\.81/);
  assert.match(lines[3]!.measured, /66\.2 ms at 260 tx\/s/);
  assert.match(lines[4]!.measured, /401 MiB/);
  // 256.0 of 260 offered: it kept up, so the sustained rate may be higher than the run shows.
  assert.match(lines[0]!.measured, /not saturated: 256\.0 of 260 tx\/s offered/);
});

test('a run whose top rate committed all it was offered says it did not saturate', () => {
  const lines = evaluateTargets({ provider: 'pqclean', C: 1735, blockMs: 200, rates: [rate(60, 59.1, 269, 480, 293, 11.3, 219), rate(120, 115.4, 362, 601, 354, 23.9, 244)] });
  assert.match(lines[0]!.measured, /not saturated: 115\.4 of 120 tx\/s offered/);
  assert.match(lines[3]!.measured, /not saturated/);
});

test('the pure-JS run is held to TPS/C ≥ 0.7 on its best committed rate', () => {
  const noble = [rate(40, 39.3, 645, 1085, 511, 28.5, 204), rate(80, 65.3, 6530, 11345, 2003, 43.3, 303), rate(100, 77.1, 7101, 11094, 1827, 35.1, 336)];
  const lines = evaluateTargets({ provider: 'noble', C: 216.7, blockMs: 200, rates: noble });
  assert.equal(lines[0]!.met, false);
  assert.match(lines[0]!.measured, /77\.1 \/ 216\.7 = 0\.36$/, '77.1 of 100 offered saturated it: no caveat');
  assert.deepEqual(
    lines.slice(1).map((l) => l.met),
    [true, true, true, true],
  );
  const fast = evaluateTargets({ provider: 'noble', C: 100, blockMs: 200, rates: [rate(70, 70, 300, 500, 350, 20, 300)] });
  assert.equal(fast[0]!.met, true, '0.70 is enough');
});

test('a wide tail, a slow p50, and a run without procfs are reported as such', () => {
  const [, p50, p99, , rss] = evaluateTargets({ provider: 'noble', C: 100, blockMs: 200, rates: [rate(30, 30, 900, 1800, 400, 20, null)] });
  assert.equal(p50!.met, false, 'bound is 3 × 200 + 200 = 800 ms');
  assert.equal(p99!.met, true, '1800 ≤ 2 × 900: at the bound is within it');
  assert.equal(rss!.met, null);
  const wide = evaluateTargets({ provider: 'noble', C: 100, blockMs: 200, rates: [rate(30, 30, 400, 801, 400, 20, 100)] });
  assert.equal(wide[2]!.met, false);
  assert.match(formatTargets(wide), /NOT  p99 ≤ 2 × p50/);
  assert.deepEqual(evaluateTargets({ provider: 'noble', C: 1, blockMs: 200, rates: [] }), []);
});

test('native over pure-JS compares the best committed rates of the two kinds of run, and needs both', () => {
  const noble = { provider: 'noble', results: [rate(40, 39.3, 645, 1085, 511, 28.5, 204), rate(100, 77.1, 7101, 11094, 1827, 35.1, 336)] };
  const native = { provider: 'pqclean', results: pqclean };
  const line = nativeOverPureJs([noble, native])!;
  assert.equal(line.met, true);
  assert.match(line.measured, /pqclean 256\.0 \/ noble 77\.1 tx\/s = 3\.32× \(not saturated: pqclean;/, 'the pqclean run kept up with 260 offered');
  const slow = { provider: 'pqclean', results: [rate(260, 200, 900, 1500, 600, 60, 400)] };
  assert.equal(nativeOverPureJs([noble, slow])!.met, false, '200 / 77.1 < 3');
  assert.doesNotMatch(nativeOverPureJs([noble, slow])!.measured, /not saturated/, 'both committed less than offered');
  assert.equal(nativeOverPureJs([native]), null);
  assert.equal(nativeOverPureJs([noble]), null);
});

test('figures the run could not measure give no verdict, and a half rate far from half the sustained is flagged', () => {
  const lines = evaluateTargets({ provider: 'noble', C: 100, blockMs: 200, rates: [rate(30, 30, Number.NaN, Number.NaN, Number.NaN, Number.NaN, 100)] });
  assert.deepEqual(
    lines.map((l) => l.met),
    [false, null, null, null, true],
  );
  // Sustained 200, half 100: 115 is within 20 %, 60 is not.
  const near = evaluateTargets({ provider: 'pqclean', C: 1000, blockMs: 200, rates: [rate(115, 114, 400, 700, 380, 30, 300), rate(260, 200, 2000, 3000, 700, 90, 400)] });
  assert.doesNotMatch(near[1]!.measured, /offer a rate nearer/);
  const far = evaluateTargets({ provider: 'pqclean', C: 1000, blockMs: 200, rates: [rate(60, 60, 300, 500, 300, 20, 300), rate(260, 200, 2000, 3000, 700, 90, 400)] });
  assert.match(far[1]!.measured, /60 is more than 20 % from half the sustained rate/);
});

test('flat out is full load and saturated by definition, and never stands for the half rate beside fixed rates', () => {
  const flat: RateResult = { ...rate(96.4, 74.2, 9000, 14000, 1900, 41.0, 360), flatOut: true };
  const lines = evaluateTargets({ provider: 'noble', C: 149.2, blockMs: 200, rates: [rate(40, 39.3, 734, 1410, 511, 32.5, 300), flat] });
  assert.match(lines[0]!.measured, /74\.2 \/ 149\.2 = 0\.50$/, 'committing less than submitted is not the test for flat out: no caveat');
  assert.match(lines[1]!.measured, /at 40 tx\/s offered \(half of 74\.2 sustained is 37\.1\)/);
  assert.match(lines[3]!.measured, /worst validator 41\.0 ms at flat out \(96\.4 tx\/s submitted\)$/, 'flat out is full load even though 96.4 < a fixed rate could be');
  // Flat out as the run's only rate is also its half rate, and says how far off it is.
  const only = evaluateTargets({ provider: 'noble', C: 149.2, blockMs: 200, rates: [flat] });
  assert.match(only[1]!.measured, /at flat out \(96\.4 tx\/s submitted\) \(half of 74\.2 sustained is 37\.1; 96\.4 is more than 20 % from half/);
  // A flat-out run that commits all it submits still counts as saturated for the ratio.
  const keptUp: RateResult = { ...rate(250, 250, 900, 1500, 600, 90, 420), flatOut: true };
  assert.doesNotMatch(nativeOverPureJs([{ provider: 'noble', results: [flat] }, { provider: 'pqclean', results: [keptUp] }])!.measured, /not saturated/);
  // Beside a higher fixed rate, flat out is still the full-load one.
  const both = evaluateTargets({ provider: 'pqclean', C: 1976, blockMs: 200, rates: [rate(300, 260, 900, 1500, 600, 120, 420), keptUp] });
  assert.match(both[3]!.measured, /90\.0 ms at flat out/);
});

test('flat out that ran out of pre-signed transfers is saturated only if it committed less than it submitted', () => {
  const ranOut: RateResult = { ...rate(300, 299, 900, 1500, 600, 90, 420), flatOut: true, exhausted: true };
  const lines = evaluateTargets({ provider: 'pqclean', C: 1976, blockMs: 200, rates: [rate(130, 129, 450, 800, 400, 30, 300), ranOut] });
  assert.match(lines[3]!.measured, /not saturated: flat out sent its whole pre-signed pool early and committed all of it; raise --max-pool/);
  const behind: RateResult = { ...ranOut, committedTps: 250 };
  assert.doesNotMatch(evaluateTargets({ provider: 'pqclean', C: 1976, blockMs: 200, rates: [behind] })[3]!.measured, /not saturated/);
});

test('a half-rate phase that was still settling says so beside its p50 and p99', () => {
  const settling = 'its first quarter ran at p50 700 ms against 350 ms in its last: the devnet was still settling, so p99 is the start-up\'s; raise --warmup';
  const lines = evaluateTargets({ provider: 'pqclean', C: 1799, blockMs: 200, rates: [{ ...rate(140, 137.4, 450, 1040, 342, 19.6, 314), settling }, { ...rate(400, 335.4, 4100, 6400, 682, 73.8, 454), flatOut: true }] });
  assert.match(lines[1]!.measured, /still settling/);
  assert.match(lines[2]!.measured, /p99\/p50 2\.31 \(its first quarter ran at p50 700 ms/);
  // The verdict is the measured one; the note says why it should not be trusted.
  assert.equal(lines[2]!.met, false);
  assert.doesNotMatch(evaluateTargets({ provider: 'pqclean', C: 1799, blockMs: 200, rates: [rate(140, 137.4, 350, 661, 342, 19.6, 314)] })[2]!.measured, /settling/);
});
