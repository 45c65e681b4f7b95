import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sha3 } from '../../crypto/hash.js';
import { WriteBatch } from '../kv.js';
import { EMPTY_ROOT } from './hashing.js';
import { MemoryKv } from './memory-kv.js';
import { Prng } from './prng.js';
import { StateTree, type StateChange } from './state-tree.js';
import { commit, modelRoot, utf8 } from './fixtures.js';

/** A tree of `count` keys `k/<i>` written through one update, with its state. */
async function seeded(count: number, options: ConstructorParameters<typeof StateTree>[1] = {}): Promise<{ kv: MemoryKv; tree: StateTree; root: Uint8Array; state: Map<string, Uint8Array> }> {
  const kv = new MemoryKv();
  const tree = new StateTree(kv, options);
  const state = new Map<string, Uint8Array>();
  for (let i = 0; i < count; i++) state.set(`k/${i}`, utf8(`v${i}`));
  const { root } = await commit(tree, kv, EMPTY_ROOT, [...state].map(([k, v]) => [utf8(k), v] as const));
  tree.releasePending();
  return { kv, tree, root, state };
}

/** No LRU and no upper levels: every position is a store read unless a hint answers it. */
const NO_MEMORY = { cacheNodes: 0, upperLevelsBytes: 0 };

test('a true old value spares the leaf read and gives the same root and nodes as no hint', async () => {
  // Every node not hinted is a store read, so the count is exact.
  const plain = await seeded(300, NO_MEMORY);
  const hinted = await seeded(300, NO_MEMORY);
  const keys = ['k/3', 'k/77', 'k/150', 'k/299'];
  const change = (k: string): StateChange => [utf8(k), utf8(`new ${k}`)];
  const plainBatch = new WriteBatch();
  plain.kv.reads = 0;
  const plainRoot = await plain.tree.update(plain.root, keys.map(change), plainBatch);
  const plainReads = plain.kv.reads;
  const hintedBatch = new WriteBatch();
  hinted.kv.reads = 0;
  const hintedRoot = await hinted.tree.update(hinted.root, keys.map((k): StateChange => [utf8(k), utf8(`new ${k}`), hinted.state.get(k)!]), hintedBatch);
  assert.deepEqual(hintedRoot, plainRoot);
  for (const k of keys) plain.state.set(k, utf8(`new ${k}`));
  assert.deepEqual(hintedRoot, modelRoot(plain.state));
  assert.deepEqual(hintedBatch.ops, plainBatch.ops);
  // Each overwritten key's leaf was not read: one read fewer per key.
  assert.equal(hinted.kv.reads, plainReads - keys.length);
  assert.equal(hinted.tree.hintedLeaves, keys.length);
  assert.equal(plain.tree.hintedLeaves, 0);
  // Reads of the new root through the hinted path still serve the new values.
  for (const k of keys) assert.deepEqual(await hinted.tree.get(hintedRoot, utf8(k)), utf8(`new ${k}`));
});


test('a hinted delete and a hinted write of the same value keep the tree canonical', async () => {
  const { kv, tree, root, state } = await seeded(64, NO_MEMORY);
  // k/5 deleted (its sibling may move up), k/6 written with the value it already has (no change).
  const changes: StateChange[] = [
    [utf8('k/5'), null, state.get('k/5')!],
    [utf8('k/6'), state.get('k/6')!, state.get('k/6')!],
  ];
  const { root: next } = await commit(tree, kv, root, changes);
  assert.equal(tree.hintedLeaves, 2);
  state.delete('k/5');
  assert.deepEqual(next, modelRoot(state));
  const batch = new WriteBatch();
  assert.deepEqual(await tree.update(next, [[utf8('k/6'), state.get('k/6')!, state.get('k/6')!]], batch), next);
  assert.equal(tree.hintedLeaves, 3);
  assert.equal(batch.ops.length, 0);
});

test('hints that lie (another value, another key\'s value, a key that is absent, random bytes) change nothing', async () => {
  // No memory, so every position on these paths is one the tree would take a hint for.
  const { kv, tree, root, state } = await seeded(200, NO_MEMORY);
  const plain = await seeded(200, NO_MEMORY);
  const lies: StateChange[] = [
    [utf8('k/1'), utf8('x'), utf8('not the value')],
    // k/2's hint is k/3's value: a leaf hash commits to the key, so it cannot match k/3's leaf.
    [utf8('k/2'), utf8('y'), state.get('k/3')!],
    [utf8('absent'), utf8('z'), utf8('v1')],
    [utf8('k/4'), null, new Uint8Array(32).fill(7)],
    // k/9's hint is the hash of its value, not the value: hashed again, it names no leaf.
    [utf8('k/9'), utf8('w'), sha3(state.get('k/9')!)],
    [utf8('k/10'), utf8('u'), new Uint8Array(0)],
  ];
  kv.reads = 0;
  const { root: next } = await commit(tree, kv, root, lies);
  plain.kv.reads = 0;
  const { root: plainNext } = await commit(plain.tree, plain.kv, plain.root, lies.map(([k, v]): StateChange => [k, v]));
  assert.equal(tree.hintedLeaves, 0);
  assert.equal(kv.reads, plain.kv.reads);
  assert.ok(kv.reads > 0);
  assert.deepEqual(next, plainNext);
  state.set('k/1', utf8('x'));
  state.set('k/2', utf8('y'));
  state.set('absent', utf8('z'));
  state.delete('k/4');
  state.set('k/9', utf8('w'));
  state.set('k/10', utf8('u'));
  assert.deepEqual(next, modelRoot(state));
});

test('an old value of the wrong type is refused before anything is read or written', async () => {
  const kv = new MemoryKv();
  const tree = new StateTree(kv);
  const batch = new WriteBatch();
  await assert.rejects(tree.update(EMPTY_ROOT, [[utf8('a'), utf8('1'), 'ab' as unknown as Uint8Array]], batch), /old value must be a Uint8Array/);
  await assert.rejects(tree.update(EMPTY_ROOT, [[utf8('a'), utf8('1'), [1, 2] as unknown as Uint8Array]], batch), /old value must be a Uint8Array/);
  assert.equal(batch.ops.length, 0);
});

test('random blocks with true, false and missing hints give the roots of the definition, and true hints save reads', async () => {
  const rng = new Prng(0x41e7);
  // Upper levels 0–5 only and no LRU, so paths end in store reads below them and hints can save some.
  const options = { cacheNodes: 0, upperLevelsBytes: 64 * 33 };
  const hinted = await seeded(500, options);
  const plain = await seeded(500, options);
  const state = new Map(hinted.state);
  let hintedRoot = hinted.root;
  let plainRoot = plain.root;
  let hintedReadsTotal = 0;
  let plainReadsTotal = 0;
  for (let block = 0; block < 40; block++) {
    const plainChanges: StateChange[] = [];
    const hintedChanges: StateChange[] = [];
    const next = new Map(state);
    for (let j = 0; j < 25; j++) {
      const key = `k/${rng.below(700)}`;
      const value = rng.below(5) === 0 ? null : rng.bytes(1 + rng.below(40));
      const old = state.get(key);
      const pick = rng.below(4);
      // True hint, a lie, none, or (for a key given twice) whatever the earlier change said.
      const hint = pick === 0 && old !== undefined ? old : pick === 1 ? rng.bytes(1 + rng.below(40)) : undefined;
      plainChanges.push([utf8(key), value]);
      hintedChanges.push(hint === undefined ? [utf8(key), value] : [utf8(key), value, hint]);
      if (value === null) next.delete(key);
      else next.set(key, value);
    }
    hinted.kv.reads = 0;
    plain.kv.reads = 0;
    ({ root: hintedRoot } = await commit(hinted.tree, hinted.kv, hintedRoot, hintedChanges));
    ({ root: plainRoot } = await commit(plain.tree, plain.kv, plainRoot, plainChanges));
    hintedReadsTotal += hinted.kv.reads;
    plainReadsTotal += plain.kv.reads;
    hinted.tree.releasePending();
    plain.tree.releasePending();
    state.clear();
    for (const [k, v] of next) state.set(k, v);
    assert.deepEqual(hintedRoot, plainRoot, `block ${block}`);
    assert.deepEqual(hintedRoot, modelRoot(state), `block ${block}`);
  }
  assert.ok(hintedReadsTotal < plainReadsTotal, `hinted ${hintedReadsTotal} reads, plain ${plainReadsTotal}`);
  assert.ok(hinted.tree.hintedLeaves > 0);
  assert.equal(plain.tree.hintedLeaves, 0);
  // A fresh tree (cold caches, no hints) reads every value back from the hinted tree's store.
  const fresh = new StateTree(hinted.kv);
  for (const [k, v] of state) assert.deepEqual(await fresh.get(hintedRoot, utf8(k)), v);
});
