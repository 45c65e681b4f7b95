import assert from 'node:assert/strict';
import { test } from 'node:test';
import { makeChain, signTransfer, wallet } from '../../test/helpers/chain-fixture.js';
import { ScriptedTransport } from '../../test/helpers/scripted-transport.js';
import { testReplica } from '../../test/helpers/test-replica.js';
import { parseHex, toHex } from '../codec/hex.js';
import { decodeConsensusMessage, encodeConsensusMessage, signProposal, ValidatorSet, type ConsensusMessage, type SignedProposal } from '../consensus/index.js';
import { nobleProvider } from '../crypto/noble-provider.js';
import type { KeyPair } from '../crypto/provider.js';
import { proposedBlockCodec } from './block-codec.js';
import { DEFAULT_TIMESTAMP_PRECISION_MS } from './block-time.js';
import { TAG_TX_REQUEST, TAG_TX_TEXTS } from './envelope.js';
import { encodeTxAnswer } from './proposal-tx-fetch.js';

const CHAIN_ID = 'test-chain';
const keys: KeyPair[] = [1, 2, 3, 4].map((i) => nobleProvider.keygen(new Uint8Array(32).fill(140 + i)));
const validators = keys.map((k, i) => ({ address: `chain:v${i}.node`, key: k, stake: '10000000000' }));
const set = new ValidatorSet(validators.map((v, i) => ({ address: v.address, public_key: toHex(keys[i]!.publicKey), power: 10_000_000_000n })));
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

/**
 * Proposals from another validator arrive first and in numbers (`flood`); then the round-0
 * proposal, whose time is ahead of the clock at its arrival; then the clock jumps before the node
 * gets to it. Were the flood to fill the arrival table, the real one would be timed at the later
 * clock and prevoted. Returns the prevote's block hash.
 */
async function prevoteAfterFlood(flood: (block: { hash: string }, proposer: string, other: string) => SignedProposal[], withWorkers = false): Promise<string | null> {
  const proposer = set.proposer(1, 0).address;
  const self = validators.map((v) => v.address).find((a) => a !== proposer)!;
  const other = validators.map((v) => v.address).find((a) => a !== proposer && a !== self)!;
  const peer = await makeChain({ validators });
  const mine = await makeChain({ validators });
  const codec = proposedBlockCodec(peer.chain);
  let clock = NOW;
  const block = await peer.chain.propose(0, proposer, NOW + 2 * DEFAULT_TIMESTAMP_PRECISION_MS);
  const transport = new ScriptedTransport(self, validators.map((v) => v.address), (body) => decodeConsensusMessage(body, codec));
  const consensusCrypto = { verify: async (sig: Uint8Array, msg: Uint8Array, pk: Uint8Array) => nobleProvider.verify(sig, msg, pk), sign: async (msg: Uint8Array, sk: Uint8Array) => nobleProvider.sign(msg, sk) };
  const replica = testReplica({ chain: mine.chain, transport, signer: { address: self, keyPair: keyOf(self) }, now: () => clock, ...(withWorkers ? { consensusCrypto } : {}) });
  await replica.start();
  try {
    const prevote = transport.next((m: ConsensusMessage) => m.kind === 'vote' && m.vote.vote.validator === self && m.vote.vote.type === 'prevote' && m.vote.vote.height === 1);
    for (const p of flood(block, proposer, other)) transport.deliver(other, { kind: 'proposal', proposal: p, block }, (m) => encodeConsensusMessage(m, codec));
    const signed = signProposal(nobleProvider, keyOf(proposer).secretKey, CHAIN_ID, { height: 1, round: 0, polRound: -1, blockHash: parseHex(block.hash, 32)!, proposer });
    transport.deliver(proposer, { kind: 'proposal', proposal: signed, block }, (m) => encodeConsensusMessage(m, codec));
    clock = NOW + 10 * 60_000;
    const answer = await prevote;
    assert.ok(answer.kind === 'vote');
    return answer.vote.vote.blockHash === null ? null : toHex(answer.vote.vote.blockHash);
  } finally {
    await replica.stop();
  }
}

/** 260 proposals for round 0 under the proposer's name with another validator's signatures. */
function forgeries(_block: { hash: string }, proposer: string, other: string): SignedProposal[] {
  return Array.from({ length: 260 }, (_, i) => {
    const blockHash = new Uint8Array(32).fill(i % 256);
    blockHash[0] = Math.floor(i / 256);
    return signProposal(nobleProvider, keyOf(other).secretKey, CHAIN_ID, { height: 1, round: 0, polRound: -1, blockHash, proposer });
  });
}

test('forged proposals do not use up the arrival table: the real one is timed when it arrived', async () => {
  assert.equal(await prevoteAfterFlood(forgeries), null, 'signatures checked in-thread');
  assert.equal(await prevoteAfterFlood(forgeries, true), null, 'signatures checked on a worker');
});

test("a validator's genuine proposals for its far rounds do not use up the arrival table", async () => {
  const farRounds = (block: { hash: string }, _proposer: string, other: string): SignedProposal[] => {
    const rounds: number[] = [];
    for (let r = 1; rounds.length < 260; r++) if (set.proposer(1, r).address === other) rounds.push(r);
    return rounds.map((round) => signProposal(nobleProvider, keyOf(other).secretKey, CHAIN_ID, { height: 1, round, polRound: -1, blockHash: parseHex(block.hash, 32)!, proposer: other }));
  };
  assert.equal(await prevoteAfterFlood(farRounds), null);
});

/** What the node prevotes for a compact proposal whose one transfer it must fetch, with its clock moved 10 min on before the text comes. */
async function compactPrevote(blockTime: number): Promise<{ prevoted: string | null; proposed: string }> {
  const alice = wallet(61);
  const accounts = [{ address: alice.address, balance: 10_000_000n }];
  const proposer = set.proposer(1, 0).address;
  const self = validators.map((v) => v.address).find((a) => a !== proposer)!;
  const peer = await makeChain({ validators, accounts });
  const mine = await makeChain({ validators, accounts });
  await peer.chain.admit(signTransfer(alice, { to: wallet(62).address, value: 5, nonce: 1 }), 0);
  let clock = NOW;
  const block = await peer.chain.propose(0, proposer, blockTime);
  assert.equal(block.txs.length, 1);
  const compact = proposedBlockCodec(peer.chain, { compact: true });
  const transport = new ScriptedTransport(self, validators.map((v) => v.address), (body) => decodeConsensusMessage(body, proposedBlockCodec(peer.chain)));
  const replica = testReplica({ chain: mine.chain, transport, signer: { address: self, keyPair: keyOf(self) }, now: () => clock });
  await replica.start();
  try {
    const prevote = transport.next((m: ConsensusMessage) => m.kind === 'vote' && m.vote.vote.validator === self && m.vote.vote.type === 'prevote' && m.vote.vote.height === 1);
    const signed = signProposal(nobleProvider, keyOf(proposer).secretKey, CHAIN_ID, { height: 1, round: 0, polRound: -1, blockHash: parseHex(block.hash, 32)!, proposer });
    transport.deliver(proposer, { kind: 'proposal', proposal: signed, block }, (m) => encodeConsensusMessage(m, compact));
    // The request goes out once the proposal's signature has verified.
    while (!transport.sent.some((m) => m.tag === TAG_TX_REQUEST && m.peer === proposer)) await new Promise(setImmediate);
    clock = NOW + 10 * 60_000;
    await transport.inject(proposer, TAG_TX_TEXTS, encodeTxAnswer([{ origin: 'signed', canonical: block.txs[0]!.canonical }], false));
    const answer = await prevote;
    assert.ok(answer.kind === 'vote');
    return { prevoted: answer.vote.vote.blockHash === null ? null : toHex(answer.vote.vote.blockHash), proposed: toHex(parseHex(block.hash, 32)!) };
  } finally {
    await replica.stop();
  }
}

test('a compact proposal is timed when it arrived, not when its missing transactions came', async () => {
  // Judged at the arrival, a block 1 s ahead of the clock is from the node's future, though the
  // clock has passed it by the time the text comes; a block of the arrival's time is prevoted.
  assert.equal((await compactPrevote(NOW + 2 * DEFAULT_TIMESTAMP_PRECISION_MS)).prevoted, null);
  const timely = await compactPrevote(NOW);
  assert.equal(timely.prevoted, timely.proposed);
});
