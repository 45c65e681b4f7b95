import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Cluster } from '../helpers/cluster.js';
import { getJson, until } from '../helpers/node-process.js';
import { verifyCheckpoint } from '../../kernel/node/snapshot-routes.js';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { nobleProvider } from '../../kernel/crypto/noble-provider.js';
import { readGenesis } from '../../kernel/node/genesis-file.js';
import { toHex } from '../../kernel/codec/hex.js';
import { utf8Bytes } from '../../kernel/codec/utf8.js';
import { entriesHash, snapshotMessage, type StateSnapshot } from '../../kernel/replica/snapshot.js';
import { acceptSnapshot, genesisTrust } from '../../kernel/replica/snapshot-trust.js';

/**
 * Peers keep only CHAIN_SYNC_HISTORY_BLOCKS decided blocks for catch-up. A new node further behind
 * stays visibly behind; started from a peer's signed state snapshot, it joins at the head.
 *
 * The snapshot node must ask for the block after its snapshot before the peers have moved
 * SYNC_HISTORY blocks past it, or it is behind for good (the first case again). At 3 blocks
 * (~0.5 s) CI lost that race; the test now halts the chain while the node starts, and keeps 20
 * blocks for the moments between its start and its first sync request.
 */
const SYNC_HISTORY = 20;
describe('catch-up beyond the sync history', () => {
  let c: Cluster;
  before(async () => {
    c = await Cluster.start(4, { CHAIN_SYNC_HISTORY_BLOCKS: String(SYNC_HISTORY), CHAIN_EMPTY_BLOCK_MS: '150', CHAIN_CHECKPOINT_INTERVAL: '4' });
    await c.waitHeight(0, SYNC_HISTORY + 4);
  });
  after(async () => c.stop());

  test('a node further behind than the peers\' history stays behind and says so', async () => {
    const f = await c.addFollower();
    const h = await until('the follower to report that it is behind', async () => {
      const r = await getJson(`${f.url}/health`);
      return (r.body.behind as number) > 0 ? r.body : undefined;
    });
    assert.equal(h.status, 'syncing');
    assert.equal(h.height, 0);
  });

  test('started from a snapshot certified by the next block, a new node catches up to the head', async () => {
    // The serving node builds the snapshot while the chain runs (it waits for the block after it,
    // whose certificate vouches for it) and keeps serving it. Then two of four validators stop:
    // no quorum, so the head and the peers' history stand still while the new node fetches that
    // snapshot, opens its store and starts P2P, however slowly.
    const served = await getJson(`${c.nodes[1]!.url}/api/v1/state/snapshot`);
    assert.equal(served.status, 200);
    const certificate = served.body.certifying_commit as { height: number; precommits: unknown[] };
    assert.equal(certificate.height, (served.body.height as number) + 1);
    assert.ok(certificate.precommits.length >= 3, 'more than 2/3 of 4 equal validators precommitted');
    // What the follower will check, checked here against the cluster's genesis.
    const accepted = await acceptSnapshot(served.body, (await getJson(`${c.nodes[1]!.url}/api/v1/status`)).body.chain_id as string, genesisTrust(readGenesis(c.genesisFile, { minStake: undefined, provider: nobleProvider }).doc), nobleProvider);
    assert.ok(accepted.ok, accepted.ok ? '' : accepted.reason);
    c.pause(2);
    c.pause(3);
    const f = await c.addFollower(['--snapshot-from', c.nodes[1]!.url]).finally(() => {
      c.resume(2);
      c.resume(3);
    });
    const target = (await c.height(0)) + 2;
    await c.waitHeight(f.index, target);
    await c.assertAgreement(target, [0, 1, 2, 3]);
    const mine = await getJson(`${f.url}/api/v1/blocks/${target}`);
    const theirs = await getJson(`${c.nodes[0]!.url}/api/v1/blocks/${target}`);
    assert.equal(mine.body.state_root, theirs.body.state_root);
    const started = f.logs.find((l) => l.includes('started from a signed state snapshot'));
    assert.ok(started?.includes('"certified":true'), started);
    assert.ok(started?.includes(`"height":${served.body.height as number}`), started);
  });

  test('a node refuses to start from a snapshot whose state is not the one block h + 1 certifies', async () => {
    // A genuine snapshot with the base fee lowered, re-hashed and signed by the serving impostor:
    // every signature and the certificate still verify, but the entries no longer hash to the
    // root block h + 1 names.
    const real = (await getJson(`${c.nodes[0]!.url}/api/v1/state/snapshot`)).body as unknown as StateSnapshot;
    const entries = real.entries.map(([k, v]): [string, string] => (k === 'params/base_fee' ? [k, toHex(utf8Bytes('{"$big":"1"}'))] : [k, v]));
    assert.notDeepEqual(entries, real.entries, 'the state holds params/base_fee');
    const impostor = nobleProvider.keygen(new Uint8Array(32).fill(77));
    const forged = { ...real, entries, entries_hash: entriesHash(entries), signer: 'chain:impostor.node', public_key: toHex(impostor.publicKey) };
    forged.signature = toHex(nobleProvider.sign(snapshotMessage(forged), impostor.secretKey));
    const server = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(forged)));
    await new Promise<void>((res) => server.listen(0, '127.0.0.1', res));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      await assert.rejects(c.addFollower(['--snapshot-from', url]), /exited[\s\S]*entries hash to state root/);
    } finally {
      server.close();
    }
  });

  test('checkpoints are signed by the serving validator', async () => {
    const r = await getJson(`${c.nodes[2]!.url}/api/v1/checkpoints`);
    const list = r.body.checkpoints as Array<{ height: number; block_hash: string; state_root: string; public_key: string; signature: string }>;
    assert.ok(list.length >= 2);
    assert.equal(list[0]!.height % 4, 0);
    const chainId = (await getJson(`${c.nodes[2]!.url}/api/v1/status`)).body.chain_id as string;
    for (const cp of list) assert.ok(verifyCheckpoint(cp, chainId, nobleProvider));
    assert.equal(verifyCheckpoint({ ...list[0]!, block_hash: list[1]!.block_hash }, chainId, nobleProvider), false, "a checkpoint with another block hash does not verify");
  });
});
