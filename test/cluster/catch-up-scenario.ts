import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { FaultRun } from './fault-run.js';
import { ValidatorHosts } from './validator-hosts.js';

/**
 * The pace of these runs: blocks as fast as four validators on two cores decide them, so that a
 * gap of thousands of blocks opens in minutes (the other fault runs use 100/400 ms).
 */
const FAST_PACE = { CHAIN_BLOCK_MS: '20', CHAIN_EMPTY_BLOCK_MS: '20' };
/** The followers' hosts, past the four validators: one that falls behind, one that starts from a snapshot. */
const BEHIND = 4;
const FROM_SNAPSHOT = 5;

/**
 * Two ways a node joins a chain that does not wait for it, each while clients write through the
 * four validators: a full node stopped until the chain is `gap` blocks ahead, restarted on its
 * data (it replays the gap from its peers' decided blocks), and a fresh full node started from a
 * validator's signed state snapshot while the others keep committing. The node that falls behind
 * is not a validator: with a validator down, every height it should propose waits out the propose
 * timeout (CHAIN_EMPTY_BLOCK_MS + 1.5 s), so the gap would open at under a block a second (a run:
 * heights 6 → 110 in 120 s); a validator that comes back is `partitions.test.ts`'s paused one. Both must reach the head
 * and stay in step, with the same block and state root at every height; then every check of the
 * history runs, the supply included. Times and heights are printed as diagnostics.
 */
export function catchUpScenarios(name: string, gap: number): void {
  const skip = ValidatorHosts.unavailable();
  describe(`a node ${gap} blocks behind and a node from a snapshot reach the head under load`, { skip: skip ? `skipped: ${skip}` : false }, () => {
    let run: FaultRun;
    let v: ValidatorHosts;

    before(async () => {
      run = await FaultRun.start(name, () => ({}), { env: FAST_PACE, followers: 2 });
      v = run.v;
      await v.start(BEHIND);
      await v.waitHeight([BEHIND], await v.maxHeight([0, 1, 2, 3]), 60_000);
    });
    after(async () => run?.destroy());

    test(`a node stopped while the validators commit ${gap} blocks under load restarts, replays them from its peers and keeps up`, async (t) => {
      await v.stop(BEHIND);
      const from = await v.height(0);
      const stopped = Date.now();
      await v.waitHeight([0, 1, 2, 3], from + gap, 30_000 + gap * 600);
      const ahead = await v.maxHeight([0, 1, 2, 3]);
      const producedMs = Date.now() - stopped;
      const restarted = Date.now();
      await v.start(BEHIND);
      await v.waitHeight([BEHIND], ahead, 30_000 + gap * 400);
      const reachedMs = Date.now() - restarted;
      // Caught up means in step: at the head the validators have reached meanwhile, and past it.
      const head = await v.maxHeight([0, 1, 2, 3]);
      await v.waitHeight([BEHIND], head + 2, 60_000);
      const inStepMs = Date.now() - restarted;
      t.diagnostic(`${run.replay}: the node stopped at height ${from}; the validators reached ${ahead} in ${producedMs} ms under load (${((ahead - from) * 1000 / producedMs).toFixed(1)} blocks/s); restarted, it replayed ${ahead - from} blocks to ${ahead} in ${reachedMs} ms (${((ahead - from) * 1000 / reachedMs).toFixed(1)} blocks/s) and was in step at ${head + 2} after ${inStepMs} ms`);
    });

    test('a node started from a signed state snapshot while the others commit reaches the head and keeps up', async (t) => {
      const started = Date.now();
      await v.start(FROM_SNAPSHOT, {}, ['--snapshot-from', v.nodes[1]!.url]);
      const line = v.nodes[FROM_SNAPSHOT]!.logs.find((l) => l.includes('started from a signed state snapshot'));
      assert.ok(line, `the follower says it started from the snapshot:\n${v.nodes[FROM_SNAPSHOT]!.logs.slice(-10).join('\n')}`);
      const snapshotHeight = Number(/"height":(\d+)/.exec(line)?.[1] ?? NaN);
      const head = await v.maxHeight([0, 1, 2, 3]);
      await v.waitHeight([FROM_SNAPSHOT], head + 2, 120_000);
      t.diagnostic(`${run.replay}: the follower started from validator 1's snapshot of height ${snapshotHeight} and was in step with the head (${head} when it listened) ${Date.now() - started} ms after its start`);
      const below = await fetch(`${v.nodes[FROM_SNAPSHOT]!.url}/api/v1/blocks/1`);
      assert.equal(below.status, 404, 'it holds no block below its snapshot: it did not replay from genesis');
    });

    test('after both: no confirmed transfer lost or doubled, balances and supply explained, reads linearizable per replica, one chain on all six', async (t) => {
      await run.verify((line) => t.diagnostic(line));
    });
  });
}
