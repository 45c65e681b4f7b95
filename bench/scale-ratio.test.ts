import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadedRate, MIN_SCALE_RATIO, scaleRatios, sizeOrder, type SizedRun } from './scale-ratio.js';
import type { RateResult } from './targets.js';

const result = (committedTps: number, flatOut = true): RateResult => ({ offered: 500, flatOut, committedTps, p50Ms: 300, p99Ms: 600, blockIntervalMs: 400, eventLoopP99Ms: 20, peakRssMiB: 500 });
const run = (provider: string, genesisAccounts: number, ...tps: number[]): SizedRun => ({ provider, genesisAccounts, results: tps.map((t) => result(t)) });

test('the sizes alternate so neither always runs first', () => {
  assert.deepEqual(sizeOrder([1_000_000, 1000], 1), [1_000_000, 1000]);
  assert.deepEqual(sizeOrder([1_000_000, 1000], 2), [1_000_000, 1000, 1000, 1_000_000]);
  assert.deepEqual(sizeOrder([1_000_000, 1000], 3), [1_000_000, 1000, 1000, 1_000_000, 1_000_000, 1000]);
  assert.throws(() => sizeOrder([1000], 0), /positive integer/);
});

test("a run's loaded rate is its flat-out rate, else its highest fixed rate", () => {
  assert.equal(loadedRate([result(140, false), result(420)]), 420);
  assert.equal(loadedRate([result(40, false), result(70, false)]), 70);
  assert.equal(loadedRate([]), null);
});

test('the ratio is the large size over the small, judged by the medians, with each alternated pair shown', () => {
  // Run order 10^6, 10^3, 10^3, 10^6, 10^6, 10^3 (sizeOrder with 3 repeats).
  const runs = [run('pqclean', 1_000_000, 240), run('pqclean', 1000, 400), run('pqclean', 1000, 300), run('pqclean', 1_000_000, 250), run('pqclean', 1_000_000, 200), run('pqclean', 1000, 330)];
  const [line] = scaleRatios(runs);
  assert.ok(line);
  assert.equal(line.target, `pqclean: committed TPS at 1000000 genesis accounts ≥ ${MIN_SCALE_RATIO} × at 1000`);
  // Medians 240 and 330: 0.73; pairs 240/400, 250/300, 200/330.
  assert.match(line.measured, /^240\.0 \/ 330\.0 tx\/s = 0\.73 by the medians/);
  assert.match(line.measured, /alternated pairs 0\.60, 0\.83, 0\.61\)$/);
  assert.equal(line.met, false);
});

test('one line per provider that ran two sizes; met at 0.9 and above; no verdict without a rate', () => {
  const lines = scaleRatios([run('noble', 1_000_000, 90), run('noble', 1000, 100), run('pqclean', 1000, 300), run('none', 1_000_000), run('none', 1000, 0)]);
  assert.deepEqual(
    lines.map((l) => [l.target.split(':')[0], l.met]),
    [
      ['noble', true],
      ['none', null],
    ],
  );
  assert.match(lines[0]!.measured, /= 0\.90 by the medians/);
  assert.match(lines[1]!.measured, /no committed rate at 1000 accounts/);
});
