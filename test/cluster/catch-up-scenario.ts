import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { FaultRun } from './fault-run.js';
import { ValidatorHosts } from './validator-hosts.js';

/**
 * The pace of these runs: blocks as fast as four validators on two cores decide them, so that a
 * gap of thousands of blocks opens in minutes (the other fault runs use 100/400 ms).
 */
const FAST_PACE = { CHAIN_BLOCK_MS: '20', CHAIN_EMPTY_BLOCK_MS: '20' };
/** The follower's host: past the four validators. */
const FOLLOWER = 4;

/**
 * Two ways a node joins a chain that does not wait for it, each while clients write through the
 * validators: a validator stopped until the others are `gap` blocks ahead, restarted on its data
 * (it replays the gap from its peers' decided blocks), and a fresh full node started from a
 * validator's signed state snapshot while the others keep committing. Both must reach the head
 * and stay in step, with the same block and state root at every height; then every check of the
 * history runs, the supply included. Times and heights are printed as diagnostics.
 */
export function catchUpScenarios(name: string, gap: number): void {
  const skip = ValidatorHosts.unavailable();
  describe(`a node ${gap} blocks behind and a node from a snapshot reach the head under load`, { skip: skip ? `skipped: ${skip}` : false }, () => {
    let run: FaultRun;
    let v: ValidatorHosts;

    before(async () => {
      run = await FaultRun.start(name, () => ({}), { env: FAST_PACE, followers: 1 });
      v = run.v;
    });
    after(async () => run?.destroy());

    test(`a validator stopped while the others commit ${gap} blocks under load restarts, replays them from its peers and keeps up`, async (t) => {
      await v.stop(3);
      const from = await v.maxHeight([0, 1, 2]);
      const stopped = Date.now();
      await v.waitHeight([0, 1, 2], from + gap, 30_000 + gap * 300);
      const ahead = await v.maxHeight([0, 1, 2]);
      const producedMs = Date.now() - stopped;
      const restarted = Date.now();
      await v.start(3);
      await v.waitHeight([3], ahead, 30_000 + gap * 100);
      const reachedMs = Date.now() - restarted;
      // Caught up means in step: at the head the others have reached meanwhile, and past it.
      const head = await v.maxHeight([0, 1, 2]);
      await v.waitHeight([3], head + 2, 60_000);
      const inStepMs = Date.now() - restarted;
      t.diagnostic(`${run.replay}: validator 3 stopped at height ${from}; the other three reached ${ahead} in ${producedMs} ms under load (${((ahead - from) * 1000 / producedMs).toFixed(1)} blocks/s); restarted, it replayed ${ahead - from} blocks to ${ahead} in ${reachedMs} ms (${((ahead - from) * 1000 / reachedMs).toFixed(1)} blocks/s) and was in step at ${head + 2} after ${inStepMs} ms`);
    });

    test('a node started from a signed state snapshot while the others commit reaches the head and keeps up', async (t) => {
      const started = Date.now();
      await v.start(FOLLOWER, {}, ['--snapshot-from', v.nodes[1]!.url]);
      const line = v.nodes[FOLLOWER]!.logs.find((l) => l.includes('started from a signed state snapshot'));
      assert.ok(line, `the follower says it started from the snapshot:\n${v.nodes[FOLLOWER]!.logs.slice(-10).join('\n')}`);
      const snapshotHeight = Number(/"height":(\d+)/.exec(line)?.[1] ?? NaN);
      const head = await v.maxHeight([0, 1, 2, 3]);
      await v.waitHeight([FOLLOWER], head + 2, 120_000);
      t.diagnostic(`${run.replay}: the follower started from validator 1's snapshot of height ${snapshotHeight} and was in step with the head (${head} when it listened) ${Date.now() - started} ms after its start`);
      const below = await fetch(`${v.nodes[FOLLOWER]!.url}/api/v1/blocks/1`);
      assert.equal(below.status, 404, 'it holds no block below its snapshot: it did not replay from genesis');
    });

    test('after both: no confirmed transfer lost or doubled, balances and supply explained, reads linearizable per replica, one chain on all five', async (t) => {
      await run.verify((line) => t.diagnostic(line));
    });
  });
}
