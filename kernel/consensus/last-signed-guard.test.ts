import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { block, CHAIN } from '../../test/simulation/consensus-fixtures.js';
import { Sha3MacTestProvider } from '../../test/simulation/sha3-mac-provider.js';
import { sha3 } from '../crypto/hash.js';
import { voteSignBytes } from './encoding.js';
import { LastSignedGuard, type LastSignedState } from './last-signed-guard.js';
import { DoubleSignRefusedError, LocalPrivValidator } from './priv-validator.js';
import type { Vote } from './types.js';

const ADDR = 'chain:me.node';
const A = block('a').hash;
const B = block('b').hash;

function prevote(height: number, round: number, hash: Uint8Array | null): Vote {
  return { type: 'prevote', height, round, blockHash: hash, validator: ADDR };
}

describe('LastSignedGuard', () => {
  test('identical request reuses the signature; a conflicting one is refused', () => {
    const g = new LastSignedGuard();
    const bytes = voteSignBytes(CHAIN, prevote(5, 1, A));
    assert.equal(g.check(5, 1, 'prevote', bytes).kind, 'sign');
    g.record(5, 1, 'prevote', bytes, 'a', new Uint8Array([9, 9]));
    const again = g.check(5, 1, 'prevote', bytes);
    assert.equal(again.kind, 'reuse');
    assert.deepEqual(again.kind === 'reuse' && [...again.signature], [9, 9]);
    const conflict = g.check(5, 1, 'prevote', voteSignBytes(CHAIN, prevote(5, 1, B)));
    assert.equal(conflict.kind, 'refuse');
    assert.equal(g.check(5, 1, 'prevote', voteSignBytes(CHAIN, prevote(5, 1, null))).kind, 'refuse', 'nil conflicts with a block too');
  });

  test('moves forward only: later step, round and height are allowed, earlier ones refused', () => {
    const g = new LastSignedGuard();
    g.record(5, 2, 'prevote', sha3('x'), 'a', new Uint8Array([1]));
    assert.equal(g.check(5, 2, 'precommit', sha3('y')).kind, 'sign');
    assert.equal(g.check(5, 3, 'proposal', sha3('y')).kind, 'sign');
    assert.equal(g.check(6, 0, 'proposal', sha3('y')).kind, 'sign');
    assert.equal(g.check(5, 2, 'proposal', sha3('y')).kind, 'refuse', 'proposal after prevote in one round');
    assert.equal(g.check(5, 1, 'precommit', sha3('y')).kind, 'refuse', 'earlier round');
    assert.equal(g.check(4, 9, 'precommit', sha3('y')).kind, 'refuse', 'earlier height');
    g.record(6, 0, 'prevote', sha3('z'), 'nil', new Uint8Array([2]));
    assert.equal(g.check(5, 9, 'precommit', sha3('y')).kind, 'refuse', 'the old height is closed');
  });

  test('state survives JSON round trip and keeps refusing', () => {
    const g = new LastSignedGuard();
    const bytes = voteSignBytes(CHAIN, prevote(7, 0, A));
    g.record(7, 0, 'prevote', bytes, 'a', new Uint8Array([4, 5, 6]));
    const restored = LastSignedGuard.fromJSON(JSON.parse(JSON.stringify(g.toJSON())) as unknown);
    assert.deepEqual(restored.toJSON(), g.toJSON());
    assert.equal(restored.check(7, 0, 'prevote', voteSignBytes(CHAIN, prevote(7, 0, B))).kind, 'refuse');
    assert.equal(restored.check(7, 0, 'prevote', bytes).kind, 'reuse');
  });

  test('malformed persisted state is an error, not a fresh guard', () => {
    const good: LastSignedState = new LastSignedGuard().toJSON();
    assert.throws(() => LastSignedGuard.fromJSON(null));
    assert.throws(() => LastSignedGuard.fromJSON({ ...good, version: 2 }));
    assert.throws(() => LastSignedGuard.fromJSON({ ...good, height: -1 }));
    assert.throws(() => LastSignedGuard.fromJSON({ ...good, entries: [{ round: 0, step: 'vote', signBytesHash: '00', target: 'a', signature: '00' }] }));
  });
});

describe('LocalPrivValidator', () => {
  const keyPair = Sha3MacTestProvider.keygen(sha3('priv'));

  test('persists the guard before returning, and refuses to double-sign', async () => {
    const persisted: LastSignedState[] = [];
    const pv = new LocalPrivValidator({
      address: ADDR,
      keyPair,
      provider: Sha3MacTestProvider,
      persist: async (s) => {
        persisted.push(s);
      },
    });
    const sv = await pv.signVote(CHAIN, prevote(3, 0, A));
    assert.equal(persisted.length, 1);
    assert.equal(persisted[0]!.height, 3);
    assert.ok(Sha3MacTestProvider.verify(sv.signature, voteSignBytes(CHAIN, sv.vote), keyPair.publicKey));
    const again = await pv.signVote(CHAIN, prevote(3, 0, A));
    assert.deepEqual(again.signature, sv.signature);
    assert.equal(persisted.length, 1, 'a reused signature needs no new write');
    await assert.rejects(pv.signVote(CHAIN, prevote(3, 0, B)), DoubleSignRefusedError);
    await assert.rejects(pv.signVote(CHAIN, { ...prevote(3, 1, A), validator: 'chain:other.node' }));
  });

  test('a failed persist withholds the signature but still blocks a conflicting one', async () => {
    const pv = new LocalPrivValidator({
      address: ADDR,
      keyPair,
      provider: Sha3MacTestProvider,
      persist: async () => {
        throw new Error('disk full');
      },
    });
    await assert.rejects(pv.signVote(CHAIN, prevote(3, 0, A)), /disk full/);
    await assert.rejects(pv.signVote(CHAIN, prevote(3, 0, B)), DoubleSignRefusedError);
  });

  test('concurrent conflicting requests: exactly one is signed', async () => {
    const pv = new LocalPrivValidator({ address: ADDR, keyPair, provider: Sha3MacTestProvider, persist: () => new Promise((r) => setImmediate(r)) });
    const results = await Promise.allSettled([pv.signVote(CHAIN, prevote(9, 0, A)), pv.signVote(CHAIN, prevote(9, 0, B))]);
    assert.deepEqual(results.map((r) => r.status), ['fulfilled', 'rejected']);
  });

  test('a restarted signer with the persisted state will not sign a conflicting proposal', async () => {
    let saved: LastSignedState | undefined;
    const first = new LocalPrivValidator({ address: ADDR, keyPair, provider: Sha3MacTestProvider, persist: async (s) => void (saved = s) });
    const proposal = { height: 4, round: 1, polRound: -1, blockHash: A, proposer: ADDR };
    await first.signProposal(CHAIN, proposal);
    const restarted = new LocalPrivValidator({
      address: ADDR,
      keyPair,
      provider: Sha3MacTestProvider,
      guard: LastSignedGuard.fromJSON(JSON.parse(JSON.stringify(saved)) as unknown),
    });
    await assert.rejects(restarted.signProposal(CHAIN, { ...proposal, blockHash: B }), DoubleSignRefusedError);
    await restarted.signProposal(CHAIN, proposal);
  });
  test('a hedged signer (fresh randomness per signature): a restarted validator re-sends the exact bytes it persisted', async () => {
    let saved: LastSignedState | undefined;
    let calls = 0;
    // Stands in for PQClean's hedged signer: every call returns different bytes.
    const hedged = async (message: Uint8Array): Promise<Uint8Array> => Uint8Array.from([...sha3(message).subarray(0, 8), ++calls]);
    const first = new LocalPrivValidator({ address: ADDR, keyPair, provider: Sha3MacTestProvider, signAsync: hedged, persist: async (s) => void (saved = s) });
    const vote = prevote(6, 2, A);
    const signed = await first.signVote(CHAIN, vote);
    assert.equal(calls, 1);
    const restarted = new LocalPrivValidator({ address: ADDR, keyPair, provider: Sha3MacTestProvider, signAsync: hedged, guard: LastSignedGuard.fromJSON(JSON.parse(JSON.stringify(saved)) as unknown) });
    const again = await restarted.signVote(CHAIN, vote);
    assert.deepEqual(again.signature, signed.signature, 'the recorded signature, not a new one');
    assert.equal(calls, 1, 'the signer was not asked again');
    await restarted.signVote(CHAIN, { ...vote, type: 'precommit' });
    assert.equal(calls, 2, 'a new step is signed afresh');
  });
});
