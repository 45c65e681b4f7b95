import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MIN_SCALE_RATIO, scaleRatios, sizeOrder, type SizedRun } from './scale-ratio.js';
import { sustainedRate, type RateResult } from './targets.js';

const result = (committedTps: number, flatOut = true): RateResult => ({ offered: 500, flatOut, committedTps, p50Ms: 300, p99Ms: 600, blockIntervalMs: 400, eventLoopP99Ms: 20, peakRssMiB: 500 });
const run = (provider: string, genesisAccounts: number, ...tps: number[]): SizedRun => ({ provider, genesisAccounts, results: tps.map((t) => result(t)) });

test('the sizes alternate so neither always runs first', () => {
  assert.deepEqual(sizeOrder([1_000_000, 1000], 1), [1_000_000, 1000]);
  assert.deepEqual(sizeOrder([1_000_000, 1000], 2), [1_000_000, 1000, 1000, 1_000_000]);
  assert.deepEqual(sizeOrder([1_000_000, 1000], 3), [1_000_000, 1000, 1000, 1_000_000, 1_000_000, 1000]);
  assert.throws(() => sizeOrder([1000], 0), /positive integer/);
});

test("a run's committed rate is its highest over the phases, as the bench's other verdicts read it", () => {
  assert.equal(sustainedRate([result(140, false), result(420)]), 420);
  assert.equal(sustainedRate([result(450, false), result(420)]), 450);
  assert.equal(sustainedRate([]), null);
});

test('the ratio is the large size over the small, judged by the medians, with each alternated pair shown', () => {
  // Run order 10^6, 10^3, 10^3, 10^6, 10^6, 10^3 (sizeOrder with 3 repeats).
  const runs = [run('pqclean', 1_000_000, 240), run('pqclean', 1000, 400), run('pqclean', 1000, 300), run('pqclean', 1_000_000, 250), run('pqclean', 1_000_000, 200), run('pqclean', 1000, 330)];
  const [line] = scaleRatios(runs);
  assert.ok(line);
  assert.equal(line.target, `pqclean: committed TPS at 1000000 genesis accounts ≥ ${MIN_SCALE_RATIO} × at 1000`);
  // Medians 240 and 330: 0.727; pairs 240/400, 250/300, 200/330.
  assert.match(line.measured, /^240\.0 \/ 330\.0 tx\/s = 0\.727 by the medians/);
  assert.match(line.measured, /alternated pairs 0\.600, 0\.833, 0\.606\)$/);
  assert.equal(line.met, false);
});

test('an even count of runs takes the mean of the middle two; the bound is inclusive and shown to three decimals', () => {
  // --repeat 2: medians (95 + 97) / 2 = 96 and (106 + 108) / 2 = 107, 0.897: NOT, though it rounds to 0.90.
  const [below] = scaleRatios([run('noble', 1_000_000, 97), run('noble', 1000, 106), run('noble', 1000, 108), run('noble', 1_000_000, 95)]);
  assert.match(below!.measured, /^96\.0 \/ 107\.0 tx\/s = 0\.897 by the medians/);
  assert.equal(below!.met, false);
  const [at] = scaleRatios([run('noble', 1_000_000, 90), run('noble', 1000, 100)]);
  assert.match(at!.measured, /= 0\.900 by the medians/);
  assert.equal(at!.met, true);
});

test('a run without a rate keeps its place: later pairs stay paired with their own round', () => {
  const runs = [run('p', 1_000_000), run('p', 1000, 100), run('p', 1000, 200), run('p', 1_000_000, 100)];
  const [line] = scaleRatios(runs);
  assert.match(line!.measured, /\(1000000: n\/a, 100\.0; 1000: 100\.0, 200\.0; alternated pairs n\/a, 0\.500\)/);
});

test('one line per provider that ran two sizes; no verdict without a rate or when a run was not loaded to capacity', () => {
  const lines = scaleRatios([run('noble', 1_000_000, 90), run('noble', 1000, 100), run('pqclean', 1000, 300), run('none', 1_000_000), run('none', 1000, 0)]);
  assert.deepEqual(
    lines.map((l) => [l.target.split(':')[0], l.met]),
    [
      ['noble', true],
      ['none', null],
    ],
  );
  assert.match(lines[1]!.measured, /no committed rate at 1000 accounts/);
  // Fixed rates alone: both sizes commit what they are offered, which says nothing about capacity.
  const fixed = (n: number, tps: number): SizedRun => ({ provider: 'f', genesisAccounts: n, results: [{ ...result(tps, false), offered: tps }] });
  const [unloaded] = scaleRatios([fixed(1_000_000, 80), fixed(1000, 80)]);
  assert.equal(unloaded!.met, null);
  assert.match(unloaded!.measured, /2 run\(s\) not loaded to capacity/);
});
