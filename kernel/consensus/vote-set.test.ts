import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { block, fixture, vote } from '../../test/simulation/consensus-fixtures.js';
import { toHex } from '../codec/hex.js';
import { hashKey, NIL_KEY } from './bytes.js';
import { ValidatorSet } from './validator-set.js';
import { VoteSet } from './vote-set.js';

describe('ValidatorSet thresholds', () => {
  test('more than 2/3 and more than 1/3 are strict, on bigint power', () => {
    const f = fixture([1n, 1n, 1n, 3n]);
    const s = f.set;
    assert.equal(s.totalPower, 6n);
    assert.equal(s.hasTwoThirds(4n), false, 'exactly 2/3');
    assert.equal(s.hasTwoThirds(5n), true);
    assert.equal(s.hasOneThird(2n), false, 'exactly 1/3');
    assert.equal(s.hasOneThird(3n), true);
    assert.equal(s.quorumPower(), 5n);
    const huge = fixture([10n ** 30n, 10n ** 30n, 10n ** 30n]).set;
    assert.equal(huge.hasTwoThirds(2n * 10n ** 30n), false);
    assert.equal(huge.hasTwoThirds(2n * 10n ** 30n + 1n), true);
  });

  test('rejects empty sets, duplicates, negative power and addresses with the separator', () => {
    const pk = new Uint8Array([1]);
    assert.throws(() => new ValidatorSet([]));
    assert.throws(() => new ValidatorSet([{ address: 'a', public_key: toHex(pk), power: 1n }, { address: 'a', public_key: toHex(pk), power: 1n }]));
    assert.throws(() => new ValidatorSet([{ address: 'a', public_key: toHex(pk), power: -1n }]));
    assert.throws(() => new ValidatorSet([{ address: 'a|b', public_key: toHex(pk), power: 1n }]));
  });

  test('a set with no stake votes one validator, one vote', () => {
    const s = fixture([0n, 0n, 0n, 0n]).set;
    assert.equal(s.totalPower, 4n);
    assert.equal(s.votingPower(s.validators[0]!.address), 1n);
    assert.equal(s.hasTwoThirds(3n), true);
  });
});

describe('VoteSet', () => {
  test('counts power per target with unequal stakes', () => {
    const f = fixture([1n, 1n, 1n, 3n]);
    const [v0, v1, v2, big] = f.addresses as [string, string, string, string];
    const a = block('a').hash;
    const set = new VoteSet(1, 0, 'prevote', f.set);
    set.add(vote(f, 'prevote', 1, 0, a, v0));
    set.add(vote(f, 'prevote', 1, 0, a, v1));
    set.add(vote(f, 'prevote', 1, 0, null, v2));
    assert.equal(set.powerFor(hashKey(a)), 2n);
    assert.equal(set.hasTwoThirdsAny(), false, '3 of 6');
    assert.equal(set.twoThirdsMajority(), undefined);
    set.add(vote(f, 'prevote', 1, 0, a, big));
    assert.equal(set.powerFor(hashKey(a)), 5n);
    assert.equal(set.hasTwoThirdsFor(hashKey(a)), true, '5 of 6');
    assert.equal(set.hasTwoThirdsFor(NIL_KEY), false);
    assert.equal(set.twoThirdsMajority(), hashKey(a));
    assert.deepEqual(set.votesFor(hashKey(a)).map((v) => v.vote.validator), [v0, v1, big].sort());
  });

  test('the big validator needs two small ones: with one it holds exactly 2/3, which is not enough', () => {
    const f = fixture([1n, 1n, 1n, 3n]);
    const [v0, v1, , big] = f.addresses as [string, string, string, string];
    const set = new VoteSet(1, 0, 'precommit', f.set);
    set.add(vote(f, 'precommit', 1, 0, null, big));
    set.add(vote(f, 'precommit', 1, 0, null, v0));
    assert.equal(set.hasTwoThirdsAny(), false);
    assert.equal(set.hasTwoThirdsFor(NIL_KEY), false);
    set.add(vote(f, 'precommit', 1, 0, null, v1));
    assert.equal(set.hasTwoThirdsFor(NIL_KEY), true);
  });

  test('duplicates are ignored, conflicts reported, wrong slots and strangers rejected', () => {
    const f = fixture([1n, 1n, 1n, 1n]);
    const [v0, v1] = f.addresses as [string, string];
    const [a, b] = [block('a').hash, block('b').hash];
    const set = new VoteSet(1, 0, 'prevote', f.set);
    assert.equal(set.add(vote(f, 'prevote', 1, 0, a, v0)).kind, 'added');
    assert.equal(set.add(vote(f, 'prevote', 1, 0, a, v0)).kind, 'duplicate');
    assert.equal(set.powerFor(hashKey(a)), 1n);
    const c = set.add(vote(f, 'prevote', 1, 0, b, v0));
    assert.equal(c.kind, 'conflict');
    assert.equal(c.kind === 'conflict' && c.counted, false);
    assert.equal(set.powerFor(hashKey(b)), 0n, 'not admitted: not counted');
    const admitted = set.add(vote(f, 'prevote', 1, 0, null, v0), true);
    assert.equal(admitted.kind === 'conflict' && admitted.counted, true);
    assert.equal(set.powerFor(NIL_KEY), 1n);
    assert.equal(set.totalVotedPower(), 1n, 'an equivocator counts once toward "anything"');
    assert.equal(set.add(vote(f, 'precommit', 1, 0, a, v1)).kind, 'rejected');
    assert.equal(set.add(vote(f, 'prevote', 1, 1, a, v1)).kind, 'rejected');
    assert.equal(set.add(vote(fixture([1n, 1n, 1n, 1n, 1n]), 'prevote', 1, 0, a, 'chain:val4.node')).kind, 'rejected');
  });
});
