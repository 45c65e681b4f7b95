import { test } from 'node:test';
import assert from 'node:assert/strict';
import { getJson, postJson, startNodeProcess, until } from '../helpers/node-process.js';
import { makeChainDir } from '../helpers/node-process.js';
import { wallet } from '../helpers/chain-fixture.js';
import { mulberry32, testSeed } from '../helpers/prng.js';

/**
 * kill -9 the node at seeded random instants while it commits blocks full of faucet credits,
 * then restart it: every time, the store must open at a height whose block, state root and
 * parent links all agree, and the chain must go on from there.
 */
test('a node killed at any instant restarts at a consistent height, never a partial block', async () => {
  const seed = testSeed('crash-loop');
  const rand = mulberry32(seed);
  const { dir } = makeChainDir();
  const env = { CHAIN_BLOCK_MS: '5', CHAIN_EMPTY_BLOCK_MS: '15', CHAIN_HTTP_BACKEND: 'node', CHAIN_RPC_RATE_LIMIT: '0' };
  let lastHeight = 0;
  const rounds = 8;
  for (let round = 0; round < rounds; round++) {
    const node = await startNodeProcess({ dir, env });
    const health = await getJson(`${node.url}/health`);
    const height = health.body.height as number;
    assert.ok(height >= lastHeight, `seed ${seed} round ${round}: height went back from ${lastHeight} to ${height} (replay with TEST_SEED=${seed})`);
    if (height > 0) {
      // The node keeps producing blocks: the root is read first, with the height it belongs to.
      const root = await getJson(`${node.url}/api/v1/state/root`);
      const rootBlock = await getJson(`${node.url}/api/v1/blocks/${root.body.height}`);
      assert.equal(rootBlock.body.state_root, root.body.global_root, `seed ${seed}: head block and state root agree`);
      const head = await getJson(`${node.url}/api/v1/blocks/${height}`);
      let child = head.body;
      for (let h = height; h >= Math.max(1, height - 30); h--) {
        const b = h === height ? head : await getJson(`${node.url}/api/v1/blocks/${h}`);
        assert.equal(b.status, 200, `block ${h} exists below head ${height}`);
        if (h < height) {
          assert.equal(child.parent_hash, b.body.hash, `block ${h + 1} links to ${h}`);
          assert.equal(child.prev_state_root, b.body.state_root);
        }
        // Every transaction of a committed block reads back, text included (it lives in the
        // text log, written before the block's batch).
        const txs = await getJson(`${node.url}/api/v1/blocks/${h}/transactions`);
        assert.equal(txs.status, 200, `seed ${seed}: transactions of block ${h}: ${JSON.stringify(txs.body)}`);
        assert.equal(txs.body.count, b.body.tx_count, `seed ${seed}: block ${h} lists ${b.body.tx_count} transactions, ${txs.body.count} read back`);
        // Its events were in the same batch: one per faucet credit it applied, never missing.
        const credits = (txs.body.transactions as Array<{ type: string; status: string }>).filter((t) => t.type === 'faucet' && t.status === 'confirmed').length;
        const events = await getJson(`${node.url}/api/v1/blocks/${h}/events`);
        const faucetEvents = (events.body.events as Array<{ type: string }>).filter((e) => e.type === 'faucet').length;
        assert.equal(faucetEvents, credits, `seed ${seed}: block ${h} applied ${credits} faucet credits and holds ${faucetEvents} faucet events`);
        child = b.body;
      }
    }
    // Keep the node writing: a stream of faucet credits, then kill it mid-flight.
    const writers = Array.from({ length: 6 }, (_, i) => {
      const w = wallet(100 + ((round * 6 + i) % 100));
      return postJson(`${node.url}/api/v1/faucet`, { address: w.address, public_key: w.publicKeyHex, amount: 1 + round }).catch(() => undefined);
    });
    await until('the chain to advance', async () => (((await getJson(`${node.url}/health`)).body.height as number) > height ? true : undefined));
    await new Promise((r) => setTimeout(r, Math.floor(rand() * 120)));
    await node.kill();
    await Promise.all(writers);
    lastHeight = height;
  }
  const final = await startNodeProcess({ dir, env });
  try {
    const h = (await getJson(`${final.url}/health`)).body.height as number;
    await until('blocks after the last restart', async () => (((await getJson(`${final.url}/health`)).body.height as number) > h ? true : undefined));
  } finally {
    await final.stop();
  }
});
