import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WriteBatch, type KvOp } from '../kv.js';
import { EMPTY_ROOT } from './hashing.js';
import { hex, modelRoot, toChanges, utf8 } from './fixtures.js';
import { MemoryKv } from './memory-kv.js';
import { Prng } from './prng.js';
import { StateTree } from './state-tree.js';

/** Builds `adds` (in order, duplicates allowed) with a bulk build into a fresh store. */
async function bulk(adds: ReadonlyArray<readonly [string, Uint8Array]>, every?: number): Promise<{ root: Uint8Array; kv: MemoryKv; writes: number[] }> {
  const kv = new MemoryKv();
  const tree = new StateTree(kv);
  // Sized below what is added, so the arrays must grow.
  const build = tree.bulkBuild(3);
  const leaves = new WriteBatch();
  for (const [key, value] of adds) build.add(utf8(key), value, leaves);
  kv.apply(leaves);
  const writes: number[] = [];
  const root = await build.finish(async (ops: readonly KvOp[]) => {
    writes.push(ops.length);
    const batch = new WriteBatch();
    for (const op of ops) if (op.type === 'put') batch.put(op.key, op.value);
    kv.apply(batch);
  }, every);
  return { root, kv, writes };
}

function randomState(prng: Prng, size: number): Map<string, Uint8Array> {
  const state = new Map<string, Uint8Array>();
  while (state.size < size) state.set(`k/${prng.nextU32()}`, prng.bytes(1 + prng.below(40)));
  return state;
}

test('a bulk build reaches the root of the definition and of updates in chunks, for small and random key sets', async () => {
  const prng = new Prng(40);
  for (const size of [0, 1, 2, 3, 5, 17, 256, 3000]) {
    const state = randomState(prng, size);
    const entries = prng.shuffled([...state]);
    const { root } = await bulk(entries);
    assert.equal(hex(root), hex(modelRoot(state)), `model, ${size} keys`);
    // The chunked path the genesis writer used before: updates of 7 keys from the previous root.
    const kv = new MemoryKv();
    const tree = new StateTree(kv);
    let chunked = EMPTY_ROOT;
    for (let i = 0; i < entries.length; i += 7) {
      const batch = new WriteBatch();
      chunked = await tree.update(chunked, toChanges(new Map(entries.slice(i, i + 7))), batch);
      kv.apply(batch);
    }
    assert.equal(hex(root), hex(chunked), `chunked updates, ${size} keys`);
  }
});

test('a bulk-built store serves every key, proofs and later updates as an updated one does', async () => {
  const prng = new Prng(7);
  const state = randomState(prng, 2000);
  const { root, kv } = await bulk([...state]);
  const tree = new StateTree(kv, { cacheNodes: 0, upperLevelsBytes: 0 });
  for (const [key, value] of [...state].slice(0, 200)) assert.deepEqual(await tree.get(root, utf8(key)), value);
  assert.equal(await tree.get(root, utf8('absent')), undefined);
  // An update on top reads the bulk-built nodes: any missing one would throw MissingNodeError.
  const changes = new Map<string, Uint8Array | null>([...state].slice(0, 300).map(([k], i) => [k, i % 3 === 0 ? null : utf8(`v${i}`)]));
  const batch = new WriteBatch();
  const next = await tree.update(root, toChanges(changes), batch);
  for (const [k, v] of changes) {
    if (v === null) state.delete(k);
    else state.set(k, v);
  }
  assert.equal(hex(next), hex(modelRoot(state)));
});

test('a key added twice keeps its last value, as an update does', async () => {
  const { root } = await bulk([['a', utf8('1')], ['b', utf8('2')], ['a', utf8('3')], ['c', utf8('4')], ['b', utf8('5')]]);
  assert.equal(hex(root), hex(modelRoot(new Map([['a', utf8('3')], ['b', utf8('5')], ['c', utf8('4')]]))));
});

test('a bulk build hands its internal nodes over in writes of at most `every`, one per node, reading nothing', async () => {
  const prng = new Prng(3);
  const state = randomState(prng, 5000);
  const { root, kv, writes } = await bulk([...state], 100);
  assert.ok(writes.length > 1);
  assert.ok(writes.every((n) => n > 0 && n <= 100), `write sizes ${writes.join(',')}`);
  // Each internal node is emitted once: exactly the internal nodes one update of the whole set writes.
  const internal = writes.reduce((a, b) => a + b, 0);
  const once = new WriteBatch();
  await new StateTree(new MemoryKv()).update(EMPTY_ROOT, toChanges(state), once);
  assert.equal(internal, once.ops.length - 5000);
  assert.equal(kv.size, 5000 + internal);
  assert.equal(kv.reads, 0);
  assert.equal(hex(root), hex(modelRoot(state)));
});

test('a finished bulk build refuses more keys and a second finish', async () => {
  const tree = new StateTree(new MemoryKv());
  const build = tree.bulkBuild();
  build.add(utf8('a'), utf8('1'), new WriteBatch());
  await build.finish(async () => undefined);
  assert.throws(() => build.add(utf8('b'), utf8('2'), new WriteBatch()), /finished/);
  await assert.rejects(build.finish(async () => undefined), /finished/);
});
