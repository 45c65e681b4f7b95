import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sha3, sha3Concat } from '../../crypto/hash.js';
import { WriteBatch } from '../kv.js';
import { CorruptNodeError, MissingNodeError } from './errors.js';
import { EMPTY_ROOT } from './hashing.js';
import { MemoryKv } from './memory-kv.js';
import { Prng } from './prng.js';
import { StateTree, type StateChange } from './state-tree.js';
import { commit, hex, modelRoot, toChanges, utf8 } from './fixtures.js';

test('the empty tree: root is 32 zero bytes, nothing is found, no-op updates write nothing', async () => {
  assert.equal(hex(EMPTY_ROOT), '00'.repeat(32));
  const kv = new MemoryKv();
  const tree = new StateTree(kv);
  assert.equal(await tree.get(EMPTY_ROOT, utf8('a')), undefined);
  const batch = new WriteBatch();
  assert.deepEqual(await tree.update(EMPTY_ROOT, [], batch), EMPTY_ROOT);
  assert.deepEqual(await tree.update(EMPTY_ROOT, [[utf8('a'), null]], batch), EMPTY_ROOT);
  assert.equal(batch.ops.length, 0);
  assert.equal(kv.reads, 0);
});

test('roots are pinned to the documented hashing', async () => {
  const kv = new MemoryKv();
  const tree = new StateTree(kv);
  const one = await commit(tree, kv, EMPTY_ROOT, [[utf8('alice'), utf8('100')]]);
  // A lone leaf is the root: SHA3(0x00 || SHA3(key) || SHA3(value)).
  assert.deepEqual(one.root, sha3Concat(Uint8Array.of(0), sha3(utf8('alice')), sha3(utf8('100'))));
  const two = await commit(tree, kv, one.root, [[utf8('bob'), utf8('7')]]);
  assert.deepEqual(two.root, modelRoot(new Map([['alice', utf8('100')], ['bob', utf8('7')]])));
  // Fixed vector: any change to the hashing rules or tree shape changes every root on chain.
  assert.equal(hex(two.root), PINNED_ALICE_BOB);
});
const PINNED_ALICE_BOB = 'ff5983b4de2c4455013acc111447e01b22c84682953d6f246246814e71bab2b2';

test('insert, overwrite, delete and get', async () => {
  const kv = new MemoryKv();
  const tree = new StateTree(kv);
  let { root } = await commit(tree, kv, EMPTY_ROOT, [
    [utf8('a'), utf8('1')],
    [utf8('b'), utf8('2')],
    [utf8('c'), utf8('3')],
  ]);
  assert.deepEqual(await tree.get(root, utf8('a')), utf8('1'));
  assert.deepEqual(await tree.get(root, utf8('b')), utf8('2'));
  assert.equal(await tree.get(root, utf8('d')), undefined);

  ({ root } = await commit(tree, kv, root, [[utf8('b'), utf8('20')], [utf8('c'), null], [utf8('e'), new Uint8Array(0)]]));
  assert.deepEqual(await tree.get(root, utf8('b')), utf8('20'));
  assert.equal(await tree.get(root, utf8('c')), undefined);
  // An empty value is a value, not a deletion.
  assert.deepEqual(await tree.get(root, utf8('e')), new Uint8Array(0));
  assert.deepEqual(root, modelRoot(new Map([['a', utf8('1')], ['b', utf8('20')], ['e', new Uint8Array(0)]])));
});

test('no-op changes (same value, deleting an absent key) keep the root and write nothing', async () => {
  const kv = new MemoryKv();
  const tree = new StateTree(kv);
  const state = new Map<string, Uint8Array>();
  for (let i = 0; i < 50; i++) state.set(`k${i}`, utf8(`v${i}`));
  const { root } = await commit(tree, kv, EMPTY_ROOT, toChanges(state));
  const again = await commit(tree, kv, root, [[utf8('k3'), utf8('v3')], [utf8('absent'), null], [utf8('k9'), utf8('v9')]]);
  assert.deepEqual(again.root, root);
  assert.equal(again.puts, 0);
});

test('duplicate keys in one update: the last change wins', async () => {
  const kv = new MemoryKv();
  const tree = new StateTree(kv);
  const { root } = await commit(tree, kv, EMPTY_ROOT, [
    [utf8('x'), utf8('1')],
    [utf8('y'), utf8('1')],
    [utf8('x'), utf8('2')],
    [utf8('y'), null],
  ]);
  assert.deepEqual(await tree.get(root, utf8('x')), utf8('2'));
  assert.equal(await tree.get(root, utf8('y')), undefined);
  assert.deepEqual(root, modelRoot(new Map([['x', utf8('2')]])));
});

test('the root does not depend on the order or batching of the changes (seeded permutations)', async () => {
  const rng = new Prng(0xc0ffee);
  const state = new Map<string, Uint8Array>();
  for (let i = 0; i < 300; i++) state.set(`account/${i}`, rng.bytes(1 + rng.below(40)));
  const expected = modelRoot(state);
  const changes = toChanges(state);
  for (let round = 0; round < 6; round++) {
    const kv = new MemoryKv();
    const tree = new StateTree(kv, { cacheNodes: round % 2 === 0 ? 0 : 1000 });
    const order = rng.shuffled(changes);
    // One update for the whole set, then the same set in random-sized blocks.
    assert.deepEqual(await tree.update(EMPTY_ROOT, order, new WriteBatch()), expected);
    let root = EMPTY_ROOT;
    for (let i = 0; i < order.length; ) {
      const size = 1 + rng.below(60);
      ({ root } = await commit(tree, kv, root, order.slice(i, i + size)));
      i += size;
    }
    assert.deepEqual(root, expected, `round ${round}`);
  }
});

test('random inserts, overwrites and deletes agree with a model after every block', async () => {
  const rng = new Prng(42);
  const kv = new MemoryKv();
  const tree = new StateTree(kv, { cacheNodes: 64 });
  const state = new Map<string, Uint8Array>();
  let root = EMPTY_ROOT;
  const history: Array<{ root: Uint8Array; state: Map<string, Uint8Array> }> = [];
  for (let block = 0; block < 40; block++) {
    const changes: StateChange[] = [];
    const count = 1 + rng.below(30);
    for (let i = 0; i < count; i++) {
      const key = `k${rng.below(150)}`;
      const value = rng.below(3) === 0 ? null : rng.bytes(rng.below(12));
      changes.push([utf8(key), value]);
      if (value === null) state.delete(key);
      else state.set(key, value);
    }
    ({ root } = await commit(tree, kv, root, changes));
    assert.deepEqual(root, modelRoot(state), `block ${block}`);
    history.push({ root, state: new Map(state) });
  }
  // Every old root stays readable: nodes are immutable and never overwritten.
  const fresh = new StateTree(kv, { cacheNodes: 0 });
  const trusting = new StateTree(kv, { cacheNodes: 0, verifyReads: false });
  for (const { root: old, state: oldState } of history.filter((_, i) => i % 7 === 0)) {
    for (let k = 0; k < 150; k++) {
      assert.deepEqual(await fresh.get(old, utf8(`k${k}`)), oldState.get(`k${k}`));
      assert.deepEqual(await trusting.get(old, utf8(`k${k}`)), oldState.get(`k${k}`));
    }
  }
});

test('deleting every key returns the empty root', async () => {
  const rng = new Prng(7);
  const kv = new MemoryKv();
  const tree = new StateTree(kv);
  const keys = Array.from({ length: 500 }, (_, i) => `key-${i}`);
  let { root } = await commit(tree, kv, EMPTY_ROOT, keys.map((k) => [utf8(k), utf8(k)] as const));
  const remaining = new Map(keys.map((k) => [k, utf8(k)]));
  const order = rng.shuffled(keys);
  for (let i = 0; i < order.length; ) {
    const size = 1 + rng.below(80);
    const chunk = order.slice(i, i + size);
    ({ root } = await commit(tree, kv, root, chunk.map((k) => [utf8(k), null] as const)));
    for (const k of chunk) remaining.delete(k);
    assert.deepEqual(root, modelRoot(remaining));
    i += size;
  }
  assert.deepEqual(root, EMPTY_ROOT);
});

test('updates chain before their batches are applied; the batches then serve a fresh tree', async () => {
  const kv = new MemoryKv();
  // No LRU: the in-memory copies of unwritten nodes are the only place the second update can look.
  const tree = new StateTree(kv, { cacheNodes: 0 });
  const b1 = new WriteBatch();
  const r1 = await tree.update(EMPTY_ROOT, Array.from({ length: 40 }, (_, i) => [utf8(`a${i}`), utf8('1')] as const), b1);
  const b2 = new WriteBatch();
  const r2 = await tree.update(r1, [[utf8('a3'), null], [utf8('b'), utf8('2')]], b2);
  const b3 = new WriteBatch();
  const r3 = await tree.update(r2, [[utf8('c'), utf8('3')]], b3);
  assert.equal(kv.size, 0);
  assert.deepEqual(await tree.get(r3, utf8('a7')), utf8('1'));
  assert.deepEqual(await tree.get(r3, utf8('b')), utf8('2'));
  assert.equal(await tree.get(r3, utf8('a3')), undefined);
  assert.deepEqual(await tree.get(r1, utf8('a3')), utf8('1'));

  // A fresh tree over the store only sees the roots once their batches are written.
  const fresh = new StateTree(kv, { cacheNodes: 0 });
  await assert.rejects(fresh.get(r3, utf8('a7')), MissingNodeError);
  for (const b of [b1, b2, b3]) kv.apply(b);
  assert.deepEqual(await fresh.get(r3, utf8('c')), utf8('3'));
  assert.deepEqual(await fresh.get(r1, utf8('a3')), utf8('1'));
  tree.releasePending();
  assert.deepEqual(await tree.get(r3, utf8('a7')), utf8('1'));
});

test('past the pending budget an unwritten node is reported missing, never guessed', async () => {
  const kv = new MemoryKv();
  // Budget 0: only the newest update's nodes are kept in memory.
  const tree = new StateTree(kv, { cacheNodes: 0, pendingNodes: 0 });
  const r1 = await tree.update(EMPTY_ROOT, Array.from({ length: 40 }, (_, i) => [utf8(`a${i}`), utf8('1')] as const), new WriteBatch());
  const r2 = await tree.update(r1, [[utf8('b'), utf8('2')]], new WriteBatch());
  assert.deepEqual(await tree.get(r2, utf8('b')), utf8('2'));
  await assert.rejects(tree.get(r2, utf8('a7')), MissingNodeError);
});

test('a failed update leaves the batch untouched', async () => {
  const tree = new StateTree(new MemoryKv());
  const batch = new WriteBatch();
  await assert.rejects(tree.update(sha3(utf8('no such root')), [[utf8('a'), utf8('1')]], batch), MissingNodeError);
  assert.equal(batch.ops.length, 0);
  await assert.rejects(tree.update(new Uint8Array(31), [], batch), TypeError);
});

test('a damaged store is detected, not served', async () => {
  const kv = new MemoryKv();
  const tree = new StateTree(kv, { cacheNodes: 0 });
  const { root } = await commit(tree, kv, EMPTY_ROOT, [[utf8('a'), utf8('1')], [utf8('b'), utf8('2')]]);
  tree.releasePending();
  for (const [k, v] of kv.map) {
    if (v[0] === 0) kv.map.set(k, Uint8Array.from([...v.slice(0, -1), (v[v.length - 1]! ^ 1) & 0xff]));
  }
  await assert.rejects(tree.get(root, utf8('a')), CorruptNodeError);
});

test('nodes live under the prefix, so trees with different prefixes share a store', async () => {
  const kv = new MemoryKv();
  const t1 = new StateTree(kv, { prefix: utf8('one/') });
  const t2 = new StateTree(kv, { prefix: utf8('two/') });
  const r1 = await commit(t1, kv, EMPTY_ROOT, [[utf8('a'), utf8('1')]]);
  await commit(t2, kv, EMPTY_ROOT, [[utf8('b'), utf8('2')]]);
  for (const key of kv.map.keys()) assert.ok(key.startsWith(hex(utf8('one/'))) || key.startsWith(hex(utf8('two/'))));
  t2.releasePending();
  await assert.rejects(new StateTree(kv, { prefix: utf8('two/') }).get(r1.root, utf8('a')), MissingNodeError);
});

test('an update of k keys in a tree of n keys reads and writes O(k log n) nodes', async () => {
  const rng = new Prng(2024);
  for (const n of [1 << 12, 1 << 15]) {
    const kv = new MemoryKv();
    const builder = new StateTree(kv, { cacheNodes: 0 });
    const keys = Array.from({ length: n }, (_, i) => `acct/${i}`);
    const { root } = await commit(builder, kv, EMPTY_ROOT, keys.map((k) => [utf8(k), utf8('v')] as const));
    for (const k of [1, 10, 100]) {
      const changes: StateChange[] = [];
      for (let i = 0; i < k; i++) {
        const pick = rng.below(3);
        if (pick === 0) changes.push([utf8(`new/${n}/${k}/${i}`), rng.bytes(8)]);
        else changes.push([utf8(keys[rng.below(n)]!), pick === 1 ? null : rng.bytes(8)]);
      }
      // No cache and no pending nodes: every node touched is a store read.
      const tree = new StateTree(kv, { cacheNodes: 0 });
      const readsBefore = kv.reads;
      const batch = new WriteBatch();
      await tree.update(root, changes, batch);
      const reads = kv.reads - readsBefore;
      const bound = k * (2 * Math.log2(n) + 8);
      assert.ok(reads < bound, `n=${n} k=${k}: ${reads} reads, bound ${bound}`);
      assert.ok(batch.ops.length < bound, `n=${n} k=${k}: ${batch.ops.length} puts, bound ${bound}`);
      // The path to a changed key is at least as long as the tree is deep on average.
      assert.ok(reads >= Math.log2(n) - 4, `n=${n} k=${k}: suspiciously few reads (${reads})`);
    }
  }
});

test('a large update lets the event loop in while it runs, and the root is the same as the model says', async () => {
  const kv = new MemoryKv();
  const tree = new StateTree(kv);
  const base = await commit(tree, kv, EMPTY_ROOT, Array.from({ length: 1_000 }, (_, i) => [utf8(`acct/${i}`), utf8(`v${i}`)] as const));
  // With every node in memory an update runs in microtasks alone unless it yields: a macrotask
  // queued before it starts would then run only after it ends.
  let ticks = 0;
  let done = false;
  const tick = (): void => {
    ticks++;
    if (!done) setImmediate(tick);
  };
  setImmediate(tick);
  const changes: StateChange[] = Array.from({ length: 400 }, (_, i) => [utf8(`acct/${i * 2}`), utf8(`w${i}`)] as const);
  const root = await tree.update(base.root, changes, new WriteBatch());
  done = true;
  assert.ok(ticks >= 3, `the event loop turned ${ticks} time(s) during a 400-key update`);
  const model = new Map(Array.from({ length: 1_000 }, (_, i) => [`acct/${i}`, utf8(`v${i}`)] as const));
  for (let i = 0; i < 400; i++) model.set(`acct/${i * 2}`, utf8(`w${i}`));
  assert.deepEqual(root, modelRoot(model));
});
