import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { BlockRecord } from '../model/types.js';
import { ChainStore } from './chain-store.js';
import type { KvOp, KvStore } from '../state/kv.js';
import { ProbeKv } from '../../test/helpers/probe-kv.js';
import { MemoryStore } from './level-store.js';
import { PREFIX, metaKey, prefixEnd } from './keys.js';
import { utf8Bytes } from '../codec/utf8.js';
import { NO_VALIDATOR_ACTIVITY, TRUST_WINDOW_BLOCKS } from './validator-activity.js';

const [A, B, C] = ['chain:a.node', 'chain:b.node', 'chain:c.node'] as const;
const hash = (n: number): string => '0x' + n.toString(16).padStart(64, '0');

/** An empty block: the activity index reads only its height and proposer. */
function emptyBlock(height: number, proposer: string): BlockRecord {
  const header = { chain_id: 'c', height, round: 0, parent_hash: hash(height - 1), proposer, timestamp: height, tx_root: hash(0), tx_count: 0, prev_state_root: hash(0), base_fee: 1n, shard: 0, evidence_hash: hash(0), validators_hash: hash(0), next_validators_hash: hash(0) };
  return { header, hash: hash(height), state_root: hash(0), gas_used: 0, fees_burned: 0n, tx_hashes: [], evidence: [] };
}

async function open(kv: KvStore): Promise<ChainStore> {
  const store = new ChainStore(kv);
  await store.load();
  return store;
}

/** Commits the next block proposed by `proposer` with a certificate carrying `signers`' precommits. */
function commit(store: ChainStore, proposer: string, signers: readonly string[]): Promise<unknown> {
  return store.commitBlock({ block: emptyBlock(store.head.height + 1, proposer), txs: [], receipts: [], events: [], stateChanges: [], extraOps: [], ...(signers.length > 0 ? { certificate: { bytes: new Uint8Array([1]), signers } } : {}) });
}

test('validator activity: proposals, precommits and the last height of either are counted per committed block', async () => {
  const store = await open(new MemoryStore());
  await commit(store, A, [A, B]);
  await commit(store, B, [A, B, C]);
  await commit(store, A, [B, A]);
  await commit(store, C, []); // a block without a certificate (one validator, no votes)
  assert.deepEqual(await store.validatorActivity(A), { blocks_proposed: 2, votes_cast: 3, last_active: 3, window_votes: 3 });
  assert.deepEqual(await store.validatorActivity(B), { blocks_proposed: 1, votes_cast: 3, last_active: 3, window_votes: 3 });
  assert.deepEqual(await store.validatorActivity(C), { blocks_proposed: 1, votes_cast: 1, last_active: 4, window_votes: 1 });
  assert.deepEqual(await store.validatorActivity('chain:d.node'), NO_VALIDATOR_ACTIVITY);
  assert.equal(store.trustWindowBlocks, 4, 'fewer blocks than the window: the fraction is of those');
  assert.equal(store.activityCountedFrom, 1);
});

test('validator activity: a read that overlaps a commit does not leave the older figures in the cache', async () => {
  // A /validators read misses the cache, its LevelDB read is slow, and a block commits meanwhile:
  // the record it read is the one before that block. Cached, the next commit built on it.
  class SlowKv extends ProbeKv {
    hold: Promise<void> | null = null;
    override async get(key: Uint8Array): Promise<Uint8Array | undefined> {
      const hold = this.hold;
      const value = await this.inner.get(key);
      if (hold) await hold;
      return value;
    }
  }
  const kv = new SlowKv();
  let store = await open(kv);
  await commit(store, A, [A, B]);
  store = await open(kv); // restarted: the cache is empty
  let release!: () => void;
  kv.hold = new Promise((r) => (release = r));
  const stale = store.validatorActivity(A);
  kv.hold = null;
  await commit(store, B, [A, B]);
  release();
  assert.equal((await stale).votes_cast, 1, 'the overlapping read saw the record before block 2');
  await commit(store, B, [A, B]);
  assert.equal((await store.validatorActivity(A)).votes_cast, 3, 'block 2 was not lost');
  assert.equal((await open(kv).then((s) => s.validatorActivity(A))).votes_cast, 3, 'nor on disk');
});

test('validator activity: the trust window holds the last 100 committed blocks, across a restart', async () => {
  const kv: KvStore = new MemoryStore();
  let store = await open(kv);
  // A precommits every block, B blocks 1..50, C blocks 101..; the store is reopened at 120, so
  // the window slides past heights whose signers are only on disk.
  for (let h = 1; h <= 130; h++) {
    if (h === 121) store = await open(kv);
    await commit(store, A, [A, ...(h <= 50 ? [B] : []), ...(h > 100 ? [C] : [])]);
  }
  assert.equal(store.trustWindowBlocks, TRUST_WINDOW_BLOCKS);
  const a = await store.validatorActivity(A);
  const b = await store.validatorActivity(B);
  const c = await store.validatorActivity(C);
  assert.deepEqual([a.window_votes, b.window_votes, c.window_votes], [100, 20, 30], 'window 31..130');
  assert.deepEqual([a.votes_cast, b.votes_cast, c.votes_cast], [130, 50, 30]);
  assert.deepEqual([a.blocks_proposed, a.last_active, b.last_active], [130, 130, 50]);
  const windows: number[] = [];
  for await (const [k] of kv.iterate({ gte: utf8Bytes(PREFIX.validatorWindow), lt: prefixEnd(utf8Bytes(PREFIX.validatorWindow)) })) windows.push(k.length);
  assert.equal(windows.length, TRUST_WINDOW_BLOCKS, 'heights that left the window are deleted in the batch that slides it');
});

test('validator activity: a commit whose write fails counts nothing; the retry counts once', async () => {
  const kv = new ProbeKv();
  const store = await open(kv);
  await commit(store, A, [A, B]);
  kv.failWrites = true;
  await assert.rejects(commit(store, B, [A, B]), /no space left/);
  kv.failWrites = false;
  assert.deepEqual(await store.validatorActivity(B), { blocks_proposed: 0, votes_cast: 1, last_active: 1, window_votes: 1 });
  await commit(store, B, [A, B]);
  assert.deepEqual(await store.validatorActivity(B), { blocks_proposed: 1, votes_cast: 2, last_active: 2, window_votes: 2 });
  assert.deepEqual(await (await open(kv)).validatorActivity(B), await store.validatorActivity(B), 'LevelDB holds what memory says');
});

test('validator activity: a node started from a snapshot counts from the block after it', async () => {
  const store = await open(new MemoryStore());
  await store.installSnapshot(emptyBlock(500, A), [], []);
  assert.equal(store.activityCountedFrom, 501);
  assert.equal(store.trustWindowBlocks, 0);
  await commit(store, B, [A, B]);
  assert.equal(store.trustWindowBlocks, 1);
  assert.deepEqual(await store.validatorActivity(A), { blocks_proposed: 0, votes_cast: 1, last_active: 501, window_votes: 1 });
});

test('validator activity: a data directory written before the index counts from the first block committed with it', async () => {
  const kv: KvStore = new MemoryStore();
  const old = await open(kv);
  for (let h = 1; h <= 5; h++) await commit(old, A, [A]);
  // What a store of an earlier build holds: blocks, and no activity records or counting mark.
  const dels: KvOp[] = [{ type: 'del', key: metaKey('activity-from') }];
  for (const prefix of [PREFIX.validatorActivity, PREFIX.validatorWindow]) {
    for await (const [k] of kv.iterate({ gte: utf8Bytes(prefix), lt: prefixEnd(utf8Bytes(prefix)) })) dels.push({ type: 'del', key: k });
  }
  await kv.write(dels, true);
  const store = await open(kv);
  assert.equal(store.activityCountedFrom, 6);
  assert.equal(store.trustWindowBlocks, 0);
  await commit(store, A, [A]);
  assert.deepEqual(await store.validatorActivity(A), { blocks_proposed: 1, votes_cast: 1, last_active: 6, window_votes: 1 });
  assert.equal((await open(kv)).activityCountedFrom, 6, 'the mark is written with that first block');
});
