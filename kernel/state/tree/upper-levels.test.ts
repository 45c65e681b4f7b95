import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WriteBatch } from '../kv.js';
import { EMPTY_ROOT } from './hashing.js';
import { MemoryKv } from './memory-kv.js';
import { Prng } from './prng.js';
import { verifyProof } from './proof.js';
import { StateTree, type StateChange } from './state-tree.js';
import { commit, modelRoot, toChanges, utf8 } from './fixtures.js';

/*
 * The upper levels change how the tree finds nodes, never what it computes: every root, value and
 * proof must be what a tree without them gives, whatever the sequence of blocks, and whatever the
 * cache held when a block came.
 */

/** A random block over a key space of `space` keys: overwrites, inserts and deletes. */
function randomBlock(rng: Prng, state: Map<string, Uint8Array>, space: number, size: number): StateChange[] {
  const changes: StateChange[] = [];
  for (let i = 0; i < size; i++) {
    const key = `k${rng.below(space)}`;
    const value = rng.below(4) === 0 ? null : rng.bytes(1 + rng.below(16));
    changes.push([utf8(key), value]);
    if (value === null) state.delete(key);
    else state.set(key, value);
  }
  return changes;
}

test('a random state built both ways: block by block through the upper levels, and in one update without them', async () => {
  const rng = new Prng(0x40);
  for (const budget of [0, 2_000, 70_000, 1 << 22]) {
    const kv = new MemoryKv();
    const tree = new StateTree(kv, { upperLevelsBytes: budget, cacheNodes: budget === 0 ? 0 : 256 });
    const state = new Map<string, Uint8Array>();
    let root = EMPTY_ROOT;
    for (let block = 0; block < 60; block++) {
      // Deletion-heavy stretches empty whole subtrees, so lone leaves move up through cached levels.
      const changes = randomBlock(rng, state, 3_000, 1 + rng.below(block % 10 === 9 ? 400 : 120));
      ({ root } = await commit(tree, kv, root, changes));
      tree.releasePending();
      assert.deepEqual(root, modelRoot(state), `budget ${budget}, block ${block}`);
    }
    const plain = new StateTree(new MemoryKv(), { upperLevelsBytes: 0, cacheNodes: 0 });
    assert.deepEqual(await plain.update(EMPTY_ROOT, toChanges(state), new WriteBatch()), root, `budget ${budget}`);
    // Reads at the cached root go by position: values and proofs as the definition says.
    for (let i = 0; i < 200; i++) {
      const key = `k${rng.below(3_200)}`;
      const value = await tree.get(root, utf8(key));
      assert.deepEqual(value, state.get(key));
      assert.ok(verifyProof(root, utf8(key), value ?? null, await tree.prove(root, utf8(key))), key);
    }
  }
});

test('a block built on a root the chain then abandons does not disturb the next one', async () => {
  const rng = new Prng(9);
  const kv = new MemoryKv();
  const tree = new StateTree(kv, { upperLevelsBytes: 1 << 20 });
  const state = new Map<string, Uint8Array>();
  let { root } = await commit(tree, kv, EMPTY_ROOT, randomBlock(rng, state, 2_000, 1_500));
  tree.releasePending();
  for (let height = 0; height < 20; height++) {
    // Round 0's proposal executes and is dropped; round 1's commits; the next block builds on it.
    const dropped = new Map(state);
    await tree.update(root, randomBlock(rng, dropped, 2_000, 80), new WriteBatch());
    const changes = randomBlock(rng, state, 2_000, 80);
    ({ root } = await commit(tree, kv, root, changes));
    tree.releasePending();
    assert.deepEqual(root, modelRoot(state), `height ${height}`);
  }
  // A read of an old root (a proven read one block back) neither fails nor moves the cache.
  const before = root;
  ({ root } = await commit(tree, kv, root, randomBlock(rng, state, 2_000, 50)));
  for (let i = 0; i < 50; i++) await tree.get(before, utf8(`k${i}`));
  ({ root } = await commit(tree, kv, root, randomBlock(rng, state, 2_000, 50)));
  assert.deepEqual(root, modelRoot(state));
});

test('warming the upper levels reads each cached position once, stays within its budget, and changes no answer', async () => {
  const rng = new Prng(77);
  const kv = new MemoryKv();
  const state = new Map<string, Uint8Array>();
  const builder = new StateTree(kv, { upperLevelsBytes: 0 });
  const { root } = await commit(builder, kv, EMPTY_ROOT, randomBlock(rng, state, 20_000, 12_000));
  const budget = 40_000;
  const tree = new StateTree(kv, { upperLevelsBytes: budget, cacheNodes: 0 });
  const { nodes: read, complete } = await tree.warmUpperLevels(root);
  assert.ok(complete);
  assert.ok(read > 500, `${read} nodes read`);
  assert.ok(tree.memoryBytes() <= budget, `${tree.memoryBytes()} bytes`);
  // Warm again: nothing left to read.
  assert.deepEqual(await tree.warmUpperLevels(root), { nodes: 0, complete: true });
  const readsBefore = kv.reads;
  const key = [...state.keys()][0]!;
  assert.deepEqual(await tree.get(root, utf8(key)), state.get(key));
  // The upper levels answer the top of the path: the reads left are the levels below them.
  assert.ok(kv.reads - readsBefore < 8, `${kv.reads - readsBefore} reads for one get`);
  const next = await commit(tree, kv, root, randomBlock(rng, state, 20_000, 300));
  assert.deepEqual(next.root, modelRoot(state));
});

/** A store that runs `then` once, on its `at`-th read (the warm-up's reads go through `get` here). */
class ReadTrigger extends MemoryKv {
  constructor(private readonly at: number, private readonly then: () => void) {
    super();
  }
  override async get(key: Uint8Array): Promise<Uint8Array | undefined> {
    if (this.reads + 1 === this.at) this.then();
    return super.get(key);
  }
}

/** A 12,000-key tree in `kv` and its root; `whole` is what a complete warm-up of it reads within 40,000 bytes. */
async function warmable(kv: MemoryKv): Promise<{ root: Uint8Array; whole: number; state: Map<string, Uint8Array> }> {
  const state = new Map<string, Uint8Array>();
  const { root } = await commit(new StateTree(kv, { upperLevelsBytes: 0 }), kv, EMPTY_ROOT, randomBlock(new Prng(78), state, 20_000, 12_000));
  const { nodes: whole } = await new StateTree(kv, { upperLevelsBytes: 40_000, cacheNodes: 0 }).warmUpperLevels(root);
  return { root, whole, state };
}

test('a warm-up stops at its next store call once its signal is aborted (a node stopping); a later one reads what it left', async () => {
  const stopped = new AbortController();
  const kv = new ReadTrigger(0, () => undefined);
  const { root, whole } = await warmable(kv);
  const already = new AbortController();
  already.abort();
  const tree = new StateTree(kv, { upperLevelsBytes: 40_000, cacheNodes: 0 });
  const before = kv.reads;
  assert.deepEqual(await tree.warmUpperLevels(root, already.signal), { nodes: 0, complete: false });
  assert.equal(kv.reads, before, 'no store call once aborted');
  // Aborted during its third level's reads: the levels below are never asked for.
  const midway = new ReadTrigger(5, () => stopped.abort());
  for (const [k, v] of kv.map) midway.map.set(k, v);
  const cut = new StateTree(midway, { upperLevelsBytes: 40_000, cacheNodes: 0 });
  const first = await cut.warmUpperLevels(root, stopped.signal);
  assert.equal(first.complete, false);
  assert.ok(first.nodes > 0 && first.nodes < 16, `${first.nodes} nodes before the abort was seen`);
  const rest = await cut.warmUpperLevels(root);
  assert.deepEqual(rest, { nodes: whole - first.nodes, complete: true });
});

test('a warm-up leaves a cache that holds another version alone, and stops once the cache starts afresh elsewhere', async () => {
  const rng = new Prng(79);
  const kv = new MemoryKv();
  const { root, whole, state } = await warmable(kv);
  // The chain moved on before the warm-up began: the cache holds the newer root and is left alone.
  const tree = new StateTree(kv, { upperLevelsBytes: 40_000, cacheNodes: 0 });
  const next = await commit(tree, kv, root, randomBlock(rng, state, 20_000, 50));
  await tree.get(next.root, utf8('k1'));
  const held = tree.memoryBytes();
  assert.deepEqual(await tree.warmUpperLevels(root), { nodes: 0, complete: false });
  assert.equal(tree.memoryBytes(), held);
  assert.equal((await tree.warmUpperLevels(next.root)).complete, true, 'a warm-up of the root it holds goes on');
  // An update from an unrelated root resets the cache while a warm-up of `root` reads.
  let unrelated: Promise<unknown> | undefined;
  const racing = new ReadTrigger(5, () => {
    unrelated = racingTree.update(EMPTY_ROOT, [[utf8('elsewhere'), utf8('x')]], new WriteBatch());
  });
  for (const [k, v] of kv.map) racing.map.set(k, v);
  const racingTree: StateTree = new StateTree(racing, { upperLevelsBytes: 40_000, cacheNodes: 0 });
  const warm = await racingTree.warmUpperLevels(root);
  await unrelated;
  assert.equal(warm.complete, false);
  assert.ok(warm.nodes < whole, `${warm.nodes} of ${whole}`);
});

test('reads racing an update that moves the cache still answer for their own root', async () => {
  const rng = new Prng(5);
  const kv = new MemoryKv();
  const tree = new StateTree(kv, { upperLevelsBytes: 1 << 20, cacheNodes: 0 });
  const state = new Map<string, Uint8Array>();
  const first = await commit(tree, kv, EMPTY_ROOT, randomBlock(rng, state, 5_000, 4_000));
  tree.releasePending();
  await tree.warmUpperLevels(first.root);
  const snapshot = new Map(state);
  const second = await commit(tree, kv, first.root, randomBlock(rng, state, 5_000, 200));
  // Reads of the first root start while the cache holds it; the update that follows moves it on.
  const keys = [...snapshot.keys()].slice(0, 100);
  const reads = keys.map((k) => tree.get(first.root, utf8(k)));
  const third = commit(tree, kv, second.root, randomBlock(rng, state, 5_000, 200));
  const values = await Promise.all(reads);
  keys.forEach((k, i) => assert.deepEqual(values[i], snapshot.get(k), k));
  assert.deepEqual((await third).root, modelRoot(state));
});
