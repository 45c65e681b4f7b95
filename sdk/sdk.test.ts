import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from '@sinclair/typebox';
import { labelledWallet, makeChain, signTransfer as fixtureTransfer, setSigningChainId, FIXTURE_CHAIN_ID, type Fixture } from '../test/helpers/chain-fixture.js';
import { sessionPlugin } from '../plugins/session/index.js';
import { definePlugin, defineOperation, defaultMember, groupRouteOperations, selectOperation } from '../kernel/sdk.js';
import { openApiDocument } from '../kernel/node/openapi.js';
import { RouteTable } from '../kernel/host/route-table.js';
import { seedFromMnemonic } from '../kernel/crypto/mnemonic.js';
import { sha3 } from '../kernel/crypto/hash.js';
import { ChainClient, ChainHttpError, SdkError, generatePhrase, keyFromKeyFile, keyFromPhrase, keyFromSeed, signTransfer, type FetchLike } from './index.js';

/**
 * The SDK against the kernel itself: keys as decisions.md §4 says, and bodies it signs `ch-tx-v4`
 * admitted by a chain that requires strong signatures (mainnet rules), operations built from the
 * node's own description (the `x-*` fields of GET /api/v1/openapi.json) — a fixed Signs-for
 * address, one a body field names, and one that shares its route, in a plugin the SDK was not
 * written for.
 */
const COIN = 1_000_000n;
const alice = labelledWallet('sdk-unit-alice');
const bob = labelledWallet('sdk-unit-bob');

/** A plugin the SDK knows nothing of: its operation signs for the body's `to`. */
const tipPlugin = definePlugin({
  name: 'tips',
  kind: 'state',
  description: 'test: tips to an address',
  operations: [
    defineOperation({
      name: 'tip',
      description: 'test: sends a tip',
      routes: [{ method: 'POST', path: '/test/tips/:to' }],
      schema: Type.Object({ from: Type.String(), to: Type.String(), amount: Type.Integer({ minimum: 1 }), note: Type.String() }, { additionalProperties: false }),
      signsFor: { field: 'to' },
      pathFields: ['to'],
      gas: 30,
      async execute(ctx, op) {
        await ctx.accounts.transfer(op.actor, op.body.to, op.value);
      },
    }),
    // Shares tip's route; a body with `big: true` selects it (OperationRoute.selectedBy).
    defineOperation({
      name: 'big_tip',
      description: 'test: sends ten times the tip',
      routes: [{ method: 'POST', path: '/test/tips/:to', selectedBy: Type.Object({ big: Type.Literal(true) }) }],
      schema: Type.Object({ from: Type.String(), to: Type.String(), amount: Type.Integer({ minimum: 1 }), big: Type.Literal(true) }, { additionalProperties: false }),
      signsFor: { field: 'to' },
      pathFields: ['to'],
      gas: 35,
      async execute(ctx, op) {
        await ctx.accounts.transfer(op.actor, op.body.to, op.value * 10n);
      },
    }),
  ],
  register() {},
});

/** The node's API reference as the kernel writes it for the fixture's operation routes (kernel/node/operation-routes.ts). */
function apiReference(f: Fixture): Record<string, unknown> {
  const table = new RouteTable();
  for (const g of f.operations.routeGroups()) table.withOwner(defaultMember(g).op.plugin, () => table.add(g.method, g.path, () => undefined, groupRouteOperations(g)));
  return openApiDocument({ service: 'node', title: 'fixture', version: 'v1', description: 'the fixture chain', routes: table.list() });
}

/** The node's HTTP answers the client needs, served from a fixture chain in process. */
function fakeNode(f: Fixture): FetchLike {
  return async (url, init) => {
    const path = new URL(url).pathname;
    const method = init?.method ?? 'GET';
    const body = init?.body === undefined ? undefined : (JSON.parse(init.body) as Record<string, unknown>);
    const answer = async (): Promise<[number, unknown]> => {
      if (path === '/api/v1/openapi.json') return [200, apiReference(f)];
      if (path === '/api/v1/status') return [200, { chain_id: f.chain.chainId }];
      if (path === '/api/v1/gas/estimate') return [200, { base_fee: 1 }];
      if (path.startsWith('/api/v1/accounts/')) {
        const address = decodeURIComponent(path.slice('/api/v1/accounts/'.length));
        return [200, { next_nonce: Number(f.chain.mempool.nextNonce(address, (await f.account(address)).nonce)) }];
      }
      if (method === 'POST' && path === '/api/v1/transactions') return [200, await f.chain.admit(body, 0)];
      for (const g of f.operations.routeGroups()) {
        const m = new RegExp(`^${g.path.replace(/:([a-z_]+)/g, '(?<$1>[^/]+)')}$`).exec(path);
        if (!m || g.method !== method) continue;
        const params = Object.fromEntries(Object.entries(m.groups ?? {}).map(([k, v]) => [k, decodeURIComponent(v)]));
        const op = selectOperation(g, { ...body, ...params });
        if (op) return [200, await f.chain.admitOperation(op.spec.name, body, params, 0)];
      }
      return [404, { error: `not found: ${method} ${path}` }];
    };
    let status: number;
    let out: unknown;
    try {
      [status, out] = await answer();
    } catch (e) {
      const err = e as { status?: number; message: string };
      [status, out] = [err.status ?? 500, { error: err.message }];
    }
    return { status, text: async () => JSON.stringify(out, (_k, v: unknown) => (typeof v === 'bigint' ? Number(v) : v)) };
  };
}

test('keys: §4 vector from the seed; phrase, seed and key file give one key; a key file whose public key is not its seed\'s is refused', () => {
  assert.equal(keyFromSeed('01'.repeat(32)).address, 'chain:307f4559431e680.human');
  assert.equal(keyFromSeed(new Uint8Array(32).fill(1)).address, 'chain:307f4559431e680.human');
  const words = generatePhrase();
  assert.equal(words.split(' ').length, 24);
  const fromPhrase = keyFromPhrase(`  ${words.toUpperCase()}  `);
  const seed = keyFromSeed(seedFromMnemonic(words));
  assert.deepEqual([fromPhrase.address, fromPhrase.publicKeyHex], [seed.address, seed.publicKeyHex]);
  const file = { seed_hex: seed.seedHex, public_key: seed.publicKeyHex, address: seed.address };
  assert.equal(keyFromKeyFile(JSON.stringify(file)).address, seed.address);
  assert.throws(() => keyFromKeyFile({ ...file, public_key: keyFromSeed('02'.repeat(32)).publicKeyHex }), SdkError);
  assert.throws(() => keyFromPhrase('not a phrase'), SdkError);
  assert.throws(() => keyFromSeed('abcd'), SdkError);
});

test('a transfer signed by the SDK is the bytes the kernel\'s own builder signs', () => {
  setSigningChainId(FIXTURE_CHAIN_ID);
  const key = keyFromSeed(sha3('sdk-unit-alice'));
  const mine = signTransfer(key, { chainId: FIXTURE_CHAIN_ID, to: bob.address, value: 5, nonce: 1, gasPrice: 2, data: 'memo' });
  const theirs = fixtureTransfer(alice, { to: bob.address, value: 5, nonce: 1, gas_price: 2, data: 'memo', version: 'v4' });
  assert.deepEqual(mine, theirs);
});

test('on a chain requiring ch-tx-v4: a transfer, a session grant and a new plugin\'s operation signed by the SDK are admitted; another chain\'s id is 401', async () => {
  const f = await makeChain({ plugins: [sessionPlugin, tipPlugin], accounts: [{ address: alice.address, balance: 100n * COIN }], env: 'mainnet', requireTxV3: true });
  const client = new ChainClient({ url: 'http://node.test', fetch: fakeNode(f) });
  const key = keyFromSeed(sha3('sdk-unit-alice'));
  assert.equal(key.address, alice.address);
  const sent = await client.transfer(key, { to: bob.address, value: 7 });
  assert.equal(sent.status, 'pending');
  const ops = await client.operations();
  assert.deepEqual(ops.get('tip'), { type: 'tip', gas: 30, method: 'POST', path: '/test/tips/:to', actorField: 'from', actorFromKey: false, signsFor: { field: 'to' }, valueField: 'amount', pathFields: ['to'] });
  assert.deepEqual(ops.get('big_tip'), { type: 'big_tip', gas: 35, method: 'POST', path: '/test/tips/:to', actorField: 'from', actorFromKey: false, signsFor: { field: 'to' }, valueField: 'amount', pathFields: ['to'] }, 'an operation sharing its route is listed too');
  assert.deepEqual(ops.get('grant_session')?.signsFor, { address: 'chain:system.session' });
  const grant = await client.operation(key, 'grant_session', { account: key.address, session_pk: bob.publicKeyHex, scope: '*', cap: 1000, expiry_block: 100 });
  assert.equal(grant.status, 'pending');
  const tip = await client.operation(key, 'tip', { to: bob.address, amount: 3, note: 'thanks' });
  assert.equal(tip.status, 'pending');
  const big = await client.operation(key, 'big_tip', { to: bob.address, amount: 2, big: true });
  assert.equal(big.status, 'pending');
  await f.block();
  assert.equal((await f.account(bob.address)).balance, 30n, '7 sent, a tip of 3, a big tip of 2 × 10');
  await assert.rejects(client.operation(key, 'no_such_op', {}), (e: unknown) => e instanceof SdkError && e.kind === 'operation');
  const elsewhere = new ChainClient({ url: 'http://node.test', fetch: async (url, init) => (url.endsWith('/api/v1/status') ? { status: 200, text: async () => JSON.stringify({ chain_id: 'another-chain' }) } : fakeNode(f)(url, init)) });
  await assert.rejects(elsewhere.transfer(key, { to: bob.address, value: 1 }), (e: unknown) => e instanceof ChainHttpError && e.status === 401);
});
