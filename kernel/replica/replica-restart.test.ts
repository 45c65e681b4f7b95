import assert from 'node:assert/strict';
import { test } from 'node:test';
import { makeChain } from '../../test/helpers/chain-fixture.js';
import { tempDir } from '../../test/helpers/temp-dir.js';
import type { ProposedBlock } from '../chain/chain.js';
import { parseHex, toHex } from '../codec/hex.js';
import { utf8Bytes } from '../codec/utf8.js';
import {
  certificateToJson,
  decodeConsensusMessage,
  encodeConsensusMessage,
  signProposal,
  signVote,
  ValidatorSet,
  type ConsensusMessage,
  type SignedVote,
  type VoteType,
} from '../consensus/index.js';
import { nobleProvider } from '../crypto/noble-provider.js';
import type { KeyPair } from '../crypto/provider.js';
import { proposedBlockCodec } from './block-codec.js';
import { ScriptedTransport } from '../../test/helpers/scripted-transport.js';
import type { Replica } from './replica.js';
import { testReplica } from '../../test/helpers/test-replica.js';
import { Wal } from './wal.js';
import { join } from 'node:path';

const CHAIN_ID = 'test-chain';
const keys: KeyPair[] = [1, 2, 3, 4].map((i) => nobleProvider.keygen(new Uint8Array(32).fill(100 + i)));
const validators = keys.map((k, i) => ({ address: `chain:v${i}.node`, key: k, stake: '10000000000' }));
const set = new ValidatorSet(validators.map((v, i) => ({ address: v.address, public_key: toHex(keys[i]!.publicKey), power: 10_000_000_000n })));
const keyOf = (address: string): KeyPair => keys[validators.findIndex((v) => v.address === address)]!;

const vote = (type: VoteType, height: number, round: number, hash: Uint8Array | null, validator: string): SignedVote =>
  signVote(nobleProvider, keyOf(validator).secretKey, CHAIN_ID, { type, height, round, blockHash: hash, validator });

const ownVote = (self: string, type: VoteType, height: number, round: number) => (m: ConsensusMessage): boolean =>
  m.kind === 'vote' && m.vote.vote.validator === self && m.vote.vote.type === type && m.vote.vote.height === height && m.vote.vote.round === round;

test('a validator that locked on a block seen a height early keeps that lock across a crash', async () => {
  // The next height's proposal and prevotes reach this node while it still finishes the current
  // height; it commits, starts the next one, and prevotes and precommits (locks on) that block
  // at once. Its WAL must then hold what the lock rests on: replayed after a crash without them,
  // the node would forget the lock and could prevote another block in a later round.
  const self = validators.map((v) => v.address).find((a) => a !== set.proposer(1, 0).address && a !== set.proposer(2, 0).address && a !== set.proposer(2, 1).address)!;
  const others = validators.map((v) => v.address).filter((a) => a !== self);
  const peer = await makeChain({ validators });
  const mine = await makeChain({ validators });
  const codec = proposedBlockCodec(peer.chain);
  const encode = (m: ConsensusMessage): Uint8Array => encodeConsensusMessage(m, codec);
  const dataDir = tempDir('replica-restart-');
  const replicaOn = (transport: ScriptedTransport): Replica => testReplica({ chain: mine.chain, transport, signer: { address: self, keyPair: keyOf(self) }, dataDir });

  // Height 1 as the other three decide it, and the block proposed for height 2 on top of it.
  const p1 = await peer.chain.propose(0, set.proposer(1, 0).address, 1_700_000_010_000);
  assert.equal(await peer.chain.validate(p1), null);
  const h1 = parseHex(p1.hash, 32)!;
  const precommits1 = others.map((v) => vote('precommit', 1, 0, h1, v));
  await peer.chain.finalize(p1, { bytes: utf8Bytes(JSON.stringify(certificateToJson({ height: 1, round: 0, blockHash: h1, precommits: precommits1 }))), signers: others });
  const a = await peer.chain.propose(0, set.proposer(2, 0).address, 1_700_000_011_000);
  const hashA = parseHex(a.hash, 32)!;
  const b = await peer.chain.propose(1, set.proposer(2, 1).address, 1_700_000_012_000);
  const hashB = parseHex(b.hash, 32)!;
  const signedProposal = (block: ProposedBlock, height: number, round: number, hash: Uint8Array) => {
    const proposer = set.proposer(height, round).address;
    return signProposal(nobleProvider, keyOf(proposer).secretKey, CHAIN_ID, { height, round, polRound: -1, blockHash: hash, proposer });
  };

  const first = new ScriptedTransport(self, validators.map((v) => v.address), (body) => decodeConsensusMessage(body, codec));
  const replica = replicaOn(first);
  await replica.start();
  const locked = first.next(ownVote(self, 'precommit', 2, 0));
  first.deliver(set.proposer(2, 0).address, { kind: 'proposal', proposal: signedProposal(a, 2, 0, hashA), block: a }, encode);
  for (const v of others) first.deliver(v, { kind: 'vote', vote: vote('prevote', 2, 0, hashA, v) }, encode);
  first.deliver(set.proposer(1, 0).address, { kind: 'proposal', proposal: signedProposal(p1, 1, 0, h1), block: p1 }, encode);
  for (const sv of precommits1) first.deliver(sv.vote.validator, { kind: 'vote', vote: sv }, encode);
  const precommit = await locked;
  assert.ok(precommit.kind === 'vote' && toHex(precommit.vote.vote.blockHash!) === toHex(hashA), 'locked on A at height 2, round 0');
  await replica.stop(); // the process dies here: nothing but the WAL and the signer's state survive

  const wal = await Wal.open(join(dataDir, 'consensus.wal'));
  await wal.wal.close();
  const logged = wal.entries.map((e) => decodeConsensusMessage(e, codec)).filter((m) => m !== null);
  assert.ok(logged.some((m) => m.kind === 'proposal' && m.proposal.proposal.height === 2), 'the early proposal is in the WAL');
  assert.equal(logged.filter((m) => m.kind === 'vote' && m.vote.vote.height === 2 && m.vote.vote.type === 'prevote').length, 4, 'so are the prevotes it locked on');

  // Restarted: round 1 brings a fresh proposal of B. A node that kept its lock prevotes nil.
  const second = new ScriptedTransport(self, validators.map((v) => v.address), (body) => decodeConsensusMessage(body, codec));
  const restarted = replicaOn(second);
  await restarted.start();
  const prevote = second.next(ownVote(self, 'prevote', 2, 1));
  for (const v of others.slice(0, 2)) second.deliver(v, { kind: 'vote', vote: vote('prevote', 2, 1, null, v) }, encode);
  second.deliver(set.proposer(2, 1).address, { kind: 'proposal', proposal: signedProposal(b, 2, 1, hashB), block: b }, encode);
  const answer = await prevote;
  await restarted.stop();
  assert.ok(answer.kind === 'vote');
  assert.equal(answer.vote.vote.blockHash, null, 'still locked on A: no prevote for B');
});
