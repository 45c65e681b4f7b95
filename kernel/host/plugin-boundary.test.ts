import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from '@sinclair/typebox';
import { makeChain, signOperation, VALIDATOR_KEY, wallet, type Fixture } from '../../test/helpers/chain-fixture.js';
import { definePlugin, type PluginDefinition } from './plugin.js';
import { defineOperation } from '../ops/operation.js';
import { defineIndex, defineStore } from '../state/declared-store.js';
import { keyPart } from '../state/key-parts.js';
import { defineEvent } from './typed-event.js';
import { QueryService } from '../node/queries.js';
import { toHex } from '../codec/hex.js';
import { PluginBoundary, PluginBoundaryError } from './plugin-boundary.js';

const alice = wallet(91);
const TARGET = 'chain:system.tidy';

const notes = defineStore('tidy', { name: 'notes', description: 'a note per account', key: ['note', keyPart.address('address')], value: Type.Object({ text: Type.String() }) });
const seen = defineIndex('tidy', { name: 'seen', description: 'heights a note was written at', key: ['seen', keyPart.integer('height')], value: Type.Object({ by: Type.String() }) });
const noted = defineEvent({ type: 'noted', description: 'a note was written', data: Type.Object({ address: Type.String(), length: Type.Integer({ minimum: 0 }) }) });

const MODES = ['declared', 'raw_declared', 'stray_write', 'stray_read', 'stray_scan', 'whole_scan', 'read_other', 'undeclared_event', 'bad_event_data', 'stray_index', 'declared_index'] as const;
type Mode = (typeof MODES)[number];

/** Does, in a block, what `mode` names: inside its declarations or one step outside them. */
async function act(ctx: Parameters<NonNullable<Parameters<typeof defineOperation>[0]['execute']>>[0], mode: Mode, actor: string): Promise<void> {
  switch (mode) {
    case 'declared':
      notes.set(ctx.store, actor, { text: 'hi' });
      return noted.emit(ctx, { address: actor, length: 2 });
    case 'raw_declared':
      // The raw API stays usable inside the layout.
      return ctx.store.setRecord(`note/${actor}`, { text: 'raw' });
    case 'stray_write':
      return ctx.store.setRecord(`scratch/${actor}`, { x: 1 });
    case 'stray_read':
      await ctx.store.get('scratch');
      return;
    case 'stray_scan':
      await ctx.store.scan('scratch/');
      return;
    case 'whole_scan':
      await ctx.store.scan('');
      return;
    case 'read_other':
      await ctx.read('acct').get(actor);
      return;
    case 'undeclared_event':
      return ctx.emit({ type: 'not_declared', data: {} });
    case 'bad_event_data':
      return ctx.emit({ type: 'noted', data: { address: actor, length: 'two' } });
    case 'stray_index':
      return ctx.index.putRecord('elsewhere/1', { by: actor });
    case 'declared_index':
      return seen.set(ctx.index, ctx.block.height, { by: actor });
  }
}

const tidyOp = defineOperation({
  name: 'tidy_act',
  description: 'does what mode names',
  routes: [{ method: 'POST', path: '/api/v1/tidy' }],
  schema: Type.Object({ address: Type.String(), mode: Type.Union(MODES.map((m) => Type.Literal(m))) }, { additionalProperties: false }),
  signsFor: TARGET,
  value: null,
  gas: 10,
  async execute(ctx, op) {
    await act(ctx, op.body.mode, op.actor);
  },
});

const tidyPlugin = definePlugin({ name: 'tidy', kind: 'state', description: 'declares its stores', stores: [notes], indexes: [seen], events: [noted], operations: [tidyOp], register() {} });

/** The same acts, by a plugin that declares nothing: the raw API as before. */
const looseOp = defineOperation({ ...tidyOp, name: 'loose_act', routes: [{ method: 'POST', path: '/api/v1/loose' }], signsFor: 'chain:system.loose' });
const loosePlugin = definePlugin({ name: 'loose', kind: 'state', description: 'declares nothing', operations: [looseOp], register() {} });

let nonce = 1_900_000_000_000;

async function run(f: Fixture, op: 'tidy_act' | 'loose_act', mode: Mode): Promise<{ status: string; error: string | null }> {
  const target = op === 'tidy_act' ? TARGET : 'chain:system.loose';
  const r = await f.chain.admitOperation(op, signOperation(alice, { actor: alice.address, target, nonce: ++nonce, body: { address: alice.address, mode } }), {}, nonce);
  await f.block();
  const receipt = (await f.chain.queries.getTx(r.tx_hash))!.receipt;
  return { status: receipt.status, error: receipt.error };
}

test('a plugin that declares its stores fails, on every node alike, when it steps outside them: a stray key read, written or scanned, another namespace read, an undeclared event or one whose data its schema refuses', async () => {
  const f = await makeChain({ plugins: [tidyPlugin, loosePlugin], accounts: [{ address: alice.address, balance: 1_000_000n }] });
  assert.deepEqual(await run(f, 'tidy_act', 'declared'), { status: 'confirmed', error: null });
  assert.deepEqual(await run(f, 'tidy_act', 'raw_declared'), { status: 'confirmed', error: null });
  assert.deepEqual(await run(f, 'tidy_act', 'declared_index'), { status: 'confirmed', error: null });
  const refusals: Array<[Mode, RegExp]> = [
    ['stray_write', /plugin "tidy" tried to write the state key "scratch\/chain:.*", which none of its declared stores holds \(note\/<address>\)/],
    ['stray_read', /plugin "tidy" tried to read the state key "scratch"/],
    ['stray_scan', /plugin "tidy" tried to scan the state prefix "scratch\/"/],
    ['whole_scan', /tried to scan the state prefix ""/],
    ['read_other', /plugin "tidy" read the namespace "acct" directly: read another plugin through the methods it offers/],
    ['undeclared_event', /plugin "tidy" emitted the event "not_declared", which it does not declare \(declared: noted\)/],
    ['bad_event_data', /plugin "tidy" emitted "noted" with data its schema refuses: length: Expected integer/],
    ['stray_index', /plugin "tidy" tried to write the index key "elsewhere\/1", which none of its declared indexes holds \(seen\/<height>\)/],
  ];
  for (const [mode, pattern] of refusals) {
    const r = await run(f, 'tidy_act', mode);
    assert.equal(r.status, 'failed', mode);
    assert.match(r.error ?? '', pattern, mode);
  }
  assert.equal(await f.chain.queries.state.get(`tidy/scratch/${alice.address}`), undefined, 'the stray write was rolled back');
  // A plugin not converted yet keeps the raw API, untouched.
  for (const mode of ['stray_write', 'whole_scan', 'read_other', 'undeclared_event'] as const) assert.deepEqual(await run(f, 'loose_act', mode), { status: 'confirmed', error: null }, mode);
});

test('a route reading through the query service is held to the same declarations', async () => {
  const f = await makeChain({ plugins: [tidyPlugin], accounts: [{ address: alice.address, balance: 1_000_000n }] });
  const query = new QueryService({ state: f.chain.queries.state, height: () => f.chain.head.height }, f.hooks, { env: 'testnet', params: f.params, boundary: f.host.boundary });
  assert.equal(await query.run('tidy', (ctx) => notes.get(ctx.store, alice.address)), undefined);
  await assert.rejects(
    query.run('tidy', (ctx) => ctx.store.get('scratch/x')),
    (e: unknown) => e instanceof PluginBoundaryError && /tried to read the state key "scratch\/x"/.test(e.message),
  );
  await assert.rejects(query.run('tidy', async (ctx) => ctx.read('staking')), /read the namespace "staking" directly/);
});

test('declarations are checked at boot: layouts that can name one key, a store declared for another plugin, two stores of one name, a service plugin with state', async () => {
  const boot = (p: PluginDefinition) => makeChain({ plugins: [p] });
  const s = (plugin: string, name: string, key: readonly (string | ReturnType<typeof keyPart.string>)[]) => defineStore(plugin, { name, description: '', key, value: Type.Integer() });
  await assert.rejects(boot(definePlugin({ name: 'p', kind: 'state', description: '', stores: [s('p', 'a', ['k', keyPart.string('s')]), s('p', 'b', ['k', 'next'])], register() {} })), /the key layouts k\/<s> and k\/next can name the same key/);
  await assert.rejects(boot(definePlugin({ name: 'p', kind: 'state', description: '', stores: [s('q', 'a', ['k'])], register() {} })), /"p" lists in stores the store "a" declared for "q"/);
  await assert.rejects(boot(definePlugin({ name: 'p', kind: 'state', description: '', stores: [s('p', 'a', ['k']), s('p', 'a', ['j'])], register() {} })), /two stores named "a"/);
  await assert.rejects(boot(definePlugin({ name: 'p', kind: 'service', description: '', stores: [s('p', 'a', ['k'])], register() {} })), /is a service plugin: it keeps no chain state/);
  await assert.rejects(boot(definePlugin({ name: 'p', kind: 'state', description: '', indexes: [defineIndex('p', { name: 'i', description: '', key: ['i'], value: Type.Integer() })], register() {} })), /declares indexes but no stores/);
  await boot(definePlugin({ name: 'p', kind: 'service', description: '', stores: [], register() {} }));
});

test('ctx.validators reads the consensus set without decoding the kernel\'s records: the latest set and the set of a height', async () => {
  let latest: unknown;
  let atOne: unknown;
  const reader = definePlugin({
    name: 'reader',
    kind: 'state',
    description: 'reads the validator set',
    stores: [],
    register(api) {
      api.hooks.beginBlock.tapPromise(api.name, async (ctx) => {
        latest = await ctx.validators.latest();
        atOne = await ctx.validators.at(1);
      });
    },
  });
  const f = await makeChain({ plugins: [reader] });
  await f.block();
  const genesis = [{ address: 'chain:v0.node', public_key: toHex(VALIDATOR_KEY.publicKey), power: 10_000_000_000n }];
  assert.deepEqual(latest, genesis);
  assert.deepEqual(atOne, genesis);
});

test('the boundary remembers accepted keys per plugin and per state or index only: a key one plugin may read is still refused to another and to its own index; a plugin cannot add to what its gate remembers', async () => {
  const boundary = new PluginBoundary();
  const other = defineStore('other', { name: 'things', description: 'a thing per account', key: ['thing', keyPart.address('address')], value: Type.Object({}) });
  boundary.load({ name: 'tidy', kind: 'state', stores: [notes], indexes: [seen] });
  boundary.load({ name: 'other', kind: 'state', stores: [other], indexes: [] });
  const raw = { namespace: 'x', get: async () => undefined, getRecord: async () => undefined, scan: async () => [] } as unknown as Parameters<PluginBoundary['readonlyStore']>[1];
  const key = `note/${alice.address}`;
  for (let i = 0; i < 3; i++) await boundary.readonlyStore('tidy', raw).get(key);
  await assert.rejects(async () => boundary.readonlyStore('other', raw).get(key), PluginBoundaryError);
  await assert.rejects(async () => boundary.indexReader('tidy', raw).get(key), PluginBoundaryError);
  await assert.rejects(async () => boundary.readonlyStore('tidy', raw).get(`scratch/${alice.address}`), PluginBoundaryError);
  // The gate's memory is its own: reaching the store's gate gives no way to add a key.
  const gate = (boundary.readonlyStore('tidy', raw) as unknown as { gate: Record<string, unknown> }).gate;
  assert.equal(gate.accepted, undefined);
});
