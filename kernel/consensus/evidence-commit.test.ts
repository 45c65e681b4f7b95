import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { block, CHAIN, fixture, vote } from '../../test/simulation/consensus-fixtures.js';
import { toHex } from '../codec/hex.js';
import { nobleProvider } from '../crypto/noble-provider.js';
import { verifyCommit } from './commit.js';
import { evidenceId, makeEvidence, verifyEvidence } from './evidence.js';
import type { CommitCertificate } from './types.js';
import { ValidatorSet } from './validator-set.js';

describe('verifyEvidence', () => {
  const f = fixture([1n, 2n, 3n, 4n]);
  const [v0, v1] = f.addresses as [string, string];
  const [a, b] = [block('a').hash, block('b').hash];

  test('accepts two signed votes of one validator for one slot and different targets', () => {
    const e = makeEvidence(vote(f, 'precommit', 3, 1, a, v0), vote(f, 'precommit', 3, 1, null, v0));
    assert.deepEqual(verifyEvidence(e, f.set, CHAIN, f.provider), { ok: true });
    assert.equal(e.voteA.vote.blockHash, null, 'nil sorts first');
    const swapped = makeEvidence(e.voteB, e.voteA);
    assert.deepEqual(swapped, e, 'canonical whichever vote came first');
    assert.equal(evidenceId(e), `duplicate-vote|${v0}|3|1|precommit`);
  });

  test('rejects what is not equivocation or not provable', () => {
    const x = vote(f, 'prevote', 3, 1, a, v0);
    const cases: [string, unknown][] = [
      ['same target', { kind: 'duplicate-vote', voteA: x, voteB: vote(f, 'prevote', 3, 1, a, v0) }],
      ['different validators', { kind: 'duplicate-vote', voteA: x, voteB: vote(f, 'prevote', 3, 1, b, v1) }],
      ['different round', { kind: 'duplicate-vote', voteA: x, voteB: vote(f, 'prevote', 3, 2, b, v0) }],
      ['different type', { kind: 'duplicate-vote', voteA: x, voteB: vote(f, 'precommit', 3, 1, b, v0) }],
      ['bad signature', { kind: 'duplicate-vote', voteA: x, voteB: { ...vote(f, 'prevote', 3, 1, b, v0), signature: new Uint8Array(32) } }],
    ];
    for (const [name, e] of cases) {
      const r = verifyEvidence(e as Parameters<typeof verifyEvidence>[0], f.set, CHAIN, f.provider);
      assert.equal(r.ok, false, name);
    }
    const real = makeEvidence(x, vote(f, 'prevote', 3, 1, b, v0));
    assert.equal(verifyEvidence(real, f.set, 'other-chain', f.provider).ok, false, 'other chain id');
    const elsewhere = new ValidatorSet([{ address: 'chain:other.node', public_key: toHex(f.keys.get(v0)!.publicKey), power: 1n }]);
    assert.equal(verifyEvidence(real, elsewhere, CHAIN, f.provider).ok, false, 'validator not in that set');
  });
});

describe('verifyCommit', () => {
  const f = fixture([1n, 1n, 1n, 3n]);
  const [v0, v1, v2, big] = f.addresses as [string, string, string, string];
  const a = block('a').hash;
  const cert = (voters: string[], mutate?: (i: number) => Partial<{ round: number; hash: Uint8Array | null; type: 'prevote' | 'precommit' }>): CommitCertificate => ({
    height: 8,
    round: 2,
    blockHash: a,
    precommits: voters.map((v, i) => {
      const m = mutate?.(i) ?? {};
      return vote(f, m.type ?? 'precommit', 8, m.round ?? 2, m.hash === undefined ? a : m.hash, v);
    }),
  });

  test('accepts more than 2/3 of the power, sorted and distinct', () => {
    assert.deepEqual(verifyCommit(cert([v0, v1, big].sort()), f.set, CHAIN, f.provider), { ok: true });
    assert.deepEqual(verifyCommit(cert([v0, v1, v2, big].sort()), f.set, CHAIN, f.provider), { ok: true });
  });

  test('rejects exactly 2/3, duplicates, disorder, wrong slot or block, bad signatures, other chains', () => {
    const sorted = [v0, v1, big].sort();
    const bad: [string, CommitCertificate][] = [
      ['exactly 2/3 (big + one small)', cert([v0, big].sort())],
      ['duplicate validator', cert([v0, v0, v1, big].sort())],
      ['unsorted', cert([...sorted].reverse())],
      ['wrong round', cert(sorted, (i) => (i === 0 ? { round: 1 } : {}))],
      ['nil precommit', cert(sorted, (i) => (i === 0 ? { hash: null } : {}))],
      ['prevote', cert(sorted, (i) => (i === 0 ? { type: 'prevote' } : {}))],
      ['forged signature', { ...cert(sorted), precommits: cert(sorted).precommits.map((p, i) => (i === 1 ? { ...p, signature: new Uint8Array(32) } : p)) }],
    ];
    for (const [name, c] of bad) assert.equal(verifyCommit(c, f.set, CHAIN, f.provider).ok, false, name);
    assert.equal(verifyCommit(cert(sorted), f.set, 'other-chain', f.provider).ok, false, 'other chain id');
  });

  test('with real ML-DSA-65 signatures (noble)', () => {
    const n = fixture([5n, 5n, 5n, 5n], nobleProvider);
    const voters = [...n.addresses].sort().slice(0, 3);
    const c: CommitCertificate = { height: 1, round: 0, blockHash: a, precommits: voters.map((v) => vote(n, 'precommit', 1, 0, a, v)) };
    assert.equal(c.precommits[0]!.signature.length, 3309);
    assert.deepEqual(verifyCommit(c, n.set, CHAIN, nobleProvider), { ok: true });
    const tampered = { ...c, precommits: c.precommits.map((p, i) => (i === 0 ? { ...p, signature: p.signature.map((x, j) => (j === 10 ? x ^ 1 : x)) } : p)) };
    assert.equal(verifyCommit(tampered, n.set, CHAIN, nobleProvider).ok, false);
  });
});
