import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryKv } from './memory-kv.js';
import { NodeKeys } from './node-keys.js';
import { NodeSource } from './node-source.js';
import type { TreeNode } from './node-codec.js';

/** A leaf-shaped node with a chosen hash (NodeSource never rehashes what an update hands it). */
function nodeWithHash(first: number, last: number, version = 3): TreeNode {
  const hash = new Uint8Array(32);
  hash.fill(first, 0, 6);
  hash[31] = last;
  return { kind: 'leaf', hash, version, keyHash: new Uint8Array(32), value: Uint8Array.of(last) };
}

test('pending nodes whose hashes share the 32-bit id are both found, and dropped by generation', async () => {
  // No LRU, so only the pending set can answer; a budget of 2 keeps the newest generation whole.
  const source = new NodeSource(new MemoryKv(), new NodeKeys(new Uint8Array(0)), 0, 2, true);
  const a = nodeWithHash(7, 1);
  const b = nodeWithHash(7, 2);
  const c = nodeWithHash(9, 3);
  source.addGeneration([a]);
  source.addGeneration([b]);
  assert.equal(source.inMemory(a.hash, a.version), a);
  assert.equal(source.inMemory(b.hash, b.version), b);
  assert.equal(source.pendingSize, 2);
  // b again in a newer generation, with c: over budget, the oldest generation (a alone) goes, b stays.
  source.addGeneration([b, c]);
  assert.equal(source.inMemory(a.hash, a.version), undefined);
  assert.equal(source.inMemory(b.hash, b.version), b);
  assert.equal(source.inMemory(c.hash, c.version), c);
  assert.equal(source.pendingSize, 2);
  // a comes back into the free id while b sits beside it under the same id; over budget again,
  // the two older generations go: b (found beside a, not under its id) with c.
  source.addGeneration([a]);
  assert.equal(source.inMemory(a.hash, a.version), a);
  assert.equal(source.inMemory(b.hash, b.version), undefined);
  assert.equal(source.inMemory(c.hash, c.version), undefined);
  assert.equal(source.pendingSize, 1);
  source.addGeneration([b]);
  assert.equal(source.inMemory(b.hash, b.version), b);
  source.releasePending();
  assert.equal(source.inMemory(a.hash, a.version), undefined);
  assert.equal(source.inMemory(b.hash, b.version), undefined);
  assert.equal(source.pendingSize, 0);
});

test('a pending node beside an id whose first owner was dropped is still found', async () => {
  // Budget 1: adding b drops a's generation, so the id map empties while b sits in the clash map.
  const source = new NodeSource(new MemoryKv(), new NodeKeys(new Uint8Array(0)), 0, 1, true);
  const a = nodeWithHash(7, 1);
  const b = nodeWithHash(7, 2);
  source.addGeneration([a]);
  source.addGeneration([b]);
  assert.equal(source.pendingSize, 1);
  assert.equal(source.inMemory(a.hash, a.version), undefined);
  assert.equal(source.inMemory(b.hash, b.version), b);
  assert.equal(await source.load(b.hash, b.version), b);
});

test('memory answers a node only at the version it was made for', async () => {
  // Two updates that made one node (same hash) may name different places for its children, one of
  // them perhaps never written: a lookup must find the object of the very record it asks for.
  const kv = new MemoryKv();
  const source = new NodeSource(kv, new NodeKeys(new Uint8Array(0)), 10, 10, true);
  const older = nodeWithHash(5, 1, 2);
  const newer = nodeWithHash(5, 1, 4);
  source.addGeneration([newer]);
  assert.equal(source.inMemory(newer.hash, 4), newer);
  assert.equal(source.inMemory(older.hash, 2), undefined);
  source.addGeneration([older]);
  assert.equal(source.inMemory(older.hash, 2), older);
  assert.equal(source.inMemory(newer.hash, 4), newer);
  source.releasePending();
  // The LRU holds one object per id: the other version is a miss, then a store read.
  assert.equal(source.inMemory(newer.hash, 4), undefined);
  assert.equal(source.inMemory(older.hash, 2), older);
  await assert.rejects(source.load(newer.hash, 4), /at version 4/);
});
