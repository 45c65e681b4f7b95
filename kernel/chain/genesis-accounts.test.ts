import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeChain } from '../../test/helpers/chain-fixture.js';
import { toHex0x } from '../codec/hex.js';
import { utf8Bytes } from '../codec/utf8.js';
import { shardView } from '../crypto/shard.js';
import { WriteBatch } from '../state/kv.js';
import { EMPTY_ROOT, StateTree } from '../state/tree/index.js';
import { MemoryStore } from '../store/level-store.js';
import { ChainStore } from '../store/chain-store.js';
import { PREFIX } from '../store/keys.js';
import { checkGenesis } from '../config/genesis-rules.js';
import { nobleProvider } from '../crypto/noble-provider.js';
import { genesisDoc } from '../../test/helpers/chain-fixture.js';
import { genesisRangeAddress, writeGenesisRanges } from './genesis-accounts.js';

/** The root of `entries` built in one update of an empty tree: what any batching must reach. */
async function rootOf(entries: ReadonlyArray<readonly [string, Uint8Array]>): Promise<string> {
  const tree = new StateTree(new MemoryStore());
  return toHex0x(await tree.update(EMPTY_ROOT, entries.map(([k, v]) => [utf8Bytes(k), v] as const), new WriteBatch()));
}

test('range addresses are key-derived in form, distinct and fixed by seed and index', () => {
  const a = genesisRangeAddress('bench', 0);
  assert.match(a, /^chain:[0-9a-f]{15}\.human$/);
  assert.equal(genesisRangeAddress('bench', 0), a);
  assert.notEqual(genesisRangeAddress('bench', 1), a);
  assert.notEqual(genesisRangeAddress('other', 0), a);
});

test('the ranges writer reaches the same root and state in chunks of 7 as in one chunk', async () => {
  const ranges = [{ seed: 'r1', count: 100, balance: '5' }, { seed: 'r2', count: 31, balance: '9' }];
  const results = [];
  for (const chunk of [7, 1_000_000]) {
    const kv = new MemoryStore();
    const store = new ChainStore(kv);
    await store.load();
    const tree = new StateTree(kv, { prefix: utf8Bytes(PREFIX.treeNode) });
    const { root, accounts } = await writeGenesisRanges({ store, tree, shards: shardView(0, 1) }, ranges, chunk);
    results.push({ root: toHex0x(root), accounts, entries: await store.state.scan('') });
  }
  assert.equal(results[0]!.accounts, 131);
  assert.equal(results[0]!.root, results[1]!.root);
  assert.deepEqual(results[0]!.entries, results[1]!.entries);
  assert.equal(results[0]!.entries.length, 131);
  assert.equal(results[0]!.root, await rootOf(results[0]!.entries));
});

test('a genesis with account ranges funds every range address, sums with a listed account, and its root is the root of its state', async () => {
  const listed = genesisRangeAddress('bench', 3);
  const f = await makeChain({ accounts: [{ address: listed, balance: 1000n }], accountRanges: [{ seed: 'bench', count: 50, balance: '77' }] });
  try {
    for (const i of [0, 1, 49]) assert.equal((await f.account(genesisRangeAddress('bench', i))).balance, 77n);
    assert.equal((await f.account(listed)).balance, 1077n);
    assert.equal((await f.account(genesisRangeAddress('bench', 50))).balance, 0n);
    const entries = await f.chain.snapshots.stateEntries();
    assert.equal(entries.filter(([k]) => k.startsWith('acct/')).length, 50);
    assert.equal(f.chain.head.state_root, await rootOf(entries));
  } finally {
    await f.close();
  }
});

test('a sharded node writes only the range accounts its shard owns', async () => {
  const kv = new MemoryStore();
  const store = new ChainStore(kv);
  await store.load();
  const tree = new StateTree(kv, { prefix: utf8Bytes(PREFIX.treeNode) });
  const shards = shardView(1, 4);
  const { accounts } = await writeGenesisRanges({ store, tree, shards }, [{ seed: 's', count: 200, balance: '1' }], 16);
  const owned = Array.from({ length: 200 }, (_, i) => genesisRangeAddress('s', i)).filter((a) => shards.owns(a));
  assert.equal(accounts, owned.length);
  assert.ok(accounts > 0 && accounts < 200);
  assert.deepEqual((await store.state.scan('acct/')).map(([k]) => k), owned.map((a) => `acct/${a}`).sort());
});

test('a genesis naming one range seed twice is refused', () => {
  const doc = { ...genesisDoc([]), account_ranges: [{ seed: 'x', count: 2, balance: '1' }, { seed: 'x', count: 3, balance: '1' }] };
  assert.throws(() => checkGenesis(doc, { provider: nobleProvider, minStake: undefined }), /seed "x" is listed twice/);
});

test('the ranges writer hands the store a chunk of entries and leaves at a time, reads no tree node and leaves nothing in the tree caches', async () => {
  const kv = new MemoryStore();
  const writes: number[] = [];
  const write = kv.write.bind(kv);
  kv.write = async (ops) => {
    writes.push(ops.length);
    await write(ops);
  };
  let reads = 0;
  const get = kv.get.bind(kv);
  kv.get = async (key) => {
    if (Buffer.from(key).toString().startsWith(PREFIX.treeNode)) reads++;
    return get(key);
  };
  const store = new ChainStore(kv);
  await store.load();
  const tree = new StateTree(kv, { prefix: utf8Bytes(PREFIX.treeNode) });
  const { root, accounts } = await writeGenesisRanges({ store, tree, shards: shardView(0, 1) }, [{ seed: 'bound', count: 1000, balance: '3' }], 64);
  assert.equal(accounts, 1000);
  // 15 full chunks and one of 40 (an entry and a leaf each), then the internal nodes a chunk at a time.
  assert.deepEqual(writes.slice(0, 16), [...Array<number>(15).fill(128), 80]);
  const internal = writes.slice(16);
  assert.ok(internal.length >= 15 && internal.every((n) => n > 0 && n <= 64), `internal node writes ${internal.join(',')}`);
  assert.equal(reads, 0);
  assert.equal(tree.memoryBytes(), 0);
  assert.equal(toHex0x(root), await rootOf(await store.state.scan('')));
});
