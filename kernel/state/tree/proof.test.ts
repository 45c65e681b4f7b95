import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isChainError } from '../../errors.js';
import { sha3 } from '../../crypto/hash.js';
import { toHex0x } from '../../codec/hex.js';
import { EMPTY_ROOT, bitAt, internalHash, leafHash } from './hashing.js';
import { MemoryKv } from './memory-kv.js';
import { Prng } from './prng.js';
import { parseStateProof, stateProofFromJson, stateProofToJson, verifyProof, type StateProof } from './proof.js';
import { StateTree } from './state-tree.js';
import { commit, utf8 } from './fixtures.js';

const ZERO = '0x' + '00'.repeat(32);

async function fixture(count: number, seed: number): Promise<{ tree: StateTree; root: Uint8Array; values: Map<string, Uint8Array> }> {
  const rng = new Prng(seed);
  const kv = new MemoryKv();
  const tree = new StateTree(kv);
  const values = new Map<string, Uint8Array>();
  for (let i = 0; i < count; i++) values.set(`key/${i}`, rng.bytes(1 + rng.below(20)));
  const { root } = await commit(tree, kv, EMPTY_ROOT, [...values].map(([k, v]) => [utf8(k), v] as const));
  return { tree, root, values };
}

/** Flips one hex digit of a 0x hash, keeping it well formed. */
function flip(hash: string, at = 10): string {
  const c = hash[at] === '0' ? '1' : '0';
  return hash.slice(0, at) + c + hash.slice(at + 1);
}

test('membership proofs verify for every key, and only for the right value and root', async () => {
  const { tree, root, values } = await fixture(300, 1);
  for (const [key, value] of values) {
    const proof = await tree.prove(root, utf8(key));
    assert.ok(verifyProof(root, utf8(key), value, proof), key);
    assert.ok(!verifyProof(root, utf8(key), null, proof), `${key} claimed absent`);
    assert.ok(!verifyProof(root, utf8(key), Uint8Array.of(...value, 0), proof), `${key} wrong value`);
    assert.ok(!verifyProof(root, utf8(key + 'x'), value, proof), `${key} other key`);
  }
  const [key, value] = [...values][17]!;
  const proof = await tree.prove(root, utf8(key));
  const wrongRoot = root.slice();
  wrongRoot[0] = (wrongRoot[0] ?? 0) ^ 1;
  assert.ok(!verifyProof(wrongRoot, utf8(key), value, proof));
  assert.ok(!verifyProof(EMPTY_ROOT, utf8(key), value, proof));
  assert.ok(proof.siblings.length > 0);
  for (let i = 0; i < proof.siblings.length; i++) {
    const siblings = proof.siblings.map((s, j) => (j === i ? flip(s) : s));
    assert.ok(!verifyProof(root, utf8(key), value, { ...proof, siblings }), `sibling ${i} tampered`);
  }
  assert.ok(!verifyProof(root, utf8(key), value, { ...proof, siblings: proof.siblings.slice(1) }));
  assert.ok(!verifyProof(root, utf8(key), value, { ...proof, siblings: proof.siblings.slice(0, -1) }));
  assert.ok(!verifyProof(root, utf8(key), value, { ...proof, siblings: [...proof.siblings, ZERO] }));
  assert.ok(!verifyProof(root, utf8(key), value, { ...proof, siblings: [ZERO, ...proof.siblings] }));
  const leaf = proof.leaf!;
  assert.ok(!verifyProof(root, utf8(key), value, { ...proof, leaf: { ...leaf, valueHash: flip(leaf.valueHash) } }));
  assert.ok(!verifyProof(root, utf8(key), value, { ...proof, leaf: null }));
});

test('non-membership proofs verify (ending at another leaf or at an empty subtree) and cannot be forged', async () => {
  const { tree, root, values } = await fixture(300, 2);
  let endsAtLeaf = 0;
  let endsAtEmpty = 0;
  for (let i = 0; i < 300; i++) {
    const key = utf8(`absent/${i}`);
    const proof = await tree.prove(root, key);
    assert.ok(verifyProof(root, key, null, proof), `absent/${i}`);
    assert.ok(!verifyProof(root, key, utf8('anything'), proof));
    if (proof.leaf === null) endsAtEmpty++;
    else endsAtLeaf++;
  }
  assert.ok(endsAtLeaf > 0 && endsAtEmpty > 0, `leaf ${endsAtLeaf}, empty ${endsAtEmpty}`);

  // A present key cannot be shown absent with a proof made for some other key.
  const present = [...values.keys()];
  for (let i = 0; i < 50; i++) {
    const a = utf8(present[i]!);
    const b = utf8(present[i + 50]!);
    assert.ok(!verifyProof(root, a, null, await tree.prove(root, b)));
    assert.ok(!verifyProof(root, a, null, await tree.prove(root, utf8(`absent/${i}`))));
  }
  // Proofs are unique per (root, key): another absent key accepts a proof exactly when its own
  // proof is the same one (its path ends at the same leaf or empty subtree).
  let shared = 0;
  for (let i = 0; i < 100; i++) {
    const proof = await tree.prove(root, utf8(`absent/${i}`));
    for (const j of [i + 100, i + 200]) {
      const other = utf8(`absent/${j}`);
      const same = JSON.stringify(await tree.prove(root, other)) === JSON.stringify(proof);
      if (same) shared++;
      assert.equal(verifyProof(root, other, null, proof), same, `absent/${i} vs absent/${j}`);
    }
  }
  assert.ok(shared < 20, `${shared} shared proofs`);
});

test('a leaf off the key path cannot stand in as the "other leaf" of a non-membership proof', () => {
  // A hand-made (non-canonical) root whose left child is a leaf that belongs on the right. Folding
  // alone would accept it for any key going left; the prefix check refuses it.
  const keys = Array.from({ length: 64 }, (_, i) => utf8(`k${i}`));
  const goesLeft = keys.find((k) => bitAt(sha3(k), 0) === 0)!;
  const belongsRight = keys.find((k) => bitAt(sha3(k), 0) === 1)!;
  const leafKeyHash = sha3(belongsRight);
  const valueHash = sha3(utf8('v'));
  const other = sha3(utf8('some subtree'));
  const root = internalHash(leafHash(leafKeyHash, valueHash), other);
  const proof: StateProof = { leaf: { keyHash: toHex0x(leafKeyHash), valueHash: toHex0x(valueHash) }, siblings: [toHex0x(other)] };
  assert.equal(verifyProof(root, goesLeft, null, proof), false);
});

test('proofs of shapes a canonical tree never has are refused', () => {
  // A lone leaf under an internal node with an empty sibling would sit one level up, and an
  // internal node with two empty children is just the empty subtree: refusing both keeps one
  // proof per (root, key).
  const key = utf8('k');
  const keyHash = sha3(key);
  const valueHash = sha3(utf8('v'));
  const lone = leafHash(keyHash, valueHash);
  const zero = new Uint8Array(32);
  const leafFirst = bitAt(keyHash, 0) === 0;
  const root = leafFirst ? internalHash(lone, zero) : internalHash(zero, lone);
  const proof: StateProof = { leaf: { keyHash: toHex0x(keyHash), valueHash: toHex0x(valueHash) }, siblings: [ZERO] };
  assert.equal(verifyProof(root, key, utf8('v'), proof), false);
  assert.equal(verifyProof(internalHash(zero, zero), key, null, { leaf: null, siblings: [ZERO] }), false);
});

test('proofs on the empty tree and on a one-leaf tree', async () => {
  const kv = new MemoryKv();
  const tree = new StateTree(kv);
  const emptyProof = await tree.prove(EMPTY_ROOT, utf8('a'));
  assert.deepEqual(emptyProof, { leaf: null, siblings: [] });
  assert.ok(verifyProof(EMPTY_ROOT, utf8('a'), null, emptyProof));
  assert.ok(!verifyProof(EMPTY_ROOT, utf8('a'), utf8('1'), emptyProof));

  const { root } = await commit(tree, kv, EMPTY_ROOT, [[utf8('a'), utf8('1')]]);
  assert.ok(!verifyProof(root, utf8('a'), null, emptyProof));
  const member = await tree.prove(root, utf8('a'));
  assert.equal(member.siblings.length, 0);
  assert.ok(verifyProof(root, utf8('a'), utf8('1'), member));
  const absent = await tree.prove(root, utf8('b'));
  assert.ok(verifyProof(root, utf8('b'), null, absent));
  assert.ok(!verifyProof(root, utf8('a'), null, absent));
});

test('proof JSON round trip', async () => {
  const { tree, root, values } = await fixture(100, 4);
  for (const key of ['key/5', 'absent/1', 'absent/2', 'absent/3']) {
    const proof = await tree.prove(root, utf8(key));
    const json = stateProofToJson(proof);
    const back = stateProofFromJson(json);
    assert.deepEqual(back, proof);
    assert.equal(stateProofToJson(back), json);
    // The proof is plain JSON data already: JSON.stringify gives the same wire form.
    assert.equal(JSON.stringify(proof), json);
    assert.ok(verifyProof(root, utf8(key), values.get(key) ?? null, back));
  }
  const sample = JSON.parse(stateProofToJson(await tree.prove(root, utf8('key/5')))) as Record<string, unknown>;
  assert.deepEqual(Object.keys(sample), ['leaf', 'siblings']);
});

test('malformed proofs are rejected with a 400, and never verify', async () => {
  const { tree, root, values } = await fixture(20, 5);
  const good = await tree.prove(root, utf8('key/1'));
  const h = good.siblings[0]!;
  const leaf = good.leaf!;
  const bad: unknown[] = [
    null,
    42,
    'proof',
    [],
    {},
    { siblings: [] },
    { leaf: null },
    { leaf: null, siblings: [], extra: 1 },
    { leaf: null, siblings: 'abc' },
    { leaf: null, siblings: [h.slice(2)] },
    { leaf: null, siblings: [h.toUpperCase().replace('0X', '0x')] },
    { leaf: null, siblings: [h.slice(0, -2)] },
    { leaf: null, siblings: [h + '00'] },
    { leaf: null, siblings: [1] },
    { leaf: null, siblings: [null] },
    { leaf: null, siblings: Array.from({ length: 257 }, () => h) },
    { leaf: 'x', siblings: [] },
    { leaf: [], siblings: [] },
    { leaf: { keyHash: leaf.keyHash }, siblings: [] },
    { leaf: { ...leaf, extra: h }, siblings: [] },
    { leaf: { keyHash: leaf.keyHash, valueHash: 'zz' }, siblings: [] },
  ];
  for (const value of bad) {
    assert.throws(
      () => parseStateProof(value),
      (e: unknown) => isChainError(e) && e.status === 400,
      JSON.stringify(value)?.slice(0, 80),
    );
    assert.throws(() => stateProofFromJson(JSON.stringify(value) ?? 'undefined'), (e: unknown) => isChainError(e) && e.status === 400);
    assert.equal(verifyProof(root, utf8('key/1'), values.get('key/1')!, value as StateProof), false);
  }
  for (const text of ['', '{', 'nul', '{"leaf":null,"siblings":[]', '\u0000']) {
    assert.throws(() => stateProofFromJson(text), (e: unknown) => isChainError(e) && e.status === 400);
  }
  // Exactly 256 siblings is the deepest legal path, so the shape check accepts it.
  assert.doesNotThrow(() => parseStateProof({ leaf: null, siblings: Array.from({ length: 256 }, () => h) }));
  // verifyProof also refuses wrong-sized roots instead of throwing.
  assert.equal(verifyProof(root.slice(1), utf8('key/1'), values.get('key/1')!, good), false);
});
