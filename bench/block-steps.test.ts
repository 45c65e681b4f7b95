import { test } from 'node:test';
import assert from 'node:assert/strict';
import { blockStepsIn, formatBlockSteps } from './block-steps.js';

const scrape = (writeSeconds: number, writes: number, level0: number): string => `chain_block_step_seconds_total{step="execute"} 2
chain_block_step_seconds_total{step="write"} ${writeSeconds}
chain_block_step_runs_total{step="execute"} 10
chain_block_step_runs_total{step="write"} ${writes}
chain_store_files{level="0"} ${level0}
chain_store_files{level="1"} 5
`;

test('reads the step totals and the files per level of a scrape', () => {
  const r = blockStepsIn(scrape(1.5, 10, 3));
  assert.deepEqual(r.steps.get('write'), { seconds: 1.5, count: 10 });
  assert.deepEqual(r.files, [3, 5]);
});

test('a phase\'s mean per block is each validator\'s mean over the runs between the scrapes, averaged; a step that did not run is left out', () => {
  const before = [blockStepsIn(scrape(1, 10, 2)), blockStepsIn(scrape(1, 10, 2))];
  // Validator 0: 4 writes took 0.4 s (100 ms each); validator 1: 2 writes took 0.6 s (300 ms each).
  const after = [blockStepsIn(scrape(1.4, 14, 9)), blockStepsIn(scrape(1.6, 12, 4))];
  assert.equal(formatBlockSteps(before, after), 'block steps, mean ms per block over the validators: write 200.0; LevelDB level-0 files at the end: 9, 4 (writes slow at 8, stop at 12)');
  assert.match(formatBlockSteps(before, before), /none ran in the phase/);
});

test('with two stores, each level counts the store with the most files there (each stalls its own writes)', () => {
  const r = blockStepsIn(`chain_store_files{store="chain",level="0"} 2
chain_store_files{store="chain",level="1"} 7
chain_store_files{store="tree",level="0"} 6
chain_store_files{store="tree",level="1"} 1
`);
  assert.deepEqual(r.files, [6, 7]);
});
