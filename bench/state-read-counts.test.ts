import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatStateReads, stateReadsBetween, stateReadsIn } from './state-read-counts.js';

const METRICS = `# HELP chain_state_reads_total committed state keys read from LevelDB
# TYPE chain_state_reads_total gauge
chain_state_reads_total{via="prefetch",family="acct"} 400
chain_state_reads_total{via="single",family="sponsor"} 100
chain_height 12
`;

test('reads the labelled series of chain_state_reads_total and nothing else', () => {
  assert.deepEqual(stateReadsIn(METRICS), [
    { via: 'prefetch', family: 'acct', reads: 400 },
    { via: 'single', family: 'sponsor', reads: 100 },
  ]);
  assert.deepEqual(stateReadsIn('chain_height 3\n'), []);
});

test('divides by the transactions on chain and the validators, largest family first', () => {
  const two = [stateReadsIn(METRICS), stateReadsIn(METRICS)];
  assert.match(formatStateReads(two, 100), /: prefetch 4\.00, single 1\.00; by family: prefetch acct 4\.00, single sponsor 1\.00$/);
  assert.match(formatStateReads(two, 0), /no transaction on chain to divide by/);
});

test('a phase counts what was read between its two scrapes', () => {
  const before = stateReadsIn(METRICS);
  const after = stateReadsIn(METRICS.replace('} 400', '} 700').replace('chain_height', 'chain_state_reads_total{via="single",family="acct"} 5\nchain_height'));
  assert.deepEqual(stateReadsBetween(before, after), [
    { via: 'prefetch', family: 'acct', reads: 300 },
    { via: 'single', family: 'acct', reads: 5 },
  ]);
});
