import assert from 'node:assert/strict';
import { test } from 'node:test';
import { makeChain } from '../../test/helpers/chain-fixture.js';
import { ScriptedTransport } from '../../test/helpers/scripted-transport.js';
import { testReplica } from '../../test/helpers/test-replica.js';
import { parseHex, toHex } from '../codec/hex.js';
import { decodeConsensusMessage, encodeConsensusMessage, signProposal, ValidatorSet, type ConsensusMessage } from '../consensus/index.js';
import { nobleProvider } from '../crypto/noble-provider.js';
import type { KeyPair } from '../crypto/provider.js';
import { proposedBlockCodec } from './block-codec.js';
import { DEFAULT_TIMESTAMP_PRECISION_MS } from './block-time.js';

const CHAIN_ID = 'test-chain';
const keys: KeyPair[] = [1, 2, 3, 4].map((i) => nobleProvider.keygen(new Uint8Array(32).fill(140 + i)));
const validators = keys.map((k, i) => ({ address: `chain:v${i}.node`, public_key: toHex(k.publicKey), stake: '10000000000' }));
const set = new ValidatorSet(validators.map((v, i) => ({ address: v.address, publicKey: keys[i]!.publicKey, power: 10_000_000_000n })));
const keyOf = (address: string): KeyPair => keys[validators.findIndex((v) => v.address === address)]!;
/** The validator under test's clock. */
const NOW = 1_700_000_100_000;

/** What a real Replica prevotes at height 1, round 0, for a valid proposal whose block time is `blockTime`. */
async function prevoteFor(blockTime: number): Promise<{ prevoted: string | null; proposed: string }> {
  const proposer = set.proposer(1, 0).address;
  const self = validators.map((v) => v.address).find((a) => a !== proposer)!;
  const peer = await makeChain({ validators });
  const mine = await makeChain({ validators });
  const codec = proposedBlockCodec(peer.chain);
  const block = await peer.chain.propose(0, proposer, blockTime);
  assert.equal(await peer.chain.validate(block), null, 'the block is valid: validity does not read a clock');
  const hash = parseHex(block.hash, 32)!;
  const transport = new ScriptedTransport(self, validators.map((v) => v.address), (body) => decodeConsensusMessage(body, codec));
  const replica = testReplica({ chain: mine.chain, transport, signer: { address: self, keyPair: keyOf(self) }, now: () => NOW });
  await replica.start();
  try {
    const prevote = transport.next((m: ConsensusMessage) => m.kind === 'vote' && m.vote.vote.validator === self && m.vote.vote.type === 'prevote' && m.vote.vote.height === 1);
    const signed = signProposal(nobleProvider, keyOf(proposer).secretKey, CHAIN_ID, { height: 1, round: 0, polRound: -1, blockHash: hash, proposer });
    transport.deliver(proposer, { kind: 'proposal', proposal: signed, block }, (m) => encodeConsensusMessage(m, codec));
    const answer = await prevote;
    assert.ok(answer.kind === 'vote');
    return { prevoted: answer.vote.vote.blockHash === null ? null : toHex(answer.vote.vote.blockHash), proposed: toHex(hash) };
  } finally {
    await replica.stop();
  }
}

test('a validator prevotes nil for a block whose time is ahead of its clock by more than the precision', async () => {
  const ahead = await prevoteFor(NOW + 10 * 60_000);
  assert.equal(ahead.prevoted, null);
});

test('a block time within the precision of the clock, or behind it, is prevoted', async () => {
  const edge = await prevoteFor(NOW + DEFAULT_TIMESTAMP_PRECISION_MS);
  assert.equal(edge.prevoted, edge.proposed);
  const behind = await prevoteFor(NOW - 5_000);
  assert.equal(behind.prevoted, behind.proposed);
});
