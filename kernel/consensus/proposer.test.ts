import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { toHex } from '../codec/hex.js';
import { canonicalOrder, proposerDigest, selectProposer, selectProposerIndex, u64be, type WeightedAddress } from './proposer.js';
import { ValidatorSet } from './validator-set.js';

const SETS: Record<string, WeightedAddress[]> = {
  A: [
    { address: 'chain:alice.node', power: 1000000n },
    { address: 'chain:bob.node', power: 1000000n },
    { address: 'chain:carol.node', power: 1000000n },
    { address: 'chain:dave.node', power: 1000000n },
  ],
  B: [
    { address: 'chain:v1.node', power: 10000000n },
    { address: 'chain:v2.node', power: 20000000n },
    { address: 'chain:v3.node', power: 30000000n },
    { address: 'chain:v4.node', power: 40000000n },
  ],
  C: [3n, 5n, 7n, 11n, 13n, 17n, 19n].map((p, i) => ({ address: `chain:n${i}.node`, power: p * 1000000n })),
  D: [
    { address: 'chain:a.node', power: 0n },
    { address: 'chain:b.node', power: 5000000n },
    { address: 'chain:c.node', power: 0n },
    { address: 'chain:d.node', power: 1000000n },
  ],
  E: [
    { address: 'chain:x.node', power: 0n },
    { address: 'chain:y.node', power: 0n },
    { address: 'chain:z.node', power: 0n },
  ],
  F: [
    { address: 'chain:alpha.node', power: 7n },
    { address: 'chain:Zed.node', power: 7n },
    { address: 'chain:beta.node', power: 14n },
  ],
};

// Pinned vectors; docs/proposer-selection.md lists the same lines (checked below).
const VECTORS = `
A | 1 | 0 | chain:carol.node
A | 1 | 1 | chain:alice.node
A | 2 | 0 | chain:alice.node
A | 3 | 0 | chain:carol.node
A | 100 | 0 | chain:bob.node
A | 100 | 3 | chain:alice.node
A | 1000000 | 2 | chain:dave.node
A | 4294967296 | 7 | chain:dave.node
B | 1 | 0 | chain:v4.node
B | 1 | 1 | chain:v4.node
B | 2 | 0 | chain:v3.node
B | 3 | 0 | chain:v4.node
B | 100 | 0 | chain:v4.node
B | 100 | 3 | chain:v4.node
B | 1000000 | 2 | chain:v4.node
B | 4294967296 | 7 | chain:v4.node
C | 1 | 0 | chain:n6.node
C | 1 | 1 | chain:n3.node
C | 2 | 0 | chain:n5.node
C | 3 | 0 | chain:n6.node
C | 100 | 0 | chain:n4.node
C | 100 | 3 | chain:n3.node
C | 1000000 | 2 | chain:n6.node
C | 4294967296 | 7 | chain:n5.node
D | 1 | 0 | chain:b.node
D | 1 | 1 | chain:b.node
D | 2 | 0 | chain:b.node
D | 3 | 0 | chain:b.node
D | 100 | 0 | chain:d.node
D | 100 | 3 | chain:b.node
D | 1000000 | 2 | chain:b.node
D | 4294967296 | 7 | chain:d.node
E | 1 | 0 | chain:y.node
E | 1 | 1 | chain:z.node
E | 2 | 0 | chain:z.node
E | 3 | 0 | chain:x.node
E | 100 | 0 | chain:y.node
E | 100 | 3 | chain:y.node
E | 1000000 | 2 | chain:x.node
E | 4294967296 | 7 | chain:z.node
F | 1 | 0 | chain:beta.node
F | 1 | 1 | chain:Zed.node
F | 2 | 0 | chain:Zed.node
F | 3 | 0 | chain:beta.node
F | 100 | 0 | chain:alpha.node
F | 100 | 3 | chain:Zed.node
F | 1000000 | 2 | chain:beta.node
F | 4294967296 | 7 | chain:beta.node
`
  .trim()
  .split('\n');

function parse(line: string): { set: string; height: bigint; round: bigint; expected: string } {
  const [set, h, r, expected] = line.split(' | ') as [string, string, string, string];
  return { set, height: BigInt(h), round: BigInt(r), expected };
}

describe('proposer selection', () => {
  test('pinned vectors', () => {
    for (const line of VECTORS) {
      const v = parse(line);
      assert.equal(selectProposer(SETS[v.set] as WeightedAddress[], v.height, v.round).address, v.expected, line);
    }
  });

  test('docs/proposer-selection.md documents exactly these vectors', () => {
    const doc = readFileSync(fileURLToPath(new URL('../../../docs/proposer-selection.md', import.meta.url)), 'utf8');
    const docLines = doc.split('\n').filter((l) => /^[A-F] \| \d+ \| \d+ \| chain:/.test(l));
    assert.deepEqual(docLines, VECTORS);
  });

  test('digest of the worked example', () => {
    const d = proposerDigest(1, 0);
    assert.equal(d.toString(16).padStart(64, '0'), '6272a0b7712f68a4d6e2c28bc7cbb0c1a9ee5bcab4d3061d1da93d07a093539a');
    assert.equal(d % 4n, 2n);
    assert.equal(toHex(u64be(4294967296)), '0000000100000000');
    assert.throws(() => u64be(-1));
    assert.throws(() => u64be(1n << 64n));
  });

  test('ValidatorSet.proposer agrees with the vectors (heights within safe integers)', () => {
    for (const line of VECTORS) {
      const v = parse(line);
      const set = new ValidatorSet((SETS[v.set] as WeightedAddress[]).map((w) => ({ ...w, public_key: '01' })));
      assert.equal(set.proposer(Number(v.height), Number(v.round)).address, v.expected, line);
    }
  });

  test('input order does not matter; only stake proportions do (gcd normalisation)', () => {
    const b = SETS['B'] as WeightedAddress[];
    const reversed = [...b].reverse();
    const scaledDown = b.map((v) => ({ ...v, power: v.power / 10000000n }));
    const scaledUp = b.map((v) => ({ ...v, power: v.power * 3n }));
    for (let h = 1n; h < 200n; h++) {
      const expected = selectProposer(b, h, 0n).address;
      assert.equal(selectProposer(reversed, h, 0n).address, expected);
      assert.equal(selectProposer(scaledDown, h, 0n).address, expected);
      assert.equal(selectProposer(scaledUp, h, 0n).address, expected);
    }
  });

  test('zero-stake validators are never chosen; all-zero falls back to round-robin', () => {
    const d = SETS['D'] as WeightedAddress[];
    const e = canonicalOrder(SETS['E'] as WeightedAddress[]);
    for (let h = 0; h < 300; h++) {
      for (let r = 0; r < 3; r++) {
        assert.ok(['chain:b.node', 'chain:d.node'].includes(selectProposer(d, h, r).address));
        assert.equal(selectProposerIndex(e, h, r), (h + r) % 3);
      }
    }
  });

  test('frequency follows stake (weights 1:2:3:4 over 20 000 draws, within 5%)', () => {
    const b = canonicalOrder(SETS['B'] as WeightedAddress[]);
    const counts = [0, 0, 0, 0];
    const draws = 20000;
    for (let h = 0; h < draws; h++) counts[selectProposerIndex(b, h, 0)]! += 1;
    counts.forEach((c, i) => {
      const expected = (draws * (i + 1)) / 10;
      assert.ok(Math.abs(c - expected) * 20 < expected, `validator ${i}: ${c} draws, expected about ${expected}`);
    });
  });

  test('canonical order is byte-wise UTF-8, not UTF-16 code units', () => {
    // U+FF5E (3 UTF-8 bytes, EF BD 9E) sorts after U+1F600 (4 bytes, F0 ...) in UTF-16 order
    // (0xFF5E > 0xD83D) but before it byte-wise (0xEF < 0xF0).
    const items = [{ address: 'chain:\u{1F600}.node' }, { address: 'chain:\uFF5E.node' }];
    assert.deepEqual(canonicalOrder(items).map((i) => i.address), ['chain:\uFF5E.node', 'chain:\u{1F600}.node']);
  });
});
