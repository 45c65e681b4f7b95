import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sha3 } from '../../crypto/hash.js';
import { CorruptNodeError } from './errors.js';
import { internalHash, leafHash } from './hashing.js';
import { decodeNode, encodeNode, makeInternal, makeLeaf } from './node-codec.js';
import { utf8 } from './fixtures.js';

test('leaf and internal nodes round trip through their stored form', () => {
  const leaf = makeLeaf(sha3(utf8('k')), utf8('value'));
  assert.deepEqual(leaf.hash, leafHash(sha3(utf8('k')), sha3(utf8('value'))));
  const encodedLeaf = encodeNode(leaf);
  assert.equal(encodedLeaf[0], 0x00);
  assert.equal(encodedLeaf.length, 1 + 32 + 5);
  assert.deepEqual(decodeNode(encodedLeaf, leaf.hash), leaf);

  const emptyValueLeaf = makeLeaf(sha3(utf8('k')), new Uint8Array(0));
  assert.deepEqual(decodeNode(encodeNode(emptyValueLeaf), emptyValueLeaf.hash), emptyValueLeaf);

  const node = makeInternal(leaf.hash, new Uint8Array(32));
  assert.deepEqual(node.hash, internalHash(leaf.hash, new Uint8Array(32)));
  const encoded = encodeNode(node);
  assert.equal(encoded[0], 0x01);
  assert.equal(encoded.length, 65);
  assert.deepEqual(decodeNode(encoded, node.hash), node);
});

test('leaf and internal hashes are domain separated', () => {
  // Same 64 bytes after the tag: the tag alone must make them differ.
  const a = sha3(utf8('a'));
  const b = sha3(utf8('b'));
  assert.notDeepEqual(leafHash(a, b), internalHash(a, b));
});

test('damaged or foreign records are refused', () => {
  const leaf = makeLeaf(sha3(utf8('k')), utf8('v'));
  const node = makeInternal(leaf.hash, sha3(utf8('x')));
  const cases: Uint8Array[] = [
    new Uint8Array(0),
    Uint8Array.of(0x02, ...new Uint8Array(64)),
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
  const leaf = makeLeaf(sha3(utf8('k')), utf8('v'));
  const node = makeInternal(leaf.hash, sha3(utf8('x')));
  assert.deepEqual(decodeNode(encodeNode(leaf), leaf.hash, false), leaf);
  assert.deepEqual(decodeNode(encodeNode(node), node.hash, false), node);
  // The point of the option: a mismatch is not noticed, so it is only for trusted stores.
  assert.deepEqual(decodeNode(encodeNode(node), leaf.hash, false).hash, leaf.hash);
  assert.throws(() => decodeNode(Uint8Array.of(0x07), leaf.hash, false), CorruptNodeError);
});
