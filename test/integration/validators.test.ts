import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Cluster } from '../helpers/cluster.js';
import { getJson, until } from '../helpers/node-process.js';

type Validator = Record<string, unknown> & { address: string; stake: number; trust_score: number; blocks_proposed: number; votes_cast: number; last_active: number };
type ValidatorList = { validators: Validator[]; height: number; count: number; total_staked: number; trust_window_blocks: number };

/**
 * GET /api/v1/validators on four real validators: the active set with each validator's stake and
 * this node's count of its proposals and precommits, read back after a restart.
 */
describe('validator list with activity figures (4 validators)', () => {
  let c: Cluster;
  before(async () => {
    c = await Cluster.start(4);
  });
  after(async () => c?.stop());

  /** A list read between two commits of the node: its figures describe exactly `height` blocks. */
  const settledList = (i: number): Promise<ValidatorList> =>
    until(`validator list of node ${i}`, async () => {
      const r = await getJson(`${c.nodes[i]!.url}/api/v1/validators`);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      const list = r.body as unknown as ValidatorList;
      return list.validators.reduce((n, v) => n + v.blocks_proposed, 0) === list.height ? list : undefined;
    });

  test('stake, blocks proposed, precommits cast, last activity and trust; the counts survive a restart', async () => {
    await c.waitHeight(1, 8);
    const list = await settledList(1);
    assert.equal(list.count, 4);
    assert.deepEqual(list.validators.map((v) => v.address), [...list.validators.map((v) => v.address)].sort(), 'canonical order');
    for (const v of list.validators) {
      assert.match(v.address, /^chain:.+\.node$/);
      assert.match(v.public_key as string, /^[0-9a-f]{3904}$/);
      assert.ok(Number.isSafeInteger(v.stake) && v.stake > 0, `stake ${v.stake}`);
      assert.equal(v.stake, v.power, 'voting power is self-stake');
      assert.equal(typeof v.stake_human, 'string');
      assert.ok(typeof v.trust_score === 'number' && v.trust_score >= 0 && v.trust_score <= 1, `trust_score ${v.trust_score}`);
      for (const f of ['blocks_proposed', 'votes_cast', 'last_active'] as const) assert.ok(Number.isSafeInteger(v[f]) && v[f] >= 0, `${f} ${v[f]}`);
      assert.ok(v.last_active <= list.height);
    }
    assert.equal(list.total_staked, list.validators.reduce((n, v) => n + v.stake, 0));
    assert.equal(Math.max(...list.validators.map((v) => v.last_active)), list.height, 'the last block\'s proposer was active at it');
    // Every certificate carries precommits of more than 2/3 of the four: at least three.
    assert.ok(list.validators.reduce((n, v) => n + v.votes_cast, 0) >= 3 * list.height);
    assert.equal(list.trust_window_blocks, Math.min(100, list.height));
    const trustSum = list.validators.reduce((n, v) => n + v.trust_score, 0);
    assert.ok(trustSum >= 3 - 0.01, `trust scores sum to ${trustSum}`);

    // Restarted, node 1 keeps what it counted: every block up to its head is still attributed.
    await c.stopNode(1);
    await c.startNode(1);
    const top = await c.height(1);
    const after = await settledList(1);
    assert.ok(after.height >= top);
    assert.ok(after.validators.reduce((n, v) => n + v.votes_cast, 0) >= 3 * after.height, 'precommits counted before the restart are kept');
  });
});
