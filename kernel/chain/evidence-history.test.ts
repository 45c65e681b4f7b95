import assert from 'node:assert/strict';
import { test } from 'node:test';
import pino from 'pino';
import { FIXTURE_CHAIN_ID, makeChain, VALIDATOR_KEY, type Fixture, type GenesisValidator } from '../../test/helpers/chain-fixture.js';
import { setChanger } from '../../test/helpers/set-changer.js';
import { toHex } from '../codec/hex.js';
import { makeEvidence, signVote, type ConsensusEvidence } from '../consensus/index.js';
import { sha3 } from '../crypto/hash.js';
import { nobleProvider } from '../crypto/noble-provider.js';
import type { KeyPair } from '../crypto/provider.js';
import type { ValidatorUpdate } from '../context/contexts.js';
import { EvidencePool, chainEvidence, proposalEvidenceVerifier } from '../replica/evidence-pool.js';
import { blockHash, evidenceHash } from './block-hash.js';
import type { ProposedBlock } from './chain.js';
import type { Evidence } from '../model/types.js';
import { VALIDATOR_HISTORY_PREFIX } from '../state/validator-history.js';

/*
 * Double-sign evidence is judged against the validator set of the height it names, from the
 * history committed state keeps, and only within `slash_evidence_window`: by the proposer that
 * puts it in a block, by every validator checking that block, and by the evidence pool.
 */

const V0 = 'chain:v0.node';
const V1 = 'chain:v1.node';
const V2 = 'chain:v2.node';
const K1 = nobleProvider.keygen(new Uint8Array(32).fill(71));
const K1_ROTATED = nobleProvider.keygen(new Uint8Array(32).fill(72));
const K2 = nobleProvider.keygen(new Uint8Array(32).fill(73));
const GENESIS: readonly GenesisValidator[] = [
  { address: V0, key: VALIDATOR_KEY, stake: '10' },
  { address: V1, key: K1, stake: '10' },
];

function doubleSign(key: KeyPair, validator: string, height: number): ConsensusEvidence {
  const vote = (seed: string) => signVote(nobleProvider, key.secretKey, 'test-chain', { type: 'prevote', height, round: 0, blockHash: sha3(seed), validator });
  return makeEvidence(vote(`block A at ${height}`), vote(`block B at ${height}`));
}

/** A chain of V0 and V1 whose set changes on `script`, its evidence checked as a replica checks it. */
async function chainWith(script: ReadonlyMap<number, readonly ValidatorUpdate[]>, windowBlocks: number, kv?: Fixture['kv']) {
  const changer = setChanger(script);
  const f = await makeChain({ plugins: [changer.plugin], validators: GENESIS, genesisParams: { slash_evidence_window: String(windowBlocks) }, ...(kv ? { kv } : {}) });
  const pool = new EvidencePool({ chain: f.chain, provider: nobleProvider, log: pino({ level: 'silent' }), broadcast: () => undefined });
  f.evidenceVerifier = proposalEvidenceVerifier(FIXTURE_CHAIN_ID, nobleProvider);
  return { f, pool, seen: changer.seen };
}

/** The next block carrying exactly `items`, as a proposer that skipped the checks would build it. */
async function carrying(f: Fixture, items: readonly Evidence[]): Promise<ProposedBlock> {
  const p = await f.chain.propose(0, V0, 0);
  const header = { ...p.header, evidence_hash: evidenceHash(items.map((e) => e.hash)) };
  return { ...p, header, hash: blockHash(header), evidence: items };
}

async function blocks(f: Fixture, n: number): Promise<void> {
  for (let i = 0; i < n; i++) await f.block();
}

test('a validator removed from the set after height h is still slashed for a double-sign at h, also after a restart', async () => {
  // Block 3 takes V1 out: it signs up to height 4 (changes count two heights on, SET_CHANGE_DELAY).
  const script = new Map([[3, [{ address: V1, public_key: toHex(K1.publicKey), power: 0n }]]]);
  const first = await chainWith(script, 10);
  await blocks(first.f, 4);
  assert.deepEqual((await first.f.chain.queries.validatorSet()).map((v) => v.address), [V0], 'V1 is out of the set');

  // The node restarts on its data: the history is state, not memory.
  const { f, pool, seen } = await chainWith(script, 10, first.f.kv);
  assert.equal((await f.chain.queries.validatorAt(V1, 4))?.public_key, toHex(K1.publicKey));
  assert.equal(await f.chain.queries.validatorAt(V1, 5), undefined);

  // A double-sign at its last height, judged in the block after it left.
  const ev = doubleSign(K1, V1, 4);
  await pool.add(ev, false);
  assert.deepEqual((await pool.proposable()).map((e) => e.hash), [chainEvidence(ev).hash], 'the pool holds it');
  const p = await f.chain.propose(0, V0, 0, await pool.proposable());
  assert.equal(p.evidence.length, 1, 'the proposer includes it');
  assert.equal(await f.chain.validate(p), null, 'validators accept it');
  await f.chain.finalize(p);
  assert.deepEqual(
    seen.map((e) => [e.validator, e.height, e.reporter]),
    [[V1, 4, V0]],
    'the evidence hook sees it once, with the proposer that included it as reporter',
  );
  const events = await f.chain.queries.getBlockEvents(5);
  assert.deepEqual(events.find((e) => e.type === 'evidence')?.data.reporter, V0);
});

test('evidence older than slash_evidence_window is refused by the proposer, by validators and by the pool; at the edge it is taken', async () => {
  const { f, pool } = await chainWith(new Map(), 3);
  const ev = doubleSign(K1, V1, 1);
  const item = chainEvidence(ev);
  await blocks(f, 3);
  // Block 4 is 3 blocks after height 1: the oldest it may judge.
  assert.equal(await f.chain.validate(await carrying(f, [item])), null);
  assert.equal((await f.chain.propose(0, V0, 0, [item])).evidence.length, 1);

  await blocks(f, 1);
  // Block 5 is 4 blocks after it.
  assert.equal((await f.chain.propose(0, V0, 0, [item])).evidence.length, 0, 'the proposer leaves it out');
  assert.match((await f.chain.validate(await carrying(f, [item]))) ?? '', /names height 1, more than slash_evidence_window \(3\) blocks before block 5/);
  await pool.add(ev, false);
  assert.deepEqual(await pool.proposable(), [], 'the pool does not take it');
  // Nor evidence of a height no block has reached.
  assert.match((await f.chain.validate(await carrying(f, [chainEvidence(doubleSign(K1, V1, 6))]))) ?? '', /names height 6, which block 5 cannot judge/);
});

test('evidence signed by a key that was not in the set at its height is refused', async () => {
  // Block 2 adds V2 and rotates V1's key: both from height 4 on.
  const script = new Map([
    [
      2,
      [
        { address: V1, public_key: toHex(K1_ROTATED.publicKey), power: 10n },
        { address: V2, public_key: toHex(K2.publicKey), power: 10n },
      ],
    ],
  ]);
  const { f, pool } = await chainWith(script, 10);
  await blocks(f, 4);
  const verdict = async (ev: ConsensusEvidence): Promise<string | null> => f.chain.validate(await carrying(f, [chainEvidence(ev)]));

  // V2 joined at height 4: before, its key signed nothing that counts.
  assert.match((await verdict(doubleSign(K2, V2, 3))) ?? '', /names chain:v2\.node, which was not a validator at height 3/);
  assert.equal((await f.chain.propose(0, V0, 0, [chainEvidence(doubleSign(K2, V2, 3))])).evidence.length, 0);
  assert.equal(await verdict(doubleSign(K2, V2, 4)), null);

  // V1's key up to height 3 was K1; K1_ROTATED from height 4.
  assert.match((await verdict(doubleSign(K1_ROTATED, V1, 3))) ?? '', /does not verify/);
  assert.equal(await verdict(doubleSign(K1, V1, 3)), null);
  assert.match((await verdict(doubleSign(K1, V1, 4))) ?? '', /does not verify/);

  for (const ev of [doubleSign(K2, V2, 3), doubleSign(K1_ROTATED, V1, 3), doubleSign(K1, V1, 4)]) await pool.add(ev, false);
  assert.deepEqual(await pool.proposable(), [], 'the pool refuses all three');
});

test('the history keeps what the window can still ask about, and drops older entries of a validator as it changes again', async () => {
  const power = (n: bigint): ValidatorUpdate[] => [{ address: V1, public_key: toHex(K1.publicKey), power: n }];
  // V1's power changes in blocks 2, 4 and 6: 11 from height 4, 12 from 6, 13 from 8.
  const { f } = await chainWith(new Map([[2, power(11n)], [4, power(12n)], [6, power(13n)]]), 2);
  await blocks(f, 6);
  // After block 6 the next block may judge heights 5 and on: the genesis record (in force up to
  // height 3) is gone; 11 (heights 4-5), 12 (6-7) and 13 remain.
  const entries = await f.chain.queries.state.scan(`${VALIDATOR_HISTORY_PREFIX}${V1}/`);
  assert.equal(entries.length, 3);
  assert.equal(await f.chain.queries.validatorAt(V1, 3), undefined, 'forgotten: no block may judge height 3 any more');
  assert.equal((await f.chain.queries.validatorAt(V1, 5))?.power, 11n);
  assert.equal((await f.chain.queries.validatorAt(V1, 7))?.power, 12n);
  assert.deepEqual((await f.chain.queries.validatorSet()).map((v) => [v.address, v.power]), [[V0, 10n], [V1, 12n]], 'block 7 is signed by the set block 5 left');
  assert.deepEqual((await f.chain.queries.validatorSetAt(8)).map((v) => [v.address, v.power]), [[V0, 10n], [V1, 13n]], 'and block 8 by the one block 6 left');
  await assert.rejects(f.chain.queries.validatorSetAt(9), /not known before block 7 is committed/);
});
