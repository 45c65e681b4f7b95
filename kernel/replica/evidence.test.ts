import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeChain, VALIDATOR_KEY } from '../../test/helpers/chain-fixture.js';
import { definePlugin } from '../host/plugin.js';
import { nobleProvider } from '../crypto/noble-provider.js';
import { sha3 } from '../crypto/hash.js';
import { sha3Hex0x } from '../crypto/hash.js';
import { ValidatorSet, evidenceFromJson, evidenceId, evidenceToJson, makeEvidence, signVote, verifyEvidence } from '../consensus/index.js';
import type { Evidence } from '../model/types.js';
import { toHex } from '../codec/hex.js';

/**
 * Double-sign evidence from consensus to the `evidence` hook: two different votes of one validator
 * for one height and round are verified, carried by a block, handed to plugins once, and a block
 * that carries them again is refused.
 */
test('verified double-sign evidence reaches the evidence hook exactly once', async () => {
  const seen: Evidence[] = [];
  const recorder = definePlugin({
    name: 'slash-recorder',
    kind: 'state',
    description: 'records evidence (the slashing plugin acts on it later)',
    register(api) {
      api.hooks.evidence.tapPromise(api.name, async (ctx, ev) => {
        seen.push(ev);
        ctx.store.setRecord(`ev/${ev.hash}`, { validator: ev.validator, at: ctx.height });
      });
    },
  });
  const f = await makeChain({ plugins: [recorder] });
  const set = new ValidatorSet([{ address: 'chain:v0.node', public_key: toHex(VALIDATOR_KEY.publicKey), power: 10n }]);
  const vote = (hashSeed: string) => signVote(nobleProvider, VALIDATOR_KEY.secretKey, 'test-chain', { type: 'prevote', height: 1, round: 0, blockHash: sha3(hashSeed), validator: 'chain:v0.node' });
  const ev = makeEvidence(vote('block A'), vote('block B'));
  assert.equal(verifyEvidence(ev, set, 'test-chain', nobleProvider).ok, true);
  const item: Evidence = { hash: sha3Hex0x(evidenceId(ev)), kind: 'duplicate-vote', validator: 'chain:v0.node', height: 1, round: 0, raw: evidenceToJson(ev) };
  f.evidenceVerifier = async (raw) => {
    const parsed = evidenceFromJson(raw);
    return parsed && verifyEvidence(parsed, set, 'test-chain', nobleProvider).ok ? item : null;
  };

  const p1 = await f.chain.propose(0, 'chain:v0.node', 1_800_000_000_000, [item]);
  assert.equal(p1.evidence.length, 1);
  assert.equal(await f.chain.validate(p1), null);
  await f.chain.finalize(p1);
  assert.equal(seen.length, 1);
  assert.equal(seen[0]!.validator, 'chain:v0.node');
  assert.ok(await f.chain.queries.state.get(`slash-recorder/ev/${item.hash}`));

  // The proposer drops evidence already applied; a block that carries it anyway is refused.
  const p2 = await f.chain.propose(0, 'chain:v0.node', 1_800_000_001_000, [item]);
  assert.equal(p2.evidence.length, 0);
  const { blockHash, evidenceHash } = await import('../chain/block-hash.js');
  const header = { ...p2.header, evidence_hash: evidenceHash([item.hash]) };
  const replayed = { ...p2, header, hash: blockHash(header), evidence: [item] };
  assert.match((await f.chain.validate(replayed)) ?? '', /already applied/);

  // Forged evidence (a vote signed by another key) does not verify.
  const forgedVote = signVote(nobleProvider, nobleProvider.keygen(new Uint8Array(32).fill(9)).secretKey, 'test-chain', { type: 'prevote', height: 1, round: 0, blockHash: sha3('block C'), validator: 'chain:v0.node' });
  const forged = makeEvidence(vote('block A'), forgedVote);
  assert.equal(verifyEvidence(forged, set, 'test-chain', nobleProvider).ok, false);
  const forgedItem = { ...item, hash: '0x' + 'ee'.repeat(32), raw: evidenceToJson(forged) };
  const h3 = { ...p2.header, evidence_hash: evidenceHash([forgedItem.hash]) };
  assert.match((await f.chain.validate({ ...p2, header: h3, hash: blockHash(h3), evidence: [forgedItem] })) ?? '', /does not verify/);
  await f.chain.finalize(p2);
  assert.equal(seen.length, 1, 'applied once');
});
