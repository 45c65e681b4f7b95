import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  block,
  CHAIN,
  fixture,
  machineFor,
  nonProposer,
  ofType,
  proposal,
  roundProposedBy,
  vote,
  type Fixture,
} from '../../test/simulation/consensus-fixtures.js';
import { hashKey } from './bytes.js';
import { verifyCommit } from './commit.js';
import { signProposal } from './encoding.js';
import { verifyEvidence } from './evidence.js';
import type { MachineEffect, TendermintMachine } from './machine.js';
import type { CommitCertificate } from './types.js';

const H = 1;

/** A validator that proposes none of rounds 0..3 at height H, so tests control every proposal. */
function quietValidator(f: Fixture): string {
  const proposers = new Set([0, 1, 2, 3].map((r) => f.set.proposer(H, r).address));
  const q = f.addresses.find((a) => !proposers.has(a));
  if (q === undefined) throw new Error('fixture has no validator free of proposing rounds 0..3');
  return q;
}

function others(f: Fixture, self: string): string[] {
  return f.addresses.filter((a) => a !== self);
}

function feed(effects: MachineEffect[][]): MachineEffect[] {
  return effects.flat();
}

/** Delivers a validated proposal for `b` in `round` and answers its validation request. */
function propose(f: Fixture, m: TendermintMachine, round: number, polRound: number, b: { block: unknown; hash: Uint8Array }, valid = true, timely = true): MachineEffect[] {
  const out = m.onProposal(proposal(f, H, round, polRound, b.hash), b.block, timely);
  const requests = ofType(out, 'requestValidation');
  const after = requests.length > 0 ? m.onValidation(H, b.hash, valid) : [];
  return [...out, ...after];
}

function prevotes(f: Fixture, m: TendermintMachine, round: number, hash: Uint8Array | null, voters: readonly string[]): MachineEffect[] {
  return feed(voters.map((v) => m.onVote(vote(f, 'prevote', H, round, hash, v))));
}

function precommits(f: Fixture, m: TendermintMachine, round: number, hash: Uint8Array | null, voters: readonly string[]): MachineEffect[] {
  return feed(voters.map((v) => m.onVote(vote(f, 'precommit', H, round, hash, v))));
}

function signedVotes(effects: readonly MachineEffect[]): { type: string; round: number; hash: string }[] {
  return ofType(effects, 'signVote').map((e) => ({ type: e.vote.type, round: e.vote.round, hash: hashKey(e.vote.blockHash) }));
}

/** Times out every step of each round in turn: the machine ends in the round after the last. */
function timeOutRounds(m: TendermintMachine, ...rounds: number[]): void {
  for (const r of rounds) for (const kind of ['propose', 'prevote', 'precommit'] as const) m.onTimeout(kind, H, r);
}

/** A quiet validator's machine that has just taken in its own precommit for `a` in `round`, as a WAL replay gives it. */
function replayedOwnPrecommit(round: number): { f: Fixture; self: string; a: ReturnType<typeof block>; b: ReturnType<typeof block>; m: TendermintMachine } {
  const f = fixture([1n, 1n, 1n, 1n]);
  const self = quietValidator(f);
  const [a, b, m] = [block('a'), block('b'), machineFor(f, self)];
  m.start(H, f.set);
  m.onVote(vote(f, 'precommit', H, round, a.hash, self));
  return { f, self, a, b, m };
}

/** Brings a quiet validator to lock on `a` in round 0: proposal, prevote, polka, precommit. */
function lockInRound0(f: Fixture, m: TendermintMachine, self: string, a: { block: unknown; hash: Uint8Array }): void {
  m.start(H, f.set);
  propose(f, m, 0, -1, a);
  const out = prevotes(f, m, 0, a.hash, others(f, self).slice(0, 3));
  assert.deepEqual(signedVotes(out), [{ type: 'precommit', round: 0, hash: hashKey(a.hash) }]);
}

describe('StartRound (lines 11-21)', () => {
  test('the proposer asks for a value, proposes it with pol_round -1 and prevotes it', () => {
    const f = fixture([1n, 1n, 1n, 1n]);
    const p = f.set.proposer(H, 0).address;
    const m = machineFor(f, p);
    const start = m.start(H, f.set);
    assert.deepEqual(start, [{ type: 'requestValue', height: H, round: 0 }]);
    const a = block('a');
    const out = m.onValue(H, 0, { hash: a.hash, block: a.block });
    const [sp] = ofType(out, 'signProposal');
    assert.ok(sp);
    assert.equal(sp.proposal.polRound, -1);
    assert.equal(sp.proposal.proposer, p);
    assert.equal(hashKey(sp.proposal.blockHash), hashKey(a.hash));
    const signed = signProposal(f.provider, f.keys.get(p)!.secretKey, CHAIN, sp.proposal);
    const own = m.onOwnProposal(signed, a.block);
    assert.deepEqual(signedVotes(own), [{ type: 'prevote', round: 0, hash: hashKey(a.hash) }]);
    assert.equal(ofType(own, 'requestValidation').length, 0, 'the proposer does not validate its own block');
  });

  test('a non-proposer schedules timeoutPropose, growing linearly with the round', () => {
    const f = fixture([1n, 1n, 1n, 1n]);
    const self = quietValidator(f);
    const m = machineFor(f, self, { timeouts: { proposeBaseMs: 3000, proposeDeltaMs: 700 } });
    assert.deepEqual(m.start(H, f.set), [{ type: 'scheduleTimeout', kind: 'propose', height: H, round: 0, durationMs: 3000 }]);
    const out = m.onTimeout('precommit', H, 0);
    assert.deepEqual(ofType(out, 'scheduleTimeout'), [{ type: 'scheduleTimeout', kind: 'propose', height: H, round: 1, durationMs: 3700 }]);
    m.onTimeout('precommit', H, 1);
    assert.equal(ofType(m.onTimeout('precommit', H, 2), 'scheduleTimeout')[0]?.durationMs, 3000 + 3 * 700);
  });

  test('a getValue answer whose hash does not match the block is not proposed', () => {
    const f = fixture([1n, 1n, 1n, 1n]);
    const p = f.set.proposer(H, 0).address;
    const m = machineFor(f, p);
    m.start(H, f.set);
    const out = m.onValue(H, 0, { hash: block('x').hash, block: block('y').block });
    assert.equal(ofType(out, 'signProposal').length, 0);
    assert.equal(ofType(out, 'log')[0]?.level, 'error');
  });
});

describe('proposal rules (lines 22-33)', () => {
  test('a valid proposal is prevoted once validated; an invalid one gets a nil prevote', () => {
    const f = fixture([1n, 1n, 1n, 1n]);
    const a = block('a');
    for (const valid of [true, false]) {
      const m = machineFor(f, quietValidator(f));
      m.start(H, f.set);
      const first = m.onProposal(proposal(f, H, 0, -1, a.hash), a.block);
      assert.equal(ofType(first, 'requestValidation').length, 1);
      assert.equal(signedVotes(first).length, 0, 'no prevote while validation is pending');
      const out = m.onValidation(H, a.hash, valid);
      assert.deepEqual(signedVotes(out), [{ type: 'prevote', round: 0, hash: valid ? hashKey(a.hash) : 'nil' }]);
      assert.equal(m.state().step, 'prevote');
    }
  });

  test('a fresh proposal the host judged untimely gets a nil prevote, however valid (proposer-based timestamps)', () => {
    const f = fixture([1n, 1n, 1n, 1n]);
    const a = block('a');
    const m = machineFor(f, quietValidator(f));
    m.start(H, f.set);
    m.onProposal(proposal(f, H, 0, -1, a.hash), a.block, false);
    // A second copy judged timely (a relay) arriving before validation does not replace the
    // first arrival's judgement.
    assert.deepEqual(signedVotes(m.onProposal(proposal(f, H, 0, -1, a.hash), a.block, true)), []);
    assert.deepEqual(signedVotes(m.onValidation(H, a.hash, true)), [{ type: 'prevote', round: 0, hash: 'nil' }]);
  });

  test('a proposal of the next height is buffered with its judgement', () => {
    for (const timely of [true, false]) {
      const f = fixture([1n, 1n, 1n, 1n]);
      const a = block('a');
      const self = quietValidator(f);
      const m = machineFor(f, self);
      m.start(H - 1, f.set);
      m.onProposal(proposal(f, H, 0, -1, a.hash), a.block, timely);
      m.start(H, f.set);
      assert.deepEqual(signedVotes(m.onValidation(H, a.hash, true)), [{ type: 'prevote', round: 0, hash: timely ? hashKey(a.hash) : 'nil' }], `timely ${timely}`);
    }
  });

  test('timeoutPropose prevotes nil; stale timeouts are ignored (line 57)', () => {
    const f = fixture([1n, 1n, 1n, 1n]);
    const m = machineFor(f, quietValidator(f));
    m.start(H, f.set);
    assert.deepEqual(m.onTimeout('propose', H, 1), []);
    assert.deepEqual(m.onTimeout('propose', H + 1, 0), []);
    assert.deepEqual(signedVotes(m.onTimeout('propose', H, 0)), [{ type: 'prevote', round: 0, hash: 'nil' }]);
    assert.deepEqual(m.onTimeout('propose', H, 0), [], 'only while step = propose');
  });

  test('a proposal with pol_round waits for the polka of that round (line 28), timely or not', () => {
    // An untimely re-proposal is prevoted too: its polka shows that more than 2/3 took it fresh.
    for (const timely of [true, false]) {
      const f = fixture([1n, 1n, 1n, 1n]);
      const self = quietValidator(f);
      const m = machineFor(f, self);
      const a = block('a');
      m.start(H, f.set);
      m.onTimeout('precommit', H, 0);
      const noPolka = propose(f, m, 1, 0, a, true, timely);
      assert.equal(signedVotes(noPolka).length, 0);
      const out = prevotes(f, m, 0, a.hash, others(f, self).slice(0, 3));
      assert.deepEqual(signedVotes(out), [{ type: 'prevote', round: 1, hash: hashKey(a.hash) }]);
    }
  });

  test('locked on A, a fresh proposal of B gets nil and a fresh proposal of A gets A (line 22)', () => {
    const f = fixture([1n, 1n, 1n, 1n]);
    const self = quietValidator(f);
    const a = block('a');
    const b = block('b');
    const m = machineFor(f, self);
    lockInRound0(f, m, self, a);
    assert.equal(m.state().lockedRound, 0);
    m.onTimeout('precommit', H, 0);
    assert.deepEqual(signedVotes(propose(f, m, 1, -1, b)), [{ type: 'prevote', round: 1, hash: 'nil' }]);

    const m2 = machineFor(f, self);
    lockInRound0(f, m2, self, a);
    m2.onTimeout('precommit', H, 0);
    const reproposed = m2.onProposal(proposal(f, H, 1, -1, a.hash), a.block);
    assert.deepEqual(signedVotes(reproposed), [{ type: 'prevote', round: 1, hash: hashKey(a.hash) }], 'known valid value needs no new validation');
  });

  test('unlocking: a polka for B in a round above the lock lets the node prevote B (line 28)', () => {
    const f = fixture([1n, 1n, 1n, 1n]);
    const self = quietValidator(f);
    const [a, b] = [block('a'), block('b')];
    const m = machineFor(f, self);
    lockInRound0(f, m, self, a);
    m.onTimeout('precommit', H, 0);
    prevotes(f, m, 1, b.hash, others(f, self).slice(0, 3));
    m.onTimeout('propose', H, 1);
    m.onTimeout('precommit', H, 1);
    assert.equal(m.state().round, 2);
    assert.equal(m.state().lockedValue, hashKey(a.hash));
    assert.deepEqual(signedVotes(propose(f, m, 2, 1, b)), [{ type: 'prevote', round: 2, hash: hashKey(b.hash) }]);
  });

  test('a polka older than the lock does not unlock', () => {
    const f = fixture([1n, 1n, 1n, 1n]);
    const self = quietValidator(f);
    const [a, b] = [block('a'), block('b')];
    const m = machineFor(f, self);
    m.start(H, f.set);
    // Round 0: a polka for B that this node does not act on (no proposal of B in round 0).
    m.onTimeout('propose', H, 0);
    prevotes(f, m, 0, b.hash, others(f, self).slice(0, 3));
    m.onTimeout('precommit', H, 0);
    // Round 1: lock on A.
    propose(f, m, 1, -1, a);
    prevotes(f, m, 1, a.hash, others(f, self).slice(0, 3));
    assert.equal(m.state().lockedRound, 1);
    m.onTimeout('precommit', H, 1);
    // Round 2: B re-proposed with the round-0 polka: lockedRound 1 > 0 and B != A, so nil.
    assert.deepEqual(signedVotes(propose(f, m, 2, 0, b)), [{ type: 'prevote', round: 2, hash: 'nil' }]);
  });
});

describe('prevote and precommit rules (lines 34-48)', () => {
  test('+2/3 prevotes for the proposal: lock, precommit, validValue (line 36)', () => {
    const f = fixture([1n, 1n, 1n, 1n]);
    const self = quietValidator(f);
    const a = block('a');
    const m = machineFor(f, self);
    lockInRound0(f, m, self, a);
    const s = m.state();
    assert.equal(s.step, 'precommit');
    assert.equal(s.lockedValue, hashKey(a.hash));
    assert.equal(s.validValue, hashKey(a.hash));
    assert.equal(s.validRound, 0);
  });

  test('a polka seen after precommitting nil updates validValue but not the lock', () => {
    const f = fixture([1n, 1n, 1n, 1n]);
    const self = quietValidator(f);
    const a = block('a');
    const m = machineFor(f, self);
    m.start(H, f.set);
    propose(f, m, 0, -1, a);
    const [x, y, z] = others(f, self) as [string, string, string];
    const mixed = [...prevotes(f, m, 0, null, [x]), ...prevotes(f, m, 0, a.hash, [y])];
    assert.equal(signedVotes(mixed).length, 0);
    m.onOwnVote(vote(f, 'prevote', H, 0, a.hash, self));
    const timeoutArmed = ofType(m.onVote(vote(f, 'prevote', H, 0, null, x)), 'scheduleTimeout');
    assert.equal(timeoutArmed.length, 0, 'duplicate vote changes nothing');
    // Three distinct prevoters of anything (x nil, y A, self A): line 34 already fired on self's vote.
    assert.deepEqual(signedVotes(m.onTimeout('prevote', H, 0)), [{ type: 'precommit', round: 0, hash: 'nil' }]);
    prevotes(f, m, 0, a.hash, [z]);
    const s = m.state();
    assert.equal(s.validRound, 0);
    assert.equal(s.validValue, hashKey(a.hash));
    assert.equal(s.lockedRound, -1);
  });

  test('2f+1 prevotes of anything arm timeoutPrevote once; its expiry precommits nil (lines 34, 61)', () => {
    const f = fixture([1n, 1n, 1n, 1n]);
    const self = quietValidator(f);
    const m = machineFor(f, self);
    m.start(H, f.set);
    m.onTimeout('propose', H, 0);
    const [x, y, z] = others(f, self) as [string, string, string];
    const out = [...prevotes(f, m, 0, block('a').hash, [x]), ...prevotes(f, m, 0, block('b').hash, [y]), ...prevotes(f, m, 0, null, [z])];
    assert.deepEqual(ofType(out, 'scheduleTimeout'), [{ type: 'scheduleTimeout', kind: 'prevote', height: H, round: 0, durationMs: 500 }]);
    assert.deepEqual(signedVotes(m.onTimeout('prevote', H, 0)), [{ type: 'precommit', round: 0, hash: 'nil' }]);
  });

  test('+2/3 nil prevotes precommit nil at once (line 44)', () => {
    const f = fixture([1n, 1n, 1n, 1n]);
    const self = quietValidator(f);
    const m = machineFor(f, self);
    m.start(H, f.set);
    m.onTimeout('propose', H, 0);
    const out = prevotes(f, m, 0, null, others(f, self).slice(0, 3));
    assert.deepEqual(signedVotes(out), [{ type: 'precommit', round: 0, hash: 'nil' }]);
  });

  test('2f+1 precommits of anything arm timeoutPrecommit; its expiry starts the next round (lines 47, 65)', () => {
    const f = fixture([1n, 1n, 1n, 1n]);
    const self = quietValidator(f);
    const m = machineFor(f, self);
    m.start(H, f.set);
    const [x, y, z] = others(f, self) as [string, string, string];
    const out = [...precommits(f, m, 0, null, [x, y]), ...precommits(f, m, 0, block('a').hash, [z])];
    assert.deepEqual(ofType(out, 'scheduleTimeout'), [{ type: 'scheduleTimeout', kind: 'precommit', height: H, round: 0, durationMs: 500 }]);
    const next = m.onTimeout('precommit', H, 0);
    assert.equal(m.state().round, 1);
    assert.equal(m.state().step, 'propose');
    assert.equal(ofType(next, 'scheduleTimeout')[0]?.kind, 'propose');
  });
});

describe('decision (line 49)', () => {
  test('+2/3 precommits for a valid proposed block decide it, with a verifiable certificate', () => {
    const f = fixture([1n, 1n, 1n, 1n]);
    const self = quietValidator(f);
    const a = block('a');
    const m = machineFor(f, self);
    lockInRound0(f, m, self, a);
    const voters = others(f, self).slice(0, 3).reverse();
    const out = precommits(f, m, 0, a.hash, voters);
    const [d] = ofType(out, 'decide');
    assert.ok(d);
    assert.equal(d.height, H);
    assert.equal(d.round, 0);
    assert.deepEqual(d.value.block, a.block);
    const addrs = d.certificate.precommits.map((p) => p.vote.validator);
    assert.deepEqual(addrs, [...addrs].sort(), 'certificate sorted by validator');
    assert.deepEqual(verifyCommit(d.certificate, f.set, CHAIN, f.provider), { ok: true });
    assert.deepEqual(m.onVote(vote(f, 'precommit', H, 0, a.hash, self)), [], 'nothing happens after the decision');
  });

  test('a quorum of precommits for a block the application rejects decides nothing', () => {
    const f = fixture([1n, 1n, 1n, 1n]);
    const self = quietValidator(f);
    const a = block('a');
    const m = machineFor(f, self);
    m.start(H, f.set);
    propose(f, m, 0, -1, a, false);
    const out = precommits(f, m, 0, a.hash, others(f, self));
    assert.equal(ofType(out, 'decide').length, 0);
  });

  test('a decision can come from a later round than the current one, with the value known', () => {
    const f = fixture([1n, 1n, 1n, 1n]);
    const self = quietValidator(f);
    const a = block('a');
    const m = machineFor(f, self);
    m.start(H, f.set);
    propose(f, m, 0, -1, a);
    const [d] = ofType(precommits(f, m, 3, a.hash, others(f, self)), 'decide');
    assert.equal(d?.round, 3);
  });

  test('a node without a key (observer) decides but never asks to sign', () => {
    const f = fixture([1n, 1n, 1n, 1n]);
    const a = block('a');
    const m = machineFor(f, null);
    const out = [...m.start(H, f.set), ...propose(f, m, 0, -1, a), ...prevotes(f, m, 0, a.hash, f.addresses), ...precommits(f, m, 0, a.hash, f.addresses)];
    assert.equal(ofType(out, 'signVote').length + ofType(out, 'signProposal').length + ofType(out, 'requestValue').length, 0);
    assert.equal(ofType(out, 'decide').length, 1);
  });

  test('catch-up: a verified commit certificate decides once the block validates', () => {
    const f = fixture([1n, 1n, 1n, 1n]);
    const self = quietValidator(f);
    const a = block('a');
    const voters = others(f, self).sort();
    const cert: CommitCertificate = { height: H, round: 2, blockHash: a.hash, precommits: voters.map((v) => vote(f, 'precommit', H, 2, a.hash, v)) };
    const m = machineFor(f, self);
    m.start(H, f.set);
    const weak = { ...cert, precommits: cert.precommits.slice(0, 2) };
    assert.equal(ofType(m.onCommit(weak, a.block), 'requestValidation').length, 0, 'two of four is no quorum');
    assert.equal(ofType(m.onCommit(cert, block('other').block), 'requestValidation').length, 0, 'block must match the hash');
    const out = m.onCommit(cert, a.block);
    assert.equal(ofType(out, 'requestValidation').length, 1);
    const [d] = ofType(m.onValidation(H, a.hash, true), 'decide');
    assert.equal(d?.certificate, cert);
  });
});

describe('round skip (line 55)', () => {
  test('messages from more than 1/3 of the power in a higher round move the node there', () => {
    const f = fixture([1n, 1n, 1n, 1n]);
    const self = quietValidator(f);
    const m = machineFor(f, self);
    m.start(H, f.set);
    const [x, y] = others(f, self) as [string, string];
    assert.deepEqual(prevotes(f, m, 5, null, [x]).filter((e) => e.type !== 'log'), []);
    assert.equal(m.state().round, 0, 'one of four is not f+1');
    const out = precommits(f, m, 5, block('z').hash, [y]);
    assert.equal(m.state().round, 5);
    assert.equal(m.state().step, 'propose');
    const started = [...ofType(out, 'scheduleTimeout'), ...ofType(out, 'requestValue')];
    assert.equal(started.length, 1, 'StartRound(5) ran');
  });

  test('with unequal stakes exactly 1/3 of the power is not enough, more is', () => {
    const f = fixture([1n, 1n, 1n, 3n]);
    const big = f.addresses[3] as string;
    const [p, q] = f.addresses.filter((a) => a !== big) as [string, string];
    const self = f.addresses.find((a) => a !== big && a !== p && a !== q) as string;
    const m = machineFor(f, self);
    m.start(H, f.set);
    prevotes(f, m, 4, null, [p, q]);
    assert.equal(m.state().round, 0, '2 of 6 is exactly 1/3');
    prevotes(f, m, 4, null, [big]);
    assert.equal(m.state().round, 4);
  });

  test('skips to the highest round with f+1 senders, and a proposal counts as a message', () => {
    const f = fixture([1n, 1n, 1n, 1n]);
    const self = quietValidator(f);
    const m = machineFor(f, self);
    m.start(H, f.set);
    const a = block('a');
    const p7 = f.set.proposer(H, 7).address;
    const voter = others(f, self).find((v) => v !== p7) as string;
    m.onVote(vote(f, 'prevote', H, 7, null, voter));
    m.onProposal(proposal(f, H, 7, -1, a.hash), a.block);
    assert.equal(m.state().round, 7);
  });
});

describe('vote intake', () => {
  test('equivocation yields one verifiable evidence in canonical order; the first vote stays counted', () => {
    const f = fixture([1n, 1n, 1n, 1n]);
    const self = quietValidator(f);
    const [x] = others(f, self) as [string];
    const [a, b] = [block('a'), block('b')];
    const m = machineFor(f, self);
    m.start(H, f.set);
    assert.equal(ofType(m.onVote(vote(f, 'prevote', H, 0, b.hash, x)), 'evidence').length, 0);
    const ev = ofType(m.onVote(vote(f, 'prevote', H, 0, a.hash, x)), 'evidence');
    assert.equal(ev.length, 1);
    const e = ev[0]!.evidence;
    assert.deepEqual(verifyEvidence(e, f.set, CHAIN, f.provider), { ok: true });
    assert.ok(hashKey(e.voteA.vote.blockHash) < hashKey(e.voteB.vote.blockHash));
    assert.equal(ofType(m.onVote(vote(f, 'prevote', H, 0, null, x)), 'evidence').length, 0, 'one evidence per slot');
    assert.equal(ofType(m.onVote(vote(f, 'precommit', H, 0, null, x)), 'evidence').length, 0, 'a precommit is another slot, not a conflict yet');
    assert.equal(ofType(m.onVote(vote(f, 'precommit', H, 0, a.hash, x)), 'evidence').length, 1);
  });

  test('an equivocator\'s second vote still counts toward a proposed block, so relayed polkas are seen', () => {
    const f = fixture([1n, 1n, 1n, 1n]);
    const self = quietValidator(f);
    const [x, y, z] = others(f, self) as [string, string, string];
    const [a, junk] = [block('a'), block('junk')];
    const m = machineFor(f, self);
    m.start(H, f.set);
    m.onTimeout('propose', H, 0);
    m.onVote(vote(f, 'prevote', H, 0, junk.hash, x));
    propose(f, m, 0, -1, a);
    prevotes(f, m, 0, a.hash, [y, z]);
    assert.equal(m.state().validRound, -1);
    prevotes(f, m, 0, a.hash, [x]);
    assert.equal(m.state().validValue, hashKey(a.hash), 'x counted for A as well');
  });

  test('bad signatures, strangers, wrong proposers and mismatched blocks are ignored', () => {
    const f = fixture([1n, 1n, 1n, 1n]);
    const stranger = fixture([1n, 1n, 1n, 1n, 1n]);
    const self = quietValidator(f);
    const [x, y] = others(f, self) as [string, string];
    const a = block('a');
    const m = machineFor(f, self);
    m.start(H, f.set);
    m.onTimeout('propose', H, 0);
    const good = vote(f, 'prevote', H, 0, null, x);
    const forged = { vote: good.vote, signature: good.signature.map((b, i) => (i === 0 ? b ^ 1 : b)) };
    m.onVote(forged);
    m.onVote(vote(stranger, 'prevote', H, 0, null, 'chain:val4.node'));
    m.onVote(vote(f, 'prevote', H, 0, null, y));
    assert.equal(signedVotes(m.onVote(vote(f, 'prevote', H, 0, null, self))).length, 0, 'forged and stranger votes did not count');

    const sp = proposal(f, H, 0, -1, a.hash);
    const wrongProposer = signProposal(f.provider, f.keys.get(self)!.secretKey, CHAIN, { ...sp.proposal, proposer: self });
    assert.equal(ofType(m.onProposal(wrongProposer, a.block), 'requestValidation').length, 0);
    assert.equal(ofType(m.onProposal(sp, block('b').block), 'requestValidation').length, 0, 'block must match the signed hash');
    const badSig = { proposal: sp.proposal, signature: new Uint8Array(sp.signature.length) };
    assert.equal(ofType(m.onProposal(badSig, a.block), 'requestValidation').length, 0);
    const otherChain = signProposal(f.provider, f.keys.get(sp.proposal.proposer)!.secretKey, 'other-chain', sp.proposal);
    assert.equal(ofType(m.onProposal(otherChain, a.block), 'requestValidation').length, 0, 'signature for another chain id');
    assert.equal(ofType(m.onProposal(sp, a.block), 'requestValidation').length, 1);
  });

  test('messages for the next height are buffered and replayed by start', () => {
    const f = fixture([1n, 1n, 1n, 1n]);
    const self = quietValidator(f);
    const m = machineFor(f, self);
    m.start(H, f.set);
    const a = block('next');
    const p2 = proposal(f, H + 1, 0, -1, a.hash);
    m.onProposal(p2, a.block);
    for (const v of others(f, self)) m.onVote(vote(f, 'precommit', H + 1, 0, a.hash, v));
    m.onVote(vote(f, 'precommit', H + 5, 0, a.hash, self));
    const out = m.start(H + 1, f.set);
    assert.equal(ofType(out, 'requestValidation').length, 1);
    const [d] = ofType(m.onValidation(H + 1, a.hash, true), 'decide');
    assert.equal(d?.height, H + 1);
  });

  test('next-height messages are kept only when a current validator signed them, a bounded number per validator', () => {
    const f = fixture([1n, 1n, 1n, 1n]);
    const self = quietValidator(f);
    const m = machineFor(f, self, { maxFutureHeightMessages: 64 });
    m.start(H, f.set);
    const [x] = others(f, self) as [string];
    const genuine = vote(f, 'prevote', H + 1, 0, null, x);
    // Junk under every validator's name (bad signatures) fills nothing.
    for (let i = 0; i < 200; i++) {
      for (const v of f.addresses) m.onVote({ vote: { type: 'prevote', height: H + 1, round: i, blockHash: null, validator: v }, signature: new Uint8Array(genuine.signature.length) });
    }
    const a = block('next');
    const p2 = proposal(f, H + 1, 0, -1, a.hash);
    m.onProposal(p2, a.block);
    m.onVote(genuine);
    assert.deepEqual(m.bufferedFor(H + 1).map((b) => b.kind), ['proposal', 'vote'], 'the real proposal and vote still found room');
    // One validator's own signed messages: capped, so it cannot take the whole buffer.
    for (let r = 0; r < 60; r++) m.onVote(vote(f, 'precommit', H + 1, r, null, x));
    const fromX = m.bufferedFor(H + 1).filter((b) => b.kind === 'vote' && b.signed.vote.validator === x).length;
    assert.ok(fromX < 60 && fromX > 8, `validator ${x} kept ${fromX} messages`);
    assert.equal(m.bufferedFor(H + 2).length, 0);
  });

  test('a Byzantine proposer\'s second proposal is kept for line 36 but does not drive line 22', () => {
    const f = fixture([1n, 1n, 1n, 1n]);
    const self = quietValidator(f);
    const [a, b] = [block('a'), block('b')];
    const m = machineFor(f, self);
    m.start(H, f.set);
    const first = propose(f, m, 0, -1, a);
    assert.deepEqual(signedVotes(first), [{ type: 'prevote', round: 0, hash: hashKey(a.hash) }]);
    const second = propose(f, m, 0, -1, b);
    assert.equal(signedVotes(second).length, 0);
    const out = prevotes(f, m, 0, b.hash, others(f, self));
    assert.deepEqual(signedVotes(out), [{ type: 'precommit', round: 0, hash: hashKey(b.hash) }]);
  });
});

describe('restart and failure paths', () => {
  test('replayed from the WAL, our own precommit restores the lock it came from', () => {
    // After a crash the WAL may hold our precommit without the proposal and prevotes behind it
    // (they arrived while we were still at the previous height). Without the lock the node
    // would prevote another value in a later round: with one Byzantine peer, a fork.
    const { f, a, b, m } = replayedOwnPrecommit(0);
    assert.equal(m.state().lockedRound, 0);
    assert.equal(m.state().lockedValue, hashKey(a.hash));
    timeOutRounds(m, 0);
    assert.deepEqual(signedVotes(propose(f, m, 1, -1, b)), [{ type: 'prevote', round: 1, hash: 'nil' }], 'locked on a: b gets nil');
  });

  test('a polka for another value in a later round still unlocks a restored lock (line 28)', () => {
    const { f, self, b, m } = replayedOwnPrecommit(0);
    timeOutRounds(m, 0);
    prevotes(f, m, 1, b.hash, others(f, self));
    timeOutRounds(m, 1, 2);
    assert.deepEqual(signedVotes(propose(f, m, 3, 1, b)), [{ type: 'prevote', round: 3, hash: hashKey(b.hash) }]);
  });

  test('a restored lock above the current round is not replaced by a lower round\'s polka', () => {
    // Our precommit for a in round 2 comes back (old WAL, a peer relaying it) while the machine
    // is still in round 0; a round-0 polka for b must neither re-lock nor make us precommit b.
    const { f, self, a, b, m } = replayedOwnPrecommit(2);
    propose(f, m, 0, -1, b);
    const out = prevotes(f, m, 0, b.hash, others(f, self));
    assert.deepEqual(signedVotes(out), [], 'no precommit behind the round we already signed in');
    assert.equal(m.state().lockedRound, 2);
    assert.equal(m.state().lockedValue, hashKey(a.hash));
    timeOutRounds(m, 0, 1, 2);
    assert.deepEqual(signedVotes(propose(f, m, 3, -1, b)), [{ type: 'prevote', round: 3, hash: 'nil' }]);
  });

  test('forged far-round votes take none of a validator\'s far-round slots (line 55 still fires)', () => {
    const f = fixture([1n, 1n, 1n, 1n]);
    const self = f.addresses[0] as string;
    const m = machineFor(f, self);
    m.start(H, f.set);
    const template = vote(f, 'prevote', H, 0, null, self);
    for (const v of f.addresses) {
      for (const r of [1_000_000, 1_000_001]) m.onVote({ vote: { type: 'prevote', height: H, round: r, blockHash: null, validator: v }, signature: new Uint8Array(template.signature.length) });
    }
    for (const v of f.addresses.slice(1, 3)) m.onVote(vote(f, 'prevote', H, 20, null, v));
    assert.equal(m.state().round, 20);
  });

  test('a validation the application failed to answer is asked again, and the height can still decide', () => {
    const f = fixture([1n, 1n, 1n, 1n]);
    const self = quietValidator(f);
    const a = block('a');
    const m = machineFor(f, self);
    m.start(H, f.set);
    const asked = ofType(m.onProposal(proposal(f, H, 0, -1, a.hash), a.block), 'requestValidation');
    assert.equal(asked.length, 1);
    assert.deepEqual(signedVotes(m.onValidationError(H, a.hash)), [{ type: 'prevote', round: 0, hash: 'nil' }], 'never a vote for an unchecked block');
    const decidedEarly = ofType(precommits(f, m, 0, a.hash, others(f, self)), 'decide');
    assert.equal(decidedEarly.length, 0, 'not decided while unvalidated');
    const again = ofType(m.onTimeout('precommit', H, 0), 'requestValidation');
    assert.equal(again.length, 1, 'asked again at the next timeout');
    const [d] = ofType(m.onValidation(H, a.hash, true), 'decide');
    assert.equal(d?.height, H);
  });

  test('catching up in step prevote with no timeout armed, an unanswered validation is retried and the certificate decides', () => {
    const f = fixture([1n, 1n, 1n, 1n]);
    const self = quietValidator(f);
    const a = block('a');
    const m = machineFor(f, self);
    m.start(H, f.set);
    m.onTimeout('propose', H, 0);
    const cert: CommitCertificate = { height: H, round: 0, blockHash: a.hash, precommits: others(f, self).map((v) => vote(f, 'precommit', H, 0, a.hash, v)) };
    assert.equal(ofType(m.onCommit(cert, a.block), 'requestValidation').length, 1);
    m.onValidationError(H, a.hash);
    assert.equal(m.valueStatus(a.hash), 'unanswered');
    assert.equal(ofType(m.onCommit(cert, a.block), 'requestValidation').length, 1, 'the certificate seen again asks again');
    m.onValidationError(H, a.hash);
    assert.equal(ofType(m.retryValidations(), 'requestValidation').length, 1, 'and so does the host\'s periodic retry');
    const [d] = ofType(m.onValidation(H, a.hash, true), 'decide');
    assert.equal(d?.height, H);
  });

  test('replayed copies of a genuine next-height message do not use up its sender\'s room', () => {
    const f = fixture([1n, 1n, 1n, 1n]);
    const self = quietValidator(f);
    const m = machineFor(f, self);
    m.start(H, f.set);
    const [x] = others(f, self) as [string];
    const copy = vote(f, 'prevote', H + 1, 0, null, x);
    for (let i = 0; i < 100; i++) m.onVote(copy);
    const a = block('next');
    for (let i = 0; i < 10; i++) m.onProposal(proposal(f, H + 1, 0, -1, a.hash), a.block);
    m.onProposal(proposal(f, H + 1, 0, -1, block('other').hash), block('other').block);
    m.onVote(vote(f, 'precommit', H + 1, 0, null, x));
    assert.deepEqual(m.bufferedFor(H + 1).map((b) => b.kind), ['vote', 'proposal', 'vote'], 'one of each: copies and a second proposal of the round are not kept');
  });
});

describe('validRound re-proposal (lines 15-16)', () => {
  test('a proposer holding validValue re-proposes it with pol_round = validRound instead of asking for a value', () => {
    const f = fixture([1n, 1n, 1n, 1n]);
    const self = nonProposer(f, H, 0);
    const a = block('a');
    const m = machineFor(f, self);
    lockInRound0(f, m, self, a);
    const target = roundProposedBy(f, self, H, 1);
    let out: MachineEffect[] = [];
    for (let r = 0; r < target; r++) out = m.onTimeout('precommit', H, r);
    assert.equal(ofType(out, 'requestValue').length, 0);
    const [sp] = ofType(out, 'signProposal');
    assert.ok(sp, `expected a proposal in round ${target}`);
    assert.equal(sp.proposal.round, target);
    assert.equal(sp.proposal.polRound, 0);
    assert.equal(hashKey(sp.proposal.blockHash), hashKey(a.hash));
    assert.deepEqual(sp.block, a.block);
  });
});
