import assert from 'node:assert/strict';
import { test } from 'node:test';
import { makeChain } from '../../test/helpers/chain-fixture.js';
import { ScriptedTransport } from '../../test/helpers/scripted-transport.js';
import { testReplica } from '../../test/helpers/test-replica.js';
import type { ProposedBlock } from '../chain/chain.js';
import { toHex } from '../codec/hex.js';
import { decodeConsensusMessage, evidenceToJson, makeEvidence, signVote, ValidatorSet } from '../consensus/index.js';
import { sha3 } from '../crypto/hash.js';
import { nobleProvider } from '../crypto/noble-provider.js';
import { proposedBlockCodec } from './block-codec.js';
import { TAG_EVIDENCE } from './envelope.js';

const keys = [1, 2, 3, 4].map((i) => nobleProvider.keygen(new Uint8Array(32).fill(140 + i)));
const validators = keys.map((k, i) => ({ address: `chain:e${i}.node`, key: k, stake: '10000000000' }));
const set = new ValidatorSet(validators.map((v, i) => ({ address: v.address, public_key: toHex(keys[i]!.publicKey), power: 10_000_000_000n })));

test('a validator\'s equivocations enter the pool a few at a time, and a proposal carries what the pool holds', async () => {
  const { chain } = await makeChain({ validators });
  const self = set.proposer(1, 0).address;
  const offender = validators.find((v) => v.address !== self)!;
  const offenderKey = keys[validators.indexOf(offender)]!;
  const transport = new ScriptedTransport(self, validators.map((v) => v.address), (body) => decodeConsensusMessage(body, proposedBlockCodec(chain)));
  const replica = testReplica({
    chain,
    transport,
    signer: { address: self, keyPair: keys[validators.findIndex((v) => v.address === self)]! },
    // The proposer of height 1 waits this long on an idle chain: the evidence arrives first.
    pace: { blockMs: 200, emptyBlockMs: 400 },
  });
  const proposed = transport.next((m) => m.kind === 'proposal');
  await replica.start();
  try {
    // Six double-signs by one validator, each a different round: only four are held.
    for (let round = 0; round < 6; round++) {
      const vote = (hash: Uint8Array | null) => signVote(nobleProvider, offenderKey.secretKey, 'test-chain', { type: 'prevote', height: 1, round, blockHash: hash, validator: offender.address });
      await transport.inject(offender.address, TAG_EVIDENCE, evidenceToJson(makeEvidence(vote(null), vote(sha3(`block ${round}`)))));
    }
    // And one whose second vote is not the offender's signature: refused.
    const forged = signVote(nobleProvider, offenderKey.secretKey, 'test-chain', { type: 'precommit', height: 1, round: 0, blockHash: null, validator: offender.address });
    const other = { ...forged, vote: { ...forged.vote, blockHash: sha3('x') } };
    await transport.inject(offender.address, TAG_EVIDENCE, evidenceToJson(makeEvidence(forged, other)));
    const m = await proposed;
    assert.ok(m.kind === 'proposal');
    const block = m.block as ProposedBlock;
    assert.equal(block.evidence.length, 4, 'four pieces per validator');
    assert.ok(block.evidence.every((e) => e.validator === offender.address && e.height === 1));
    assert.deepEqual(block.evidence.map((e) => e.round).sort(), [0, 1, 2, 3]);
  } finally {
    await replica.stop();
  }
});
