import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { block, fixture, proposal, vote } from '../../test/simulation/consensus-fixtures.js';
import { toHex0x } from '../codec/hex.js';
import { nobleProvider } from '../crypto/noble-provider.js';
import { proposalSignBytes, signVote, verifyVoteSignature, voteSignBytes } from './encoding.js';
import { makeEvidence } from './evidence.js';
import {
  certificateFromJson,
  certificateToJson,
  decodeConsensusMessage,
  encodeConsensusMessage,
  evidenceFromJson,
  evidenceToJson,
  type BlockCodec,
} from './wire.js';

const text = (b: Uint8Array): string => new TextDecoder().decode(b);
const codec: BlockCodec = {
  encode: (b) => b as { label: string },
  decode: (j) => (typeof j === 'object' && j !== null && typeof (j as { label?: unknown }).label === 'string' ? j : undefined),
};

describe('sign bytes', () => {
  const a = block('a').hash;

  test('vote layout', () => {
    assert.equal(
      text(voteSignBytes('net-1', { type: 'prevote', height: 12, round: 0, blockHash: a, validator: 'chain:x.node' })),
      `ch-vote-v1|net-1|prevote|12|0|${toHex0x(a)}|chain:x.node`,
    );
    assert.equal(
      text(voteSignBytes('net-1', { type: 'precommit', height: 12, round: 3, blockHash: null, validator: 'chain:x.node' })),
      'ch-vote-v1|net-1|precommit|12|3|nil|chain:x.node',
    );
  });

  test('proposal layout, with and without pol_round and timestamp', () => {
    const base = { height: 7, round: 2, polRound: -1, blockHash: a, proposer: 'chain:p.node' };
    assert.equal(text(proposalSignBytes('net-1', base)), `ch-proposal-v1|net-1|7|2|nil|${toHex0x(a)}|chain:p.node|nil`);
    assert.equal(
      text(proposalSignBytes('net-1', { ...base, polRound: 1, timestampMs: 1700000000000 })),
      `ch-proposal-v1|net-1|7|2|1|${toHex0x(a)}|chain:p.node|1700000000000`,
    );
  });

  test('fields that would make the layout ambiguous are refused', () => {
    const v = { type: 'prevote' as const, height: 1, round: 0, blockHash: null, validator: 'chain:x.node' };
    assert.throws(() => voteSignBytes('a|b', v));
    assert.throws(() => voteSignBytes('', v));
    assert.throws(() => voteSignBytes('c', { ...v, validator: 'x|y' }));
    assert.throws(() => voteSignBytes('c', { ...v, height: -1 }));
    assert.throws(() => voteSignBytes('c', { ...v, round: 1.5 }));
    assert.throws(() => voteSignBytes('c', { ...v, blockHash: new Uint8Array(31) }));
    assert.throws(() => proposalSignBytes('c', { height: 1, round: 1, polRound: 1, blockHash: a, proposer: 'p' }), 'pol_round must be below round');
  });

  test('ML-DSA-65 (noble) signs and verifies a vote; another chain id does not verify', () => {
    const kp = nobleProvider.keygen(new Uint8Array(32).fill(7));
    const sv = signVote(nobleProvider, kp.secretKey, 'net-1', { type: 'precommit', height: 1, round: 0, blockHash: a, validator: 'chain:x.node' });
    assert.equal(verifyVoteSignature(nobleProvider, 'net-1', sv, kp.publicKey), true);
    assert.equal(verifyVoteSignature(nobleProvider, 'net-2', sv, kp.publicKey), false);
  });
});

describe('wire messages', () => {
  const f = fixture([1n, 1n, 1n, 1n]);
  const [v0, v1] = f.addresses as [string, string];
  const b = block('b');

  test('vote, proposal, commit and evidence round-trip', () => {
    const sv = vote(f, 'prevote', 3, 1, null, v0);
    assert.deepEqual(decodeConsensusMessage(encodeConsensusMessage({ kind: 'vote', vote: sv }, codec), codec), { kind: 'vote', vote: sv });
    const sp = proposal(f, 3, 1, 0, b.hash);
    assert.deepEqual(decodeConsensusMessage(encodeConsensusMessage({ kind: 'proposal', proposal: sp, block: b.block }, codec), codec), {
      kind: 'proposal',
      proposal: sp,
      block: b.block,
    });
    const cert = { height: 3, round: 1, blockHash: b.hash, precommits: [vote(f, 'precommit', 3, 1, b.hash, v0), vote(f, 'precommit', 3, 1, b.hash, v1)] };
    assert.deepEqual(certificateFromJson(JSON.parse(JSON.stringify(certificateToJson(cert))) as unknown), cert);
    assert.deepEqual(decodeConsensusMessage(encodeConsensusMessage({ kind: 'commit', certificate: cert, block: b.block }, codec), codec), {
      kind: 'commit',
      certificate: cert,
      block: b.block,
    });
    const e = makeEvidence(sv, vote(f, 'prevote', 3, 1, b.hash, v0));
    assert.deepEqual(evidenceFromJson(JSON.parse(JSON.stringify(evidenceToJson(e))) as unknown), e);
  });

  test('JSON form uses snake_case, 0x hashes and bare hex signatures', () => {
    const sv = vote(f, 'precommit', 3, 1, b.hash, v0);
    const json = JSON.parse(text(encodeConsensusMessage({ kind: 'vote', vote: sv }, codec))) as { vote: Record<string, unknown> };
    assert.equal(json.vote['block_hash'], toHex0x(b.hash));
    assert.match(String(json.vote['signature']), /^[0-9a-f]+$/);
  });

  test('malformed input decodes to null', () => {
    const sv = vote(f, 'prevote', 3, 1, b.hash, v0);
    const good = JSON.parse(text(encodeConsensusMessage({ kind: 'vote', vote: sv }, codec))) as { kind: string; vote: Record<string, unknown> };
    const enc = (o: unknown): Uint8Array => new TextEncoder().encode(JSON.stringify(o));
    const variants: unknown[] = [
      { ...good, kind: 'nope' },
      { ...good, vote: { ...good.vote, type: 'commit' } },
      { ...good, vote: { ...good.vote, height: -1 } },
      { ...good, vote: { ...good.vote, round: 1.5 } },
      { ...good, vote: { ...good.vote, height: 2 ** 53 } },
      { ...good, vote: { ...good.vote, block_hash: '0x1234' } },
      { ...good, vote: { ...good.vote, block_hash: String(good.vote['block_hash']).toUpperCase() } },
      { ...good, vote: { ...good.vote, signature: 'xyz' } },
      { ...good, vote: { ...good.vote, signature: '0x' + String(good.vote['signature']) } },
      { ...good, vote: { ...good.vote, validator: 'a|b' } },
      { kind: 'proposal', proposal: { height: 1, round: 1, pol_round: 1, block_hash: good.vote['block_hash'], proposer: 'p', signature: 'aa' }, block: { label: 'x' } },
      { kind: 'proposal', proposal: { height: 1, round: 1, pol_round: -1, block_hash: good.vote['block_hash'], proposer: 'p', signature: 'aa' }, block: 42 },
    ];
    for (const v of variants) assert.equal(decodeConsensusMessage(enc(v), codec), null, JSON.stringify(v).slice(0, 80));
    assert.equal(decodeConsensusMessage(new Uint8Array([0xff, 0xfe]), codec), null);
    assert.equal(decodeConsensusMessage(new TextEncoder().encode('[1,2]'), codec), null);
  });
});
