import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeChain, genesisDoc, VALIDATOR_KEY, fourEqualValidators } from '../../test/helpers/chain-fixture.js';
import { nobleProvider } from '../crypto/noble-provider.js';
import { ChainError } from '../errors.js';
import type { ValidatorSet } from '../consensus/validator-set.js';
import { RouteTable, type RpcRequest } from '../node/route-table.js';
import type { StateSnapshot } from './snapshot.js';
import { acceptSnapshot, genesisTrust } from './snapshot-trust.js';
import { registerSnapshotRoutes } from './snapshot-routes.js';

const signer = { address: 'chain:v0.node', keys: VALIDATOR_KEY };

async function snapshotRoute(trusted: ValidatorSet): Promise<{ get: () => Promise<unknown>; block: () => Promise<unknown>; stateReads: () => number }> {
  const f = await makeChain();
  await f.block();
  await f.block();
  let reads = 0;
  const stateEntries = f.chain.stateEntries.bind(f.chain);
  f.chain.stateEntries = async () => {
    reads++;
    return stateEntries();
  };
  const routes = new RouteTable();
  registerSnapshotRoutes(routes, f.chain, signer, nobleProvider, trusted, 100, 200);
  const route = routes.list().find((r) => r.path === '/api/v1/state/snapshot')!;
  const req: RpcRequest = { method: 'GET', path: route.path, params: {}, query: new URLSearchParams(), headers: {}, body: undefined, ip: '127.0.0.1' };
  return { get: async () => route.handler(req), block: () => f.block(), stateReads: () => reads };
}

test('a node serves a snapshot that a follower trusting genesis would accept', async () => {
  const r = await snapshotRoute(genesisTrust(genesisDoc([])));
  // The snapshot of height 2 waits for block 3, whose certificate (here: none) vouches for it.
  const pending = r.get();
  await r.block();
  const s = (await pending) as StateSnapshot;
  assert.equal(s.height, 2);
  assert.equal(JSON.parse(s.certifying_block!).header.height, 3);
  const accepted = await acceptSnapshot(JSON.parse(JSON.stringify(s)), 'test-chain', genesisTrust(genesisDoc([])), nobleProvider);
  assert.ok(accepted.ok, accepted.ok ? '' : accepted.reason);
  // Served again from the cache while the head is within the lag.
  assert.equal(await r.get(), s);
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
});
