import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { ml_dsa65 } from '@noble/post-quantum/ml-dsa.js';
import { makeChain, VALIDATOR_KEY, wallet, type Fixture } from '../../test/helpers/chain-fixture.js';
import { definePlugin } from '../host/plugin.js';
import { nobleProvider } from '../crypto/noble-provider.js';
import { MemoryStore } from '../store/level-store.js';
import { ibcHeaderMessage } from '../light-client/ibc-header.js';
import { ibcValsetValue } from '../light-client/ibc-client.js';
import { verifyStateProof } from '../light-client/state-proof.js';
import { utf8Bytes } from '../codec/utf8.js';
import { kernelStatementSigner } from '../node/node-key.js';
import { envelope, openEnvelope, parseJsonBody, TAG_LC_HEADER_SIGNATURE } from './envelope.js';
import { LightClientHeaders, needsHeader, parseHeaderSignature, type HeaderSignatureMessage } from './light-client-headers.js';
import type { KeyPair } from '../crypto/provider.js';
import { setChanger } from '../../test/helpers/set-changer.js';

const V1 = wallet(11).keys;
const V2 = wallet(12).keys;
const OUTSIDER = wallet(13).keys;
const STAKE = '10000000000';
const REQUEST_AT = 3;

/** A plugin whose block at REQUEST_AT asks for a header, as the ibc plugin does when it writes a packet commitment. */
const requester = definePlugin({
  name: 'header-requester',
  kind: 'state',
  description: 'test plugin: asks for a light-client header at one height',
  register(api) {
    api.hooks.endBlock.tapPromise(api.name, async (result, ctx) => {
      if (ctx.block.height === REQUEST_AT) ctx.requestLightClientHeader();
      return result;
    });
  },
});

async function fixture(kv = new MemoryStore()): Promise<Fixture> {
  return makeChain({
    kv,
    plugins: [requester],
    validators: [
      { address: 'chain:v0.node', key: VALIDATOR_KEY, stake: STAKE },
      { address: 'chain:v1.node', key: V1, stake: STAKE },
      { address: 'chain:v2.node', key: V2, stake: STAKE },
    ],
  });
}

function collector(f: Fixture, sent: Array<{ msg: HeaderSignatureMessage; except: string | null }> = [], reported: string[] = []): LightClientHeaders {
  const headers = new LightClientHeaders({
    chain: f.chain,
    kv: f.kv,
    signer: { address: 'chain:v0.node', sign: kernelStatementSigner(VALIDATOR_KEY, nobleProvider) },
    verify: (s, m, p) => nobleProvider.verify(s, m, p),
    // What the ibc plugin's parameter would hold (plugins/ibc/params.ts); the kernel reads it by name.
    interval: async () => 2n,
    log: pino({ level: 'silent' }),
  });
  headers.attach((bytes, except) => {
    const env = openEnvelope(bytes)!;
    assert.equal(env.tag, TAG_LC_HEADER_SIGNATURE);
    sent.push({ msg: parseHeaderSignature(parseJsonBody(env.body))!, except });
  }, (peer, reason) => reported.push(`${peer}: ${reason}`));
  return headers;
}

async function signatureOf(f: Fixture, keys: KeyPair, validator: string, height: number, text?: string): Promise<Uint8Array> {
  const block = (await f.chain.queries.getBlock(height))!;
  const message = text ?? ibcHeaderMessage(f.chain.chainId, height, block.hash, block.state_root);
  const signature = Buffer.from(ml_dsa65.sign(utf8Bytes(message), keys.secretKey)).toString('hex');
  return envelope(TAG_LC_HEADER_SIGNATURE, { height, validator, signature }).subarray(1);
}

test('a header is served only once more than 2/3 of the committing set signed it, deduplicated, outsiders and forgeries ignored', async () => {
  const f = await fixture();
  const sent: Array<{ msg: HeaderSignatureMessage; except: string | null }> = [];
  const reported: string[] = [];
  const headers = collector(f, sent, reported);
  await headers.start();
  await f.block();
  await f.block();
  // Height 2 is a multiple of the interval: this validator signed and gossiped it; 1/3 is not enough.
  assert.equal(await headers.latest(), undefined);
  assert.deepEqual(sent.map((s) => [s.msg.height, s.msg.validator, s.except]), [[2, 'chain:v0.node', null]]);
  assert.equal(await headers.header(1), undefined, 'height 1 is no header height');

  assert.equal(headers.receive('peer-1', await signatureOf(f, V1, 'chain:v1.node', 2)), true);
  assert.equal(await headers.header(2), undefined, 'exactly 2/3 of the power is not more than 2/3');
  assert.deepEqual(sent.slice(1).map((s) => [s.msg.validator, s.except]), [['chain:v1.node', 'peer-1']], 'relayed once, not back to its sender');

  headers.receive('peer-2', await signatureOf(f, V1, 'chain:v1.node', 2));
  headers.receive('peer-2', await signatureOf(f, OUTSIDER, 'chain:v9.node', 2));
  headers.receive('peer-2', await signatureOf(f, OUTSIDER, 'chain:v2.node', 2));
  headers.receive('peer-2', await signatureOf(f, V2, 'chain:v2.node', 2, ibcHeaderMessage('other-chain', 2, `0x${'00'.repeat(32)}`, `0x${'00'.repeat(32)}`)));
  assert.equal(headers.receive('peer-2', utf8Bytes('{"height":"2"}')), false, 'malformed: the replica reports the peer');
  assert.equal(await headers.header(2), undefined, 'a duplicate, a non-member, a wrong key and another text add no power');
  assert.equal(sent.length, 2, 'nothing of those relayed');
  assert.deepEqual(reported, ['peer-2: light-client header signature does not verify', 'peer-2: light-client header signature does not verify'], 'a member\'s name with a bad signature is the sender\'s misbehaviour; a non-member is simply dropped');

  headers.receive('peer-2', await signatureOf(f, V2, 'chain:v2.node', 2));
  const header = await headers.header(2);
  assert.ok(header);
  assert.deepEqual(await headers.latest(), header);
  const block = (await f.chain.queries.getBlock(2))!;
  assert.equal(header.chain_id, f.chain.chainId);
  assert.equal(header.block_hash, block.hash);
  assert.equal(header.state_root, block.state_root);
  assert.equal(header.message, `ch-pq-lc-v1|${f.chain.chainId}|2|${block.hash}|${block.state_root}`);
  assert.equal(header.signed_power, 3n * BigInt(STAKE));
  assert.equal(header.total_power, 3n * BigInt(STAKE));
  assert.equal(header.signatures.length, 3);
  for (const s of header.signatures) assert.ok(ml_dsa65.verify(Buffer.from(s.signature, 'hex'), utf8Bytes(header.message), Buffer.from(s.public_key, 'hex')), `${s.validator} signed the message`);
  const keys = header.validators.map((v) => v.public_key);
  assert.deepEqual(keys, [...keys].sort(), 'validators ascending by public key');
  assert.equal(header.validators.length, 3);
  const valset = ibcValsetValue(header.validators);
  assert.ok(verifyStateProof(Buffer.from(block.state_root.slice(2), 'hex'), utf8Bytes('ibc/valset'), utf8Bytes(valset), header.validators_proof), 'validators proven under state_root');
  await headers.stop();
});

test('a plugin\'s request and the interval make header heights; a restarted node still serves its headers', async () => {
  const kv = new MemoryStore();
  const f = await fixture(kv);
  const headers = collector(f);
  await headers.start();
  for (let i = 0; i < 4; i++) await f.block();
  for (const [h, keys, v] of [[2, V1, 'chain:v1.node'], [3, V1, 'chain:v1.node'], [3, V2, 'chain:v2.node']] as const) headers.receive('p', await signatureOf(f, keys, v, h));
  assert.ok(await headers.header(3), 'height 3: asked for by the plugin');
  assert.equal(await headers.header(2), undefined, 'height 2: two of three');
  assert.equal((await headers.latest())?.height, 3);
  assert.equal(needsHeader(5, 2n, []), false);
  assert.equal(needsHeader(6, 2n, []), true);
  assert.equal(needsHeader(5, 2n, [{ type: 'validator_update' }]), true);
  await headers.stop();

  // The same store after a restart, and one that lost its processed height (a crash before it was
  // written): the heights are looked at again, and the headers and signatures are still there.
  await kv.write([{ type: 'del', key: utf8Bytes('lm/processed') }]);
  const again = collector(f);
  await again.start();
  assert.equal((await again.latest())?.height, 3);
  assert.equal((await again.header(3))?.signatures.length, 3);
  again.receive('p', await signatureOf(f, V2, 'chain:v2.node', 2));
  assert.ok(await again.header(2), 'a signature arriving after the restart completes height 2');
  await again.stop();
});

test('signatures of a height this node has not committed yet are parked, then counted when it commits', async () => {
  // Two copies of one chain: the peer's commits height 2 first and its validators sign it.
  const mine = await fixture();
  const peer = await fixture();
  const headers = collector(mine);
  await headers.start();
  await mine.block(1_800_000_000_000);
  await peer.block(1_800_000_000_000);
  await peer.block(1_800_000_001_000);
  assert.equal(headers.receive('p', await signatureOf(peer, V1, 'chain:v1.node', 2)), true);
  assert.equal(headers.receive('p', await signatureOf(peer, V2, 'chain:v2.node', 2)), true);
  assert.equal(await headers.header(2), undefined);
  await mine.block(1_800_000_001_000);
  assert.equal((await mine.chain.queries.getBlock(2))!.hash, (await peer.chain.queries.getBlock(2))!.hash, 'the same block');
  assert.equal((await headers.header(2))?.signatures.length, 3);
  await headers.stop();
});

test('a block that changes the validator set has a header signed by the set that committed it, carrying the new set proven under its root', async () => {
  const joiner = wallet(14);
  const CHANGE_AT = 5; // not a multiple of the interval (2)
  const changer = setChanger(new Map([[CHANGE_AT, [{ address: 'chain:v3.node', public_key: joiner.publicKeyHex, power: BigInt(STAKE) }]]]));
  const f = await makeChain({
    plugins: [changer.plugin],
    validators: [
      { address: 'chain:v0.node', key: VALIDATOR_KEY, stake: STAKE },
      { address: 'chain:v1.node', key: V1, stake: STAKE },
      { address: 'chain:v2.node', key: V2, stake: STAKE },
    ],
  });
  const headers = collector(f);
  await headers.start();
  for (let i = 0; i < CHANGE_AT; i++) await f.block();
  headers.receive('p', await signatureOf(f, V1, 'chain:v1.node', CHANGE_AT));
  headers.receive('p', await signatureOf(f, V2, 'chain:v2.node', CHANGE_AT));
  // The joiner is not of the set that committed this height: its signature is no member's.
  headers.receive('p', await signatureOf(f, joiner.keys, 'chain:v3.node', CHANGE_AT));
  const header = await headers.header(CHANGE_AT);
  assert.ok(header, 'a header at the set change, though not at the interval');
  assert.equal(header.total_power, 3n * BigInt(STAKE), 'the power of the set that committed it');
  assert.equal(header.signatures.length, 3);
  assert.equal(header.validators.length, 4, 'the new set, as ibc/valset holds it after the change');
  assert.ok(header.validators.some((v) => v.public_key === joiner.publicKeyHex));
  const valset = new TextDecoder().decode(await f.chain.queries.state.get('ibc/valset'));
  assert.equal(valset, ibcValsetValue(header.validators));
  assert.equal(valset.split('\n').length, 4);
  assert.ok(!valset.endsWith('\n'));
  assert.ok(verifyStateProof(Buffer.from(header.state_root.slice(2), 'hex'), utf8Bytes('ibc/valset'), utf8Bytes(valset), header.validators_proof));
  await headers.stop();
});
