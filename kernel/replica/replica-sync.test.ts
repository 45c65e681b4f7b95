import assert from 'node:assert/strict';
import { test } from 'node:test';
import { makeChain } from '../../test/helpers/chain-fixture.js';
import { ScriptedTransport } from '../../test/helpers/scripted-transport.js';
import { testReplica } from '../../test/helpers/test-replica.js';
import { parseHex, toHex } from '../codec/hex.js';
import type { Chain } from '../chain/chain.js';
import { decodeConsensusMessage, encodeConsensusMessage } from '../consensus/index.js';
import { nobleProvider } from '../crypto/noble-provider.js';
import { proposedBlockCodec } from './block-codec.js';
import { TAG_CONSENSUS, TAG_STATUS, TAG_SYNC_REQUEST } from './envelope.js';
import type { Replica } from './replica.js';

const keys = [1, 2, 3].map((i) => nobleProvider.keygen(new Uint8Array(32).fill(120 + i)));
const validators = keys.map((k, i) => ({ address: `chain:s${i}.node`, key: k, stake: '10000000000' }));

/** Lets the replica's input queue run until `done` holds (each turn yields to the event loop once). */
async function until(done: () => boolean, turns = 1000): Promise<void> {
  for (let i = 0; i < turns && !done(); i++) await new Promise((r) => setImmediate(r));
  assert.ok(done(), 'condition not reached');
}

async function observer(chain: Chain, clock: () => number): Promise<{ replica: Replica; transport: ScriptedTransport }> {
  const transport = new ScriptedTransport('chain:observer.node', validators.map((v) => v.address), (body) => decodeConsensusMessage(body, proposedBlockCodec(chain)));
  const replica = testReplica({ chain, transport, signer: null, now: clock });
  await replica.start();
  return { replica, transport };
}

const syncRequests = (t: ScriptedTransport): { peer: string }[] => t.sent.filter((s) => s.tag === TAG_SYNC_REQUEST);

test('a peer answering a catch-up request with a block whose certificate does not verify is passed over', async () => {
  const { chain } = await makeChain({ validators });
  const peer = await makeChain({ validators });
  const [x, y] = [validators[1]!.address, validators[2]!.address];
  const { replica, transport } = await observer(chain, () => 1_700_000_000_000);
  try {
    await transport.inject(x, TAG_STATUS, { height: 5, base: 1 });
    await until(() => syncRequests(transport).length === 1);
    await transport.inject(y, TAG_STATUS, { height: 5, base: 1 });
    const block = await peer.chain.propose(0, validators[0]!.address, 1_700_000_010_000);
    const forged = { height: 1, round: 0, blockHash: parseHex(block.hash, 32)!, precommits: [] };
    await transport.inject(x, TAG_CONSENSUS, encodeConsensusMessage({ kind: 'commit', certificate: forged, block }, proposedBlockCodec(peer.chain)));
    await until(() => syncRequests(transport).length === 2);
    assert.equal(syncRequests(transport)[1]!.peer, y);
    assert.equal(chain.head.height, 0, 'nothing was committed on the forged certificate');
  } finally {
    await replica.stop();
  }
});

test('a catch-up request left unanswered is given up after its deadline and another peer is asked', async () => {
  const { chain } = await makeChain({ validators });
  const [x, y] = [validators[1]!.address, validators[2]!.address];
  let now = 1_700_000_000_000;
  const { replica, transport } = await observer(chain, () => now);
  const requests = (): { peer: string }[] => syncRequests(transport);
  try {
    await transport.inject(x, TAG_STATUS, { height: 5, base: 1 });
    await until(() => requests().length === 1);
    assert.equal(requests()[0]!.peer, x);
    await transport.inject(y, TAG_STATUS, { height: 5, base: 1 });
    await transport.inject(x, TAG_STATUS, { height: 5, base: 1 });
    await until(() => true);
    assert.equal(requests().length, 1, 'one request at a time while the first may still be answered');
    now += 16_000; // x never answers
    await transport.inject(y, TAG_STATUS, { height: 5, base: 1 });
    await until(() => requests().length === 2);
    assert.equal(requests()[1]!.peer, y, 'the silent peer is passed over');
  } finally {
    await replica.stop();
  }
});
