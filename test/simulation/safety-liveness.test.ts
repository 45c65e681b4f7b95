import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { defineScenario, runSimulation, seeds } from './harness.js';

/**
 * Correct validators only, under message loss, delay, duplication, reordering and partitions.
 * SAFETY: no two correct nodes decide different blocks at one height (plus validity, chain
 * linkage and verifiable certificates). LIVENESS: once the network is stable, every correct node
 * reaches the target height within the stated virtual-time bound.
 */
const FILE = 'safety-liveness.test.js';
const LOSSY = { minDelayMs: 5, maxDelayMs: 80, dropPerMille: 100, duplicatePerMille: 50 };
/** Liveness bound after the network is stable: 30 s to re-synchronise, then 1 s per height. */
const bound = (heights: number): number => 30_000 + heights * 1_000;

describe('simulation: correct validators under network faults', () => {
  defineScenario({
    file: FILE,
    name: '4 validators, 10% loss, 5% duplication, 5-80 ms delays',
    seeds: [101, 102, 103],
    livenessBoundMs: bound(250),
    config: { validators: 4, targetHeight: 250, links: LOSSY },
  });

  defineScenario({
    file: FILE,
    name: '7 validators with unequal stakes, 10% loss',
    seeds: [201, 202, 203],
    livenessBoundMs: bound(120),
    config: {
      validators: 7,
      stakes: [5_000_000n, 1_000_000n, 3_000_000n, 1_000_000n, 2_000_000n, 7_000_000n, 1_000_000n],
      targetHeight: 120,
      links: LOSSY,
    },
  });

  defineScenario({
    file: FILE,
    name: '4 validators, heavy reordering: 1-600 ms delays, 20% duplication',
    seeds: [301],
    livenessBoundMs: 150 * 3_000,
    config: { validators: 4, targetHeight: 150, links: { minDelayMs: 1, maxDelayMs: 600, dropPerMille: 50, duplicatePerMille: 200 } },
  });

  defineScenario({
    file: FILE,
    name: '4 validators, one isolated for 20 s, then healed',
    seeds: [401, 402],
    livenessBoundMs: bound(150),
    config: { validators: 4, targetHeight: 150, links: LOSSY, partitions: [{ groups: [[0], [1, 2, 3]], fromMs: 2_000, untilMs: 22_000 }] },
  });

  defineScenario({
    file: FILE,
    name: '7 validators split three ways (no quorum anywhere) for 30 s, then healed',
    seeds: [501, 502],
    livenessBoundMs: bound(80),
    config: {
      validators: 7,
      targetHeight: 80,
      links: LOSSY,
      partitions: [{ groups: [[0, 1], [2, 3, 4], [5, 6]], fromMs: 1_000, untilMs: 31_000 }],
    },
  });

  defineScenario({
    file: FILE,
    name: '7 validators, a 2|5 split, then a 4|3 split, then healed',
    seeds: [601],
    livenessBoundMs: bound(120),
    config: {
      validators: 7,
      targetHeight: 120,
      links: LOSSY,
      partitions: [
        { groups: [[0, 1], [2, 3, 4, 5, 6]], fromMs: 1_000, untilMs: 11_000 },
        { groups: [[0, 1, 2, 3], [4, 5, 6]], fromMs: 11_000, untilMs: 25_000 },
      ],
    },
  });

  defineScenario({
    file: FILE,
    name: '4 validators, 40% loss for 30 s, then 1%',
    seeds: [701, 702],
    livenessBoundMs: bound(120),
    config: {
      validators: 4,
      targetHeight: 120,
      links: { minDelayMs: 5, maxDelayMs: 120, dropPerMille: 400, duplicatePerMille: 50 },
      linksLater: { atMs: 30_000, links: { minDelayMs: 5, maxDelayMs: 60, dropPerMille: 10, duplicatePerMille: 10 } },
    },
  });

  defineScenario({
    file: FILE,
    name: '7 validators, a random split or isolation every 1.5 s for 40 s, then healed',
    seeds: [901, 902],
    livenessBoundMs: bound(80),
    config: { validators: 7, targetHeight: 80, links: LOSSY, flapping: { everyMs: 1_500, holdMs: 1_000, untilMs: 40_000 } },
  });

  test('a seed replays bit for bit', async () => {
    const [seed] = seeds([801]) as [number];
    const cfg = { seed, validators: 4, targetHeight: 40, links: LOSSY, maxVirtualMs: 200_000 };
    const fingerprint = async (): Promise<string> => {
      const r = await runSimulation(cfg);
      const decided = r.correct.map((n) => [...n.decisions.values()].map((d) => `${d.height}:${d.round}:${d.hash}:${d.atMs}`).join(','));
      return JSON.stringify({ decided, events: r.events, stats: r.stats, now: r.virtualMs });
    };
    assert.equal(await fingerprint(), await fingerprint(), `replay: SIM_SEED=${seed} node --test dist/test/simulation/${FILE}`);
  });
});
