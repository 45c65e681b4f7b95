import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { makeChain, genesisDoc, VALIDATOR_KEY, fourEqualValidators, type Fixture } from '../../test/helpers/chain-fixture.js';
import { tempDir } from '../../test/helpers/temp-dir.js';
import { nobleProvider } from '../crypto/noble-provider.js';
import { ChainError } from '../errors.js';
import type { ValidatorSet } from '../consensus/validator-set.js';
import { RouteTable, type RpcRequest } from '../host/route-table.js';
import type { StateSnapshot } from '../replica/snapshot.js';
import { acceptSnapshot, genesisTrust } from '../replica/snapshot-trust.js';
import { registerSnapshotRoutes } from './snapshot-routes.js';

const signer = { address: 'chain:v0.node', keys: VALIDATOR_KEY };

/** The body a streamed reply sends, whole. */
async function bodyOf(reply: unknown): Promise<string> {
  const stream = (reply as { stream?: AsyncIterable<string | Uint8Array> }).stream;
  assert.ok(stream, 'the snapshot is streamed');
  const parts: Buffer[] = [];
  for await (const c of stream) parts.push(typeof c === 'string' ? Buffer.from(c) : Buffer.from(c));
  return Buffer.concat(parts).toString('utf8');
}

async function snapshotRoute(trusted: ValidatorSet): Promise<{ f: Fixture; dir: string; get: () => Promise<unknown>; block: () => Promise<unknown>; stateReads: () => number }> {
  const f = await makeChain();
  await f.block();
  await f.block();
  let reads = 0;
  const stateView = f.chain.snapshots.stateView.bind(f.chain.snapshots);
  f.chain.snapshots.stateView = async () => {
    reads++;
    return stateView();
  };
  const routes = new RouteTable();
  const dir = tempDir('snapshots-');
  registerSnapshotRoutes(routes, f.chain, signer, nobleProvider, trusted, 100, 200, dir);
  const route = routes.list().find((r) => r.path === '/api/v1/state/snapshot')!;
  const req: RpcRequest = { method: 'GET', path: route.path, params: {}, query: new URLSearchParams(), headers: {}, body: undefined, ip: '127.0.0.1' };
  return { f, dir, get: async () => route.handler(req), block: () => f.block(), stateReads: () => reads };
}

test('a node streams a snapshot that a follower trusting genesis would accept, written once to a file and served from it', async () => {
  const r = await snapshotRoute(genesisTrust(genesisDoc([])));
  // The snapshot of height 2 waits for block 3, whose certificate (here: none) vouches for it.
  const pending = r.get();
  await r.block();
  const text = await bodyOf(await pending);
  const s = JSON.parse(text) as StateSnapshot;
  assert.equal(s.height, 2);
  assert.equal(JSON.parse(s.certifying_block!).header.height, 3);
  assert.deepEqual([s.total_txs, s.total_burned], [r.f.chain.head.total_txs, r.f.chain.head.total_burned.toString()], 'the counters no root covers, for the follower to count on from');
  // One entry a line, so no line holds more than one key's value.
  assert.ok(text.split('\n').length >= s.entries.length + 2);
  const accepted = await acceptSnapshot(s, 'test-chain', genesisTrust(genesisDoc([])), nobleProvider);
  assert.ok(accepted.ok, accepted.ok ? '' : accepted.reason);
  // Served again from the file while the head is within the lag, the state not read again.
  assert.equal(await bodyOf(await r.get()), text);
  assert.equal(r.stateReads(), 1);
  assert.deepEqual(readdirSync(r.dir), ['snapshot-2.json']);
});

test('the snapshot is the state of its own height even when blocks commit while it is written', async () => {
  const r = await snapshotRoute(genesisTrust(genesisDoc([])));
  const atTwo = (await r.f.chain.snapshots.stateEntries()).map(([k, v]) => [k, Buffer.from(v).toString('hex')]);
  const pending = r.get();
  // Block 3 certifies height 2; blocks 4 and 5 commit while the route waits and writes.
  await r.block();
  await r.block();
  await r.block();
  const s = JSON.parse(await bodyOf(await pending)) as StateSnapshot;
  assert.equal(s.height, 2);
  assert.deepEqual(s.entries, atTwo);
  assert.equal(s.state_root, (await r.f.chain.queries.getBlock(2))!.state_root);
});

test('a node answers 503 instead of serving a snapshot its followers would refuse', async () => {
  // The single validator's uncertified snapshot is a quarter of what these four trust.
  const r = await snapshotRoute(fourEqualValidators());
  const pending = r.get();
  await r.block();
  let first: unknown;
  await assert.rejects(pending, (e: unknown) => {
    assert.ok(e instanceof ChainError);
    assert.equal(e.status, 503);
    assert.match(e.message, /would refuse this snapshot: snapshot carries no commit certificate/);
    first = e;
    return true;
  });
  // Asked again at the same head, the node answers the same without reading the state again.
  await assert.rejects(r.get(), (e: unknown) => e === first);
  assert.equal(r.stateReads(), 1);
  // Once the head moves it builds again (and waits for the block after it).
  await r.block();
  const again = r.get();
  await r.block();
  await assert.rejects(again, (e: unknown) => e instanceof ChainError && e.status === 503);
  assert.equal(r.stateReads(), 2);
  assert.deepEqual(readdirSync(r.dir), [], 'nothing written for a refused snapshot');
});
