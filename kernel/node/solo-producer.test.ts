import assert from 'node:assert/strict';
import { test } from 'node:test';
import pino from 'pino';
import { makeChain, VALIDATOR_KEY } from '../../test/helpers/chain-fixture.js';
import { setChanger } from '../../test/helpers/set-changer.js';
import type { Chain } from '../chain/chain.js';
import { toHex } from '../codec/hex.js';
import { certificateFromJson, LastSignedGuard, LocalPrivValidator, ValidatorSet, verifyCommit, voteSignBytes } from '../consensus/index.js';
import { sha3 } from '../crypto/hash.js';
import { nobleProvider } from '../crypto/noble-provider.js';
import { signsAlone } from './block-production.js';
import { SoloProducer } from './solo-producer.js';

const V0 = 'chain:v0.node';
const V1 = 'chain:v1.node';
const K1 = nobleProvider.keygen(new Uint8Array(32).fill(81));

/** Runs the producer until it hands over (or `blocks` are committed); resolves with the handover height, if any. */
async function run(chain: Chain, signer: LocalPrivValidator, blocks: number): Promise<number | undefined> {
  let handedOver: (height: number) => void = () => undefined;
  const handover = new Promise<number>((resolve) => (handedOver = resolve));
  const solo = new SoloProducer({ chain, signer, pace: { blockMs: 1, emptyBlockMs: 5 }, log: pino({ level: 'silent' }), alone: (h) => signsAlone(chain, V0, h), handover: (h) => handedOver(h) });
  solo.start();
  const enough = new Promise<undefined>((resolve) => chain.on('committed', (c) => c.block.header.height >= blocks && resolve(undefined)));
  const outcome = await Promise.race([handover, enough]);
  await solo.stop();
  return outcome;
}

async function certificateSigners(chain: Chain, height: number): Promise<string[]> {
  const cert = certificateFromJson(JSON.parse(new TextDecoder().decode((await chain.queries.getCommit(height))!)))!;
  const block = (await chain.queries.getBlock(height))!;
  assert.equal(toHex(cert.blockHash), block.hash.slice(2));
  assert.equal(cert.round, block.header.round);
  assert.deepEqual(verifyCommit(cert, new ValidatorSet(await chain.queries.validatorSetAt(height)), chain.chainId, nobleProvider), { ok: true }, `certificate of ${height}`);
  return cert.precommits.map((p) => p.vote.validator);
}

test('the one-validator producer commits each block with its precommit as certificate, and hands over before the set grows', async () => {
  // Block 3 adds V1: it signs from height 5, so height 4 is the last this validator could sign
  // alone, and the BFT engine takes it, to be running when V1 joins.
  const { chain } = await makeChain({ plugins: [setChanger(new Map([[3, [{ address: V1, public_key: toHex(K1.publicKey), power: 10n }]]])).plugin] });
  const signer = new LocalPrivValidator({ address: V0, keyPair: VALIDATOR_KEY, provider: nobleProvider });
  assert.equal(await run(chain, signer, 100), 4);
  assert.equal(chain.head.height, 3);
  for (let h = 1; h <= 3; h++) assert.deepEqual(await certificateSigners(chain, h), [V0]);
});

test('after a crash between its precommit and the block, the producer makes the height again in the next round', async () => {
  const { chain } = await makeChain();
  // The guard on disk says round 0 of height 1 was precommitted for a block that was never stored.
  const guard = new LastSignedGuard();
  const lost = { type: 'precommit' as const, height: 1, round: 0, blockHash: sha3('the block lost in the crash'), validator: V0 };
  guard.record(1, 0, 'precommit', voteSignBytes(chain.chainId, lost), 'lost', nobleProvider.sign(voteSignBytes(chain.chainId, lost), VALIDATOR_KEY.secretKey));
  const signer = new LocalPrivValidator({ address: V0, keyPair: VALIDATOR_KEY, provider: nobleProvider, guard });
  assert.equal(await run(chain, signer, 2), undefined);
  assert.equal((await chain.queries.getBlock(1))!.header.round, 1);
  assert.deepEqual(await certificateSigners(chain, 1), [V0]);
  assert.equal((await chain.queries.getBlock(2))!.header.round, 0, 'the next height starts at round 0 again');
});
