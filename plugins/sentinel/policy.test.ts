import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BlockScoringParams, scoringParams } from './policy.js';

/** A `ctx.params` over a mutable table that counts its reads. */
function paramsOver(values: Map<string, bigint>): { params: { get(key: string): Promise<bigint>; problem(): null }; reads: () => number } {
  let reads = 0;
  return {
    params: {
      get: async (key: string) => {
        reads++;
        const v = values.get(key);
        if (v === undefined) throw new Error(`unknown parameter "${key}"`);
        return v;
      },
      problem: () => null,
    },
    reads: () => reads,
  };
}

const table = (enabled: bigint, reject: bigint, policy: bigint): Map<string, bigint> =>
  new Map([
    ['sentinel_enabled', enabled],
    ['sentinel_reject_threshold', reject],
    ['sentinel_policy_enabled', policy],
  ]);

test('scoringParams reads the switch, the threshold and the policy flag', async () => {
  assert.deepEqual(await scoringParams(paramsOver(table(1n, 85n, 0n))), { enabled: true, reject: 85n, policy: false });
  assert.deepEqual(await scoringParams(paramsOver(table(0n, 40n, 1n))), { enabled: false, reject: 40n, policy: true });
});

test('a block reads the parameters once for all its transfers, and the next block reads them again (a change made in endBlock applies from there)', async () => {
  const values = table(1n, 85n, 0n);
  const ctx = paramsOver(values);
  const memo = new BlockScoringParams();
  const block1 = { height: 5 };
  const first = await memo.of({ ...ctx, block: block1 });
  assert.deepEqual(await memo.of({ ...ctx, block: block1 }), first);
  assert.equal(ctx.reads(), 3);
  // Governance's endBlock of block 5 changed the threshold and switched the policy on.
  values.set('sentinel_reject_threshold', 60n);
  values.set('sentinel_policy_enabled', 1n);
  const block6 = { height: 6 };
  assert.deepEqual(await memo.of({ ...ctx, block: block6 }), { enabled: true, reject: 60n, policy: true });
  assert.equal(ctx.reads(), 6);
  // A block executed again (a new execution of the same height has a BlockInfo of its own) reads afresh too.
  values.set('sentinel_enabled', 0n);
  assert.equal((await memo.of({ ...ctx, block: { height: 6 } })).enabled, false);
});
