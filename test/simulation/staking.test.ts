import { describe } from 'node:test';
import { defineScenario, validatorAddress, type SimResult } from './harness.js';
import type { SimNode } from './sim-node.js';
import { SET_DELAY } from './set-schedule.js';

/**
 * The validator set changing under consensus, as staking changes it: stakes moved, a validator
 * leaving and returning by blocks the chain decides, and double-sign evidence carried in blocks
 * slashing and jailing the equivocator, who returns after its jail with what is left. Each node
 * derives every height's set from the blocks it decided (set-schedule.ts); the harness checks each
 * certificate against that height's set, so a node that derived another set, or a certificate
 * signed by a validator out of the set, is a safety violation.
 */
const FILE = 'staking.test.js';
const LOSSY = { minDelayMs: 5, maxDelayMs: 80, dropPerMille: 100, duplicatePerMille: 50 };
const bound = (heights: number): number => 30_000 + heights * 5_000;

const signers = (n: SimNode, h: number): string[] => n.decisions.get(h)!.certificate.precommits.map((p) => p.vote.validator);

/** Heights a correct node decided (1..last). */
function heights(n: SimNode): number[] {
  return [...n.decisions.keys()].sort((a, b) => a - b);
}

function leaveAndReturn(r: SimResult): string[] {
  const problems: string[] = [];
  const v3 = validatorAddress(3);
  for (const n of r.correct) {
    if (n.schedule.setAt(20 + SET_DELAY).votingPower(validatorAddress(0)) !== 3_000_000n) problems.push(`${n.address}: v00's new stake not in force at ${20 + SET_DELAY}`);
    for (const h of heights(n)) {
      const out = h >= 40 + SET_DELAY && h < 70 + SET_DELAY;
      if (out && n.schedule.setAt(h).has(v3)) problems.push(`${n.address}: v03 in the set of height ${h} after leaving`);
      if (out && signers(n, h).includes(v3)) problems.push(`${n.address}: height ${h} certified by v03 while it was out`);
    }
    if (!heights(n).some((h) => h >= 70 + SET_DELAY && signers(n, h).includes(v3))) problems.push(`${n.address}: v03 never signed again after returning`);
  }
  return problems;
}

function slashedJailedReturned(equivocators: readonly number[], jail: number) {
  return (r: SimResult): string[] => {
    const problems: string[] = [];
    for (const n of r.correct) {
      for (const i of equivocators) {
        const v = validatorAddress(i);
        const slashes = [...n.schedule.applied.values()].filter((a) => a.validator === v);
        if (slashes.length === 0) {
          problems.push(`${n.address}: no block slashed equivocator ${v}`);
          continue;
        }
        const first = slashes[0]!.height;
        for (let h = first + SET_DELAY; h <= Math.min(first + jail, n.height - 1); h++) {
          if (n.schedule.setAt(h).has(v)) problems.push(`${n.address}: ${v} in the set of height ${h}, jailed at ${first}`);
          if (signers(n, h).includes(v)) problems.push(`${n.address}: height ${h} certified by jailed ${v}`);
        }
        const back = first + jail + SET_DELAY;
        if (back < n.height && !n.schedule.setAt(back).has(v) && !slashes.some((s) => s.height > first && s.height <= first + jail)) {
          problems.push(`${n.address}: ${v} not back in the set at ${back}`);
        }
        if (back < n.height && n.schedule.setAt(back).has(v) && n.schedule.setAt(back).votingPower(v) >= n.schedule.setAt(1).votingPower(v)) {
          problems.push(`${n.address}: ${v} returned without losing stake`);
        }
      }
      // Every correct node applied the same offences at the same heights.
      const mine = JSON.stringify([...n.schedule.applied.entries()].filter(([, a]) => a.height < r.correct[0]!.height).map(([id, a]) => [id, a.height, a.amount.toString()]));
      const ref = JSON.stringify([...r.correct[0]!.schedule.applied.entries()].filter(([, a]) => a.height < n.height).map(([id, a]) => [id, a.height, a.amount.toString()]));
      if (mine !== ref) problems.push(`${n.address} applied other offences than ${r.correct[0]!.address}`);
    }
    return problems;
  };
}

describe('simulation: stake changes and slashing mid-run', () => {
  defineScenario({
    file: FILE,
    name: '4 validators, stakes moved at 20, one leaving at 40 and returning at 70, 10% loss',
    seeds: [2101, 2102],
    livenessBoundMs: bound(100),
    config: {
      validators: 4,
      targetHeight: 100,
      links: LOSSY,
      stakeChanges: [
        { atHeight: 20, stakes: { 0: 3_000_000n, 1: 500_000n } },
        { atHeight: 40, stakes: { 3: 0n } },
        { atHeight: 70, stakes: { 3: 1_000_000n } },
      ],
    },
    extraChecks: leaveAndReturn,
  });

  defineScenario({
    file: FILE,
    name: '4 validators, 1 equivocating: slashed by evidence in a block, jailed for 15 heights, back with less stake',
    seeds: [2201, 2202],
    livenessBoundMs: bound(100),
    config: {
      validators: 4,
      targetHeight: 100,
      links: LOSSY,
      behaviours: { 1: 'equivocate' },
      slashing: { fractionBps: 500n, jailHeights: 15, windowHeights: 50 },
    },
    extraChecks: slashedJailedReturned([1], 15),
  });

  defineScenario({
    file: FILE,
    name: '7 validators, unequal stakes, 2 equivocating and slashed while stakes move and one leaves',
    seeds: [2301],
    livenessBoundMs: bound(100),
    config: {
      validators: 7,
      stakes: [5_000_000n, 1_000_000n, 3_000_000n, 1_000_000n, 2_000_000n, 7_000_000n, 1_000_000n],
      targetHeight: 100,
      links: LOSSY,
      behaviours: { 1: 'equivocate', 3: 'equivocate' },
      slashing: { fractionBps: 1_000n, jailHeights: 20, windowHeights: 50 },
      stakeChanges: [
        { atHeight: 30, stakes: { 6: 0n, 4: 4_000_000n } },
        { atHeight: 60, stakes: { 6: 2_000_000n } },
      ],
    },
    extraChecks: slashedJailedReturned([1, 3], 20),
  });
});
