import assert from 'node:assert/strict';
import { postJson, waitConfirmed } from './node-process.js';

/**
 * Submits a signed transfer to another shard's address (decisions.md §74) at `url` (a source
 * node's or the gateway's `POST /api/v1/transactions`): 200 with `dest_shard` and
 * `receiver_balance` null; then waits until every node of the source shard applied it, confirmed.
 * Answers the transaction hash (the lock's id) and the transaction as the last node shows it.
 */
export async function submitCrossShard(url: string, signed: Record<string, unknown>, destShard: number, sourceNodes: readonly string[]): Promise<{ id: string; tx: Record<string, unknown> }> {
  const r = await postJson(url, signed);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  assert.equal(r.body.dest_shard, destShard);
  assert.equal(r.body.receiver_balance, null);
  const id = r.body.tx_hash as string;
  let tx: Record<string, unknown> = {};
  for (const node of sourceNodes) tx = await waitConfirmed(node, id);
  assert.equal(tx.status, 'confirmed', JSON.stringify(tx));
  return { id, tx };
}
