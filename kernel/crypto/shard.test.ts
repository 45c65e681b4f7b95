import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fnv1a32, shardOf } from './fnv.js';
import { sha3Hex0x } from './hash.js';
import { contractAddressOn, foreignReadError, foreignRecordError, foreignSenderError, isShardOwned, ONE_SHARD, shardChainHash, shardView } from './shard.js';

test('decisions.md §71 FNV-1a vectors', () => {
  assert.equal(fnv1a32('chain:307f4559431e680.human'), 2872869241);
  assert.equal(shardOf('chain:307f4559431e680.human', 2), 1);
  assert.equal(shardOf('chain:307f4559431e680.human', 3), 1);
  assert.equal(fnv1a32('chain:validator-1.node'), 2128567802);
  assert.equal(shardOf('chain:validator-1.node', 2), 0);
  assert.equal(fnv1a32('foobar'), 0xbf9cf968);
});

test('ownership covers .human, .node, .app, .vault and .agent; every shard serves system and escrow addresses', () => {
  const s0 = shardView(0, 2);
  const s1 = shardView(1, 2);
  assert.equal(s1.owns('chain:307f4559431e680.human'), true);
  assert.equal(s0.owns('chain:307f4559431e680.human'), false);
  assert.equal(s0.shardOf('chain:307f4559431e680.human'), 1);
  assert.equal(s0.owns('chain:validator-1.node'), true);
  for (const address of ['chain:system.deploy', 'chain:models.registry', 'chain:ibc.escrow.chan-0']) {
    assert.equal(isShardOwned(address), false, address);
    assert.equal(s0.owns(address) && s1.owns(address), true, `${address}: every shard serves it`);
  }
  for (const kind of ['human', 'node', 'app', 'vault', 'agent']) assert.equal(isShardOwned(`chain:x.${kind}`), true, kind);
  assert.equal(isShardOwned('not an address'), false);
  assert.equal(ONE_SHARD.owns('chain:307f4559431e680.human'), true, 'a one-shard network owns every address');
  assert.throws(() => shardView(2, 2), /not below n_shards/);
  assert.throws(() => shardView(0, 0), /positive integer/);
});

test('refusals carry the owning shard: 400 for a sender or a record, 404 for a read (decisions.md §73)', () => {
  const s0 = shardView(0, 2);
  const human = 'chain:307f4559431e680.human';
  const sender = foreignSenderError(s0, 'from', human);
  assert.equal(sender.status, 400);
  assert.deepEqual(sender.toJSON().shard, 1);
  assert.match(sender.message, /^from chain:307f4559431e680\.human belongs to shard 1/);
  assert.equal(foreignRecordError(s0, human).status, 400);
  const read = foreignReadError(s0, human);
  assert.equal(read.status, 404);
  assert.equal(read.toJSON().shard, 1);
});

test('the k-rule: a one-shard network is §27; a sharded one the least k ≥ 1 the deployer\'s shard owns', () => {
  const owner = 'chain:307f4559431e680.human';
  const hash = `0x${'ab'.repeat(32)}`;
  const base = `chain:${sha3Hex0x(`ch-app|${owner}|${hash}`).slice(2, 12)}.app`;
  assert.equal(contractAddressOn(ONE_SHARD, owner, hash), base, '§27 unchanged on one shard');
  const home = shardOf(base, 2);
  assert.equal(contractAddressOn(shardView(home, 2), owner, hash), base, 'the shard that owns §27\'s address keeps it');
  const other = shardView(1 - home, 2);
  const moved = contractAddressOn(other, owner, hash);
  let k = 1;
  for (; ; k++) if (shardOf(`chain:${sha3Hex0x(`ch-app|${owner}|${hash}|${k}`).slice(2, 12)}.app`, 2) === other.id) break;
  assert.equal(moved, `chain:${sha3Hex0x(`ch-app|${owner}|${hash}|${k}`).slice(2, 12)}.app`);
  assert.equal(other.owns(moved), true);
  // Over many deploys on 3 shards every address lands on the deployer's shard.
  for (let i = 0; i < 50; i++) {
    const view = shardView(i % 3, 3);
    assert.equal(view.owns(contractAddressOn(view, owner, sha3Hex0x(`deploy-${i}`))), true);
  }
});

test('a shard\'s P2P chain hash: the genesis hash on one shard, bound to the shard otherwise', () => {
  const g = `0x${'11'.repeat(32)}`;
  assert.equal(shardChainHash(g, ONE_SHARD), g);
  assert.notEqual(shardChainHash(g, shardView(0, 2)), shardChainHash(g, shardView(1, 2)));
  assert.equal(shardChainHash(g, shardView(1, 2)), sha3Hex0x(`ch-shard-chain-v1|${g}|1`));
});
