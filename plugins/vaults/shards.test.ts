import { test } from 'node:test';
import assert from 'node:assert/strict';
import { shardOf, shardView, type ReadContext } from '../../kernel/sdk.js';
import { vaultOr404 } from './proposals.js';

test('a proposal naming a vault another shard owns is 400 naming that shard, not 404 (decisions.md §73)', async () => {
  assert.equal(shardOf('chain:treasury.vault', 2), 1);
  const ctx = { shard: shardView(0, 2) } as unknown as ReadContext;
  const r = await vaultOr404(ctx, 'chain:treasury.vault');
  assert.ok(r instanceof Error && 'status' in r);
  assert.equal((r as { status: number }).status, 400);
  assert.equal((r as { extra?: Record<string, unknown> }).extra?.shard, 1);
  assert.match((r as Error).message, /chain:treasury\.vault belongs to shard 1; this node serves shard 0/);
});
