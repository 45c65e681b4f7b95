import { test } from 'node:test';
import assert from 'node:assert/strict';
import { WriteBatch } from '../kv.js';
import { EMPTY_ROOT, HASH_BYTES, bitAt, hashKey } from './hashing.js';
import { MemoryKv } from './memory-kv.js';
import { LEGACY_INTERNAL_TAG, INTERNAL_TAG, VERSION_BYTES, readVersion } from './node-codec.js';
import { Prng } from './prng.js';
import { verifyProof } from './proof.js';
import { StateTree, type StateChange, type StateTreeOptions } from './state-tree.js';
import { commit, hex, modelRoot, utf8 } from './fixtures.js';

/** Key layout under an empty prefix (node-keys.ts): 32 bytes legacy, 0xff ‖ version ‖ hash, 0xfe ‖ root. */
const VERSIONED_KEY_BYTES = 1 + VERSION_BYTES + HASH_BYTES;

/**
 * The store as a node before versions would have written it: each node under its hash alone,
 * internal nodes without their children's versions, no root records.
 */
function toLegacyLayout(kv: MemoryKv): MemoryKv {
  const legacy = new MemoryKv();
  for (const [keyHex, value] of kv.map) {
    const key = Buffer.from(keyHex, 'hex');
    if (key.length !== VERSIONED_KEY_BYTES) continue; // root records
    assert.equal(key[0], 0xff);
    const hash = key.subarray(1 + VERSION_BYTES);
    const record = value[0] === INTERNAL_TAG ? Uint8Array.of(LEGACY_INTERNAL_TAG, ...value.subarray(1, 1 + 2 * HASH_BYTES)) : value;
    legacy.map.set(hash.toString('hex'), record);
  }
  return legacy;
}

/** A tree under an empty prefix, so that the keys above are its whole keys. */
function treeOver(kv: MemoryKv, options: StateTreeOptions = {}): StateTree {
  return new StateTree(kv, { ...options, prefix: new Uint8Array(0) });
}

function randomChanges(prng: Prng, keys: number, count: number, deletes: boolean): StateChange[] {
  return Array.from({ length: count }, () => {
    const key = utf8(`k${prng.below(keys)}`);
    return deletes && prng.below(5) === 0 ? ([key, null] as const) : ([key, utf8(`v${prng.below(1_000_000)}`)] as const);
  });
}

function applyModel(state: Map<string, Uint8Array>, changes: readonly StateChange[]): void {
  for (const [key, value] of changes) {
    const name = new TextDecoder().decode(key);
    if (value === null) state.delete(name);
    else state.set(name, value);
  }
}

test('a data directory written before versions keeps its roots, reads and proofs, and updates go on from it', async () => {
  const prng = new Prng(40);
  const state = new Map<string, Uint8Array>();
  const kv = new MemoryKv();
  const writer = treeOver(kv);
  let root = EMPTY_ROOT;
  for (let block = 0; block < 6; block++) {
    const changes = randomChanges(prng, 400, 120, block > 0);
    root = (await commit(writer, kv, root, changes)).root;
    applyModel(state, changes);
  }
  assert.deepEqual(root, modelRoot(state));

  const legacy = toLegacyLayout(kv);
  const old = treeOver(legacy, { upperLevelsBytes: 0 });
  for (const [name, value] of [...state].slice(0, 60)) {
    assert.deepEqual(await old.get(root, utf8(name)), value);
    assert.ok(verifyProof(root, utf8(name), value, await old.prove(root, utf8(name))));
  }
  assert.equal(await old.get(root, utf8('absent')), undefined);

  // Blocks from the legacy root: the same roots as on the versioned store, the new nodes versioned
  // and naming legacy children (version 0) where the path was not rewritten.
  const upgraded = treeOver(legacy);
  let legacyRoot = root;
  for (let block = 0; block < 5; block++) {
    const changes = randomChanges(prng, 500, 80, true);
    const batch = new WriteBatch();
    const next = await upgraded.update(legacyRoot, changes, batch);
    const same = await commit(writer, kv, root, changes);
    assert.deepEqual(next, same.root);
    for (const op of batch.ops) assert.ok(op.type === 'put' && (op.key.length === VERSIONED_KEY_BYTES || op.key[0] === 0xfe));
    legacy.apply(batch);
    legacyRoot = next;
    root = same.root;
    applyModel(state, changes);
  }
  assert.deepEqual(legacyRoot, modelRoot(state));
  // A fresh process over the mixed store: every key and proof, through legacy and versioned nodes.
  const fresh = treeOver(legacy, { cacheNodes: 0, upperLevelsBytes: 0 });
  for (const [name, value] of state) assert.deepEqual(await fresh.get(legacyRoot, utf8(name)), value);
  const some = [...state][7]!;
  assert.ok(verifyProof(legacyRoot, utf8(some[0]), some[1], await fresh.prove(legacyRoot, utf8(some[0]))));
});

test('each update stores its nodes after the previous one in key order, and its root record names them', async () => {
  const prng = new Prng(41);
  const kv = new MemoryKv();
  const tree = treeOver(kv);
  let root = EMPTY_ROOT;
  let previous = '';
  for (let block = 1; block <= 8; block++) {
    const batch = new WriteBatch();
    root = await tree.update(root, randomChanges(prng, 300, 50, block > 1), batch);
    kv.apply(batch);
    const nodeKeys = batch.ops.filter((op) => op.key.length === VERSIONED_KEY_BYTES).map((op) => Buffer.from(op.key).toString('hex'));
    assert.ok(nodeKeys.length > 0);
    for (const key of nodeKeys) {
      assert.equal(readVersion(Buffer.from(key, 'hex'), 1), block);
      assert.ok(key > previous, 'a later update sorts after every key of an earlier one');
    }
    previous = nodeKeys.sort().at(-1)!;
    const records = batch.ops.filter((op) => op.key[0] === 0xfe);
    assert.equal(records.length, 1);
    assert.deepEqual(records[0]!.key.subarray(1), root);
  }
  // A restarted node finds the head's record and numbers its next update after it.
  const restarted = treeOver(kv);
  const batch = new WriteBatch();
  await restarted.update(root, [[utf8('after restart'), utf8('1')]], batch);
  const versions = batch.ops.filter((op) => op.key.length === VERSIONED_KEY_BYTES).map((op) => readVersion(op.key, 1));
  assert.deepEqual([...new Set(versions)], [9]);
});

test('updates whose batches are dropped never stand in for written ones', async () => {
  const prng = new Prng(42);
  const kv = new MemoryKv();
  const tree = treeOver(kv);
  const state = new Map<string, Uint8Array>();
  const initial = randomChanges(prng, 3000, 3000, false);
  let head = (await commit(tree, kv, EMPTY_ROOT, initial)).root;
  applyModel(state, initial);
  tree.releasePending();
  const history: Array<{ root: Uint8Array; state: Map<string, Uint8Array> }> = [{ root: head, state: new Map(state) }];
  let last: StateChange[] = [];
  for (let height = 0; height < 60; height++) {
    // Proposals that do not commit: random ones, ones built on another dropped proposal, and ones
    // that undo the last block (their root is an older written root, their nodes never written).
    for (let dropped = prng.below(3); dropped > 0; dropped--) {
      const undo = last.map(([key]): StateChange => [key, history.at(-2)?.state.get(new TextDecoder().decode(key)) ?? null]);
      const changes = prng.below(2) === 0 && undo.length > 0 ? undo : randomChanges(prng, 3000, 1 + prng.below(6), true);
      const side = await tree.update(head, changes, new WriteBatch());
      await tree.update(side, randomChanges(prng, 3000, 3, true), new WriteBatch());
    }
    const changes = randomChanges(prng, 3000, 1 + prng.below(6), true);
    const batch = new WriteBatch();
    head = await tree.update(head, changes, batch);
    applyModel(state, changes);
    assert.deepEqual(head, modelRoot(state));
    kv.apply(batch);
    tree.releasePending();
    history.push({ root: head, state: new Map(state) });
    last = changes;
    // Every written root reads in this process and in a fresh one, old heights included.
    const fresh = treeOver(kv, { cacheNodes: 0, upperLevelsBytes: 0 });
    const old = history[prng.below(history.length)]!;
    for (let i = 0; i < 3000; i += 97) {
      const key = utf8(`k${i}`);
      const expected = old.state.get(`k${i}`);
      assert.deepEqual(await tree.get(old.root, key), expected);
      assert.deepEqual(await fresh.get(old.root, key), expected);
    }
  }
});

test('two updates from different roots that make the same node: only the written one is built upon', async () => {
  // The review's case: a dropped proposal r1b and the written r1 lead, one block later, to the same
  // root; nodes made on r1b's lineage (deep below two keys that share a long prefix) must not lend
  // their never-written children to the written lineage.
  const kv = new MemoryKv();
  const tree = treeOver(kv);
  const n = 5000;
  const hashes = Array.from({ length: n }, (_, i) => hashKey(utf8(`k${i}`)));
  let [a, b, longest] = [0, 1, -1];
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < Math.min(n, i + 400); j++) {
      let bits = 0;
      while (bits < 256 && bitAt(hashes[i]!, bits) === bitAt(hashes[j]!, bits)) bits++;
      if (bits > longest) [a, b, longest] = [i, j, bits];
    }
  }
  const init: StateChange[] = Array.from({ length: n }, (_, i) => [utf8(`k${i}`), utf8(`v${i}`)]);
  const r0 = (await commit(tree, kv, EMPTY_ROOT, init)).root;
  tree.releasePending();
  const r1 = (await commit(tree, kv, r0, [[utf8('z'), utf8('1')]])).root;
  const r1b = await tree.update(r0, [[utf8('z'), utf8('1')], [utf8(`k${a}`), utf8('other')]], new WriteBatch());
  const fromDropped = await tree.update(r1b, [[utf8(`k${a}`), utf8(`v${a}`)], [utf8(`k${b}`), utf8('B')]], new WriteBatch());
  const fromWritten = (await commit(tree, kv, r1, [[utf8(`k${b}`), utf8('B')]])).root;
  assert.deepEqual(fromDropped, fromWritten);
  const head = (await commit(tree, kv, fromWritten, [[utf8(`k${b}`), utf8('C')]])).root;
  tree.releasePending();
  const fresh = treeOver(kv, { cacheNodes: 0, upperLevelsBytes: 0 });
  assert.deepEqual(await fresh.get(head, utf8(`k${a}`)), utf8(`v${a}`));
  assert.deepEqual(await fresh.get(head, utf8(`k${b}`)), utf8('C'));
  for (let i = 0; i < n; i += 13) if (i !== b) assert.deepEqual(await fresh.get(head, utf8(`k${i}`)), utf8(`v${i}`));
});

test('a tree left with one key: its root is the old leaf, stored where it was, and the next update numbers after the last', async () => {
  const kv = new MemoryKv();
  const tree = treeOver(kv);
  let { root } = await commit(tree, kv, EMPTY_ROOT, [[utf8('a'), utf8('1')]]);
  root = (await commit(tree, kv, root, [[utf8('b'), utf8('2')]])).root;
  root = (await commit(tree, kv, root, [[utf8('c'), utf8('3')]])).root;
  const batch = new WriteBatch();
  root = await tree.update(root, [[utf8('b'), null], [utf8('c'), null]], batch);
  kv.apply(batch);
  // The root is a's leaf from update 1; its record says so, and that update 4 made the root.
  const record = batch.ops.find((op) => op.key[0] === 0xfe)!;
  assert.ok(record.type === 'put');
  assert.deepEqual([readVersion(record.value, 0), readVersion(record.value, VERSION_BYTES)], [1, 4]);
  const fresh = treeOver(kv, { cacheNodes: 0 });
  assert.deepEqual(await fresh.get(root, utf8('a')), utf8('1'));
  const next = new WriteBatch();
  await fresh.update(root, [[utf8('d'), utf8('4')]], next);
  assert.deepEqual([...new Set(next.ops.filter((op) => op.key.length === VERSIONED_KEY_BYTES).map((op) => readVersion(op.key, 1)))], [5]);
});

test('a bulk build stores its tree at version 1 with a root record, and updates go on from it', async () => {
  const kv = new MemoryKv();
  const tree = treeOver(kv);
  const build = tree.bulkBuild(64);
  const staged = new WriteBatch();
  for (let i = 0; i < 50; i++) build.add(utf8(`k${i}`), utf8(`v${i}`), staged);
  kv.apply(staged);
  const root = await build.finish(async (ops) => {
    const batch = new WriteBatch();
    for (const op of ops) if (op.type === 'put') batch.put(op.key, op.value);
    kv.apply(batch);
  });
  const fresh = treeOver(kv, { cacheNodes: 0 });
  assert.deepEqual(await fresh.get(root, utf8('k9')), utf8('v9'));
  const batch = new WriteBatch();
  await fresh.update(root, [[utf8('k9'), utf8('x')]], batch);
  assert.deepEqual([...new Set(batch.ops.filter((op) => op.key.length === VERSIONED_KEY_BYTES).map((op) => readVersion(op.key, 1)))], [2]);
});
