import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sha3 } from '../../crypto/hash.js';
import { CorruptNodeError } from './errors.js';
import { internalHash, leafHash } from './hashing.js';
import { decodeNode, encodeNode, makeInternal, makeLeaf, readVersion, writeVersion } from './node-codec.js';
import { utf8 } from './fixtures.js';

test('leaf and internal nodes round trip through their stored form', () => {
  const leaf = makeLeaf(sha3(utf8('k')), utf8('value'), 0);
  assert.deepEqual(leaf.hash, leafHash(sha3(utf8('k')), sha3(utf8('value'))));
  const encodedLeaf = encodeNode(leaf);
  assert.equal(encodedLeaf[0], 0x00);
  assert.equal(encodedLeaf.length, 1 + 32 + 5);
  assert.deepEqual(decodeNode(encodedLeaf, leaf.hash), leaf);

  const emptyValueLeaf = makeLeaf(sha3(utf8('k')), new Uint8Array(0), 0);
  assert.deepEqual(decodeNode(encodeNode(emptyValueLeaf), emptyValueLeaf.hash), emptyValueLeaf);

  const node = makeInternal(leaf.hash, 3, new Uint8Array(32), 0, 7);
  assert.deepEqual(node.hash, internalHash(leaf.hash, new Uint8Array(32)));
  const encoded = encodeNode(node);
  assert.equal(encoded[0], 0x02);
  assert.equal(encoded.length, 77);
  assert.deepEqual(decodeNode(encoded, node.hash, true, 7), node);

  // A record from before versions: the children are keyed by hash alone (version 0).
  const legacy = Uint8Array.of(0x01, ...encoded.subarray(1, 65));
  assert.deepEqual(decodeNode(legacy, node.hash), { ...node, version: 0, leftVersion: 0, rightVersion: 0 });
});

test('versions are 48-bit big-endian, so keys sort by version', () => {
  const out = new Uint8Array(6);
  for (const v of [0, 1, 255, 256, 2 ** 24 - 1, 2 ** 24, 2 ** 40 + 12345, 2 ** 48 - 1]) {
    writeVersion(out, 0, v);
    assert.equal(readVersion(out, 0), v);
  }
  writeVersion(out, 0, 2 ** 24 + 1);
  assert.deepEqual([...out], [0, 0, 1, 0, 0, 1]);
});

test('leaf and internal hashes are domain separated', () => {
  // Same 64 bytes after the tag: the tag alone must make them differ.
  const a = sha3(utf8('a'));
  const b = sha3(utf8('b'));
  assert.notDeepEqual(leafHash(a, b), internalHash(a, b));
});

test('damaged or foreign records are refused', () => {
  const leaf = makeLeaf(sha3(utf8('k')), utf8('v'), 0);
  const node = makeInternal(leaf.hash, 0, sha3(utf8('x')), 0, 1);
  const cases: Uint8Array[] = [
    new Uint8Array(0),
    Uint8Array.of(0x02, ...new Uint8Array(64)),
    Uint8Array.of(0x03, ...new Uint8Array(76)),
    Uint8Array.of(0x02, ...new Uint8Array(75)),
    Uint8Array.of(0x00, ...new Uint8Array(31)),
    Uint8Array.of(0x01, ...new Uint8Array(63)),
    Uint8Array.of(0x01, ...new Uint8Array(65)),
    Uint8Array.of(0x01, ...new Uint8Array(64)),
  ];
  for (const bytes of cases) assert.throws(() => decodeNode(bytes), CorruptNodeError);
  // Well formed, but not the node that was asked for.
  assert.throws(() => decodeNode(encodeNode(leaf), node.hash), CorruptNodeError);
  assert.throws(() => decodeNode(encodeNode(node), leaf.hash), CorruptNodeError);
});

test('with verify off the address is trusted and nothing is rehashed but the value', () => {
  const leaf = makeLeaf(sha3(utf8('k')), utf8('v'), 0);
  const node = makeInternal(leaf.hash, 0, sha3(utf8('x')), 0, 1);
  assert.deepEqual(decodeNode(encodeNode(leaf), leaf.hash, false), leaf);
  assert.deepEqual(decodeNode(encodeNode(node), node.hash, false, 1), node);
  // The point of the option: a mismatch is not noticed, so it is only for trusted stores.
  assert.deepEqual(decodeNode(encodeNode(node), leaf.hash, false).hash, leaf.hash);
  assert.throws(() => decodeNode(Uint8Array.of(0x07), leaf.hash, false), CorruptNodeError);
});
