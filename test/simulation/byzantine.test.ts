import { describe } from 'node:test';
import { defineScenario, type SimResult } from './harness.js';

/**
 * Up to f Byzantine validators (power strictly below 1/3), on a lossy network:
 *  - equivocate: different, validly signed votes and proposals to different peers;
 *  - silent: never send anything;
 *  - invalid-proposer: propose blocks the application rejects.
 * Safety and validity must hold among the correct nodes, liveness must too (the correct power is
 * above 2/3), and every equivocator must be caught with verifiable evidence (the harness already
 * fails a run in which evidence names a correct validator or does not verify).
 */
const FILE = 'byzantine.test.js';
const LOSSY = { minDelayMs: 5, maxDelayMs: 80, dropPerMille: 100, duplicatePerMille: 50 };
/**
 * Faulty proposers cost whole rounds (timeouts of 1-2 s and growing), and with f of 3f+1 faulty
 * every quorum needs every correct node, so a lost message waits for a retransmission: the bound
 * allows 5 s of virtual time per height (observed means are 1-3 s).
 */
const bound = (heights: number): number => 30_000 + heights * 5_000;

function everyEquivocatorCaught(r: SimResult): string[] {
  const accused = new Set(r.correct.flatMap((n) => n.evidence.map((e) => e.voteA.vote.validator)));
  return r.nodes.filter((n) => n.behaviour === 'equivocate' && !accused.has(n.address)).map((n) => `no evidence against equivocator ${n.address}`);
}

describe('simulation: Byzantine validators', () => {
  defineScenario({
    file: FILE,
    name: '4 validators, 1 equivocating',
    seeds: [1101, 1102, 1103],
    livenessBoundMs: bound(120),
    config: { validators: 4, targetHeight: 120, links: LOSSY, behaviours: { 1: 'equivocate' } },
    extraChecks: everyEquivocatorCaught,
  });

  defineScenario({
    file: FILE,
    name: '7 validators, 2 equivocating',
    seeds: [1201, 1202],
    livenessBoundMs: bound(80),
    config: { validators: 7, targetHeight: 80, links: LOSSY, behaviours: { 2: 'equivocate', 5: 'equivocate' } },
    extraChecks: everyEquivocatorCaught,
  });

  defineScenario({
    file: FILE,
    name: '4 validators, 1 silent',
    seeds: [1301, 1302],
    livenessBoundMs: bound(100),
    config: { validators: 4, targetHeight: 100, links: LOSSY, behaviours: { 0: 'silent' } },
  });

  defineScenario({
    file: FILE,
    name: '7 validators, 2 silent',
    seeds: [1401],
    livenessBoundMs: bound(80),
    config: { validators: 7, targetHeight: 80, links: LOSSY, behaviours: { 3: 'silent', 6: 'silent' } },
  });

  defineScenario({
    file: FILE,
    name: '4 validators, 1 proposing invalid blocks',
    seeds: [1501, 1502],
    livenessBoundMs: bound(100),
    config: { validators: 4, targetHeight: 100, links: LOSSY, behaviours: { 3: 'invalid-proposer' } },
  });

  defineScenario({
    file: FILE,
    name: '7 validators, 2 proposing invalid blocks',
    seeds: [1601],
    livenessBoundMs: bound(80),
    config: { validators: 7, targetHeight: 80, links: LOSSY, behaviours: { 0: 'invalid-proposer', 4: 'invalid-proposer' } },
  });

  defineScenario({
    file: FILE,
    name: '7 validators, 1 equivocating and 1 silent, with a 3|4 partition healing at 15 s',
    seeds: [1701, 1702],
    livenessBoundMs: bound(80),
    config: {
      validators: 7,
      targetHeight: 80,
      links: LOSSY,
      behaviours: { 1: 'equivocate', 5: 'silent' },
      partitions: [{ groups: [[0, 1, 2], [3, 4, 5, 6]], fromMs: 3_000, untilMs: 15_000 }],
    },
    extraChecks: everyEquivocatorCaught,
  });

  defineScenario({
    file: FILE,
    name: '4 validators, 1 equivocating, random splits and isolations every 1.5 s for 40 s',
    seeds: [1901],
    livenessBoundMs: bound(60),
    config: {
      validators: 4,
      targetHeight: 60,
      links: LOSSY,
      behaviours: { 2: 'equivocate' },
      flapping: { everyMs: 1_500, holdMs: 1_000, untilMs: 40_000 },
    },
    extraChecks: everyEquivocatorCaught,
  });

  defineScenario({
    file: FILE,
    name: '7 validators, unequal stakes, the largest (just under 1/3 of the power) equivocating',
    seeds: [1801, 1802],
    livenessBoundMs: bound(80),
    config: {
      validators: 7,
      // 29 of 89: 3 x 29 = 87 < 89, so the equivocator holds less than 1/3.
      stakes: [10_000_000n, 10_000_000n, 10_000_000n, 29_000_000n, 10_000_000n, 10_000_000n, 10_000_000n],
      targetHeight: 80,
      links: LOSSY,
      behaviours: { 3: 'equivocate' },
    },
    extraChecks: everyEquivocatorCaught,
  });
});
