import { describe } from 'node:test';
import { defineScenario, type SimResult } from './harness.js';
import { BEACON, PAYLOAD_PARAM, type SimAction } from './sim-app-state.js';

/**
 * Governance outcomes mid-run in the deterministic simulation: a parameter change (which every
 * later block's validity depends on), an out-of-range change (refused by the kernel's range
 * check, the old value kept), and a state plugin activated then retired at agreed heights (the
 * kernel's schedule rule). SAFETY now also covers the application: one state root per height on
 * every correct node. Run under message loss, and with a Byzantine equivocator.
 */
const FILE = 'governance.test.js';
const LOSSY = { minDelayMs: 5, maxDelayMs: 80, dropPerMille: 100, duplicatePerMille: 50 };
const CHANGE_AT = 30;
const ACTIVATE_AT = 55;
const RETIRE_AT = 80;
const GOVERNANCE: Readonly<Record<number, readonly SimAction[]>> = {
  [CHANGE_AT]: [{ kind: 'param', key: PAYLOAD_PARAM, value: '48' }],
  [CHANGE_AT + 5]: [{ kind: 'param', key: PAYLOAD_PARAM, value: '9999' }],
  [ACTIVATE_AT - 10]: [{ kind: 'plugin', name: BEACON, change: 'activate', height: ACTIVATE_AT }],
  [RETIRE_AT - 10]: [{ kind: 'plugin', name: BEACON, change: 'retire', height: RETIRE_AT }],
};

function governanceChecks(r: SimResult): string[] {
  const problems: string[] = [];
  for (const n of r.correct) {
    for (const [h, d] of n.decisions) {
      const want = h <= CHANGE_AT ? 32 : 48;
      if (d.block.payload.length !== want) problems.push(`${n.address} decided a ${d.block.payload.length}-char payload at height ${h}; ${PAYLOAD_PARAM} was ${want} there`);
    }
    if (n.app.payloadChars() !== 48) problems.push(`${n.address} ends with ${PAYLOAD_PARAM} ${n.app.payloadChars()}, not 48: the out-of-range change must be refused`);
    if (!n.app.refused.some((x) => x.startsWith(`${CHANGE_AT + 5}: `) && x.includes('must be between 16 and 64'))) problems.push(`${n.address} did not refuse the out-of-range change at ${CHANGE_AT + 5}: ${JSON.stringify(n.app.refused)}`);
    if (n.app.beaconFirst !== ACTIVATE_AT) problems.push(`${n.address} ran ${BEACON} first at ${n.app.beaconFirst}, not ${ACTIVATE_AT}`);
  }
  return problems;
}

describe('simulation: governance outcomes mid-run', () => {
  defineScenario({
    file: FILE,
    name: '4 validators, 10% loss: a parameter change, a refused one, a plugin activated and retired',
    seeds: [1101, 1102],
    livenessBoundMs: 30_000 + 100 * 1_000,
    config: { validators: 4, targetHeight: 100, links: LOSSY, governance: GOVERNANCE },
    extraChecks: governanceChecks,
  });

  defineScenario({
    file: FILE,
    name: '7 validators with an equivocator: the same changes, no safety violation',
    seeds: [1201],
    livenessBoundMs: 30_000 + 100 * 2_000,
    config: { validators: 7, targetHeight: 100, links: LOSSY, behaviours: { 6: 'equivocate' }, governance: GOVERNANCE },
    extraChecks: governanceChecks,
  });
});
