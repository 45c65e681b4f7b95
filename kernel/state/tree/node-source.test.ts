import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryKv } from './memory-kv.js';
import { NodeSource } from './node-source.js';
import type { TreeNode } from './node-codec.js';

/** A leaf-shaped node with a chosen hash (NodeSource never rehashes what an update hands it). */
function nodeWithHash(first: number, last: number): TreeNode {
  const hash = new Uint8Array(32);
  hash.fill(first, 0, 6);
  hash[31] = last;
  return { kind: 'leaf', hash, keyHash: new Uint8Array(32), value: Uint8Array.of(last) };
}

test('pending nodes whose hashes share the 48-bit id are both found, and dropped by generation', async () => {
  // No LRU, so only the pending set can answer; a budget of 2 keeps the newest generation whole.
  const source = new NodeSource(new MemoryKv(), new Uint8Array(0), 0, 2, true);
  const a = nodeWithHash(7, 1);
  const b = nodeWithHash(7, 2);
  const c = nodeWithHash(9, 3);
  source.addGeneration([a]);
  source.addGeneration([b]);
  assert.equal(source.inMemory(a.hash), a);
  assert.equal(source.inMemory(b.hash), b);
  assert.equal(source.pendingSize, 2);
  // b again in a newer generation, with c: over budget, the oldest generation (a alone) goes, b stays.
  source.addGeneration([b, c]);
  assert.equal(source.inMemory(a.hash), undefined);
  assert.equal(source.inMemory(b.hash), b);
  assert.equal(source.inMemory(c.hash), c);
  assert.equal(source.pendingSize, 2);
  // a comes back into the free id while b sits beside it under the same id; over budget again,
  // the two older generations go: b (found beside a, not under its id) with c.
  source.addGeneration([a]);
  assert.equal(source.inMemory(a.hash), a);
  assert.equal(source.inMemory(b.hash), undefined);
  assert.equal(source.inMemory(c.hash), undefined);
  assert.equal(source.pendingSize, 1);
  source.addGeneration([b]);
  assert.equal(source.inMemory(b.hash), b);
  source.releasePending();
  assert.equal(source.inMemory(a.hash), undefined);
  assert.equal(source.inMemory(b.hash), undefined);
  assert.equal(source.pendingSize, 0);
});

test('a pending node beside an id whose first owner was dropped is still found', async () => {
  // Budget 1: adding b drops a's generation, so the id map empties while b sits in the clash map.
  const source = new NodeSource(new MemoryKv(), new Uint8Array(0), 0, 1, true);
  const a = nodeWithHash(7, 1);
  const b = nodeWithHash(7, 2);
  source.addGeneration([a]);
  source.addGeneration([b]);
  assert.equal(source.pendingSize, 1);
  assert.equal(source.inMemory(a.hash), undefined);
  assert.equal(source.inMemory(b.hash), b);
  assert.equal(await source.load(b.hash), b);
});
