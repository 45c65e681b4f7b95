import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from '@sinclair/typebox';
import { makeChain, refused, signOperation, wallet, type Fixture } from '../../test/helpers/chain-fixture.js';
import { definePlugin } from '../host/plugin.js';
import { defineOperation } from './operation.js';
import { operationFamily } from './operation-family.js';
import { badRequest } from '../errors.js';

const owner = wallet(101);
const deputy = wallet(102);
const DESK = 'chain:system.desk';

/** A plugin whose `deputy` key may sign operations for the owner (a delegated signer, as a session key is). */
const deskOp = operationFamily({
  schema: Type.Object({ address: Type.String(), reason: Type.String() }, { additionalProperties: false }),
  signsFor: DESK,
  value: null,
  gas: 10,
  mainKeyOnly: 'lock or unlock the desk',
});

const lock = deskOp({
  name: 'desk_lock',
  description: 'locks the desk',
  routes: [{ method: 'POST', path: '/api/v1/desk/lock' }],
  async check(_ctx, op) {
    return op.body.reason === '' ? badRequest('say why') : undefined;
  },
  async execute(ctx, op) {
    ctx.store.setRecord(`locked/${op.actor}`, { reason: op.body.reason });
  },
});

const unlock = deskOp({
  name: 'desk_unlock',
  description: 'unlocks the desk',
  routes: [{ method: 'POST', path: '/api/v1/desk/unlock' }],
  gas: 5,
  async execute(ctx, op) {
    ctx.store.delete(`locked/${op.actor}`);
  },
});

const note = defineOperation({
  name: 'desk_note',
  description: 'any signer of the account may leave a note',
  routes: [{ method: 'POST', path: '/api/v1/desk/note' }],
  schema: Type.Object({ address: Type.String(), reason: Type.String() }, { additionalProperties: false }),
  signsFor: DESK,
  value: null,
  gas: 10,
  async execute(ctx, op) {
    ctx.store.setRecord(`note/${op.actor}`, { by: op.signer.kind });
  },
});

const desk = definePlugin({
  name: 'desk',
  kind: 'state',
  description: 'main-key-only operations beside one any signer may send',
  operations: [lock, unlock, note],
  register(api) {
    api.hooks.resolveSigner.tapPromise(api.name, async (_ctx, req) => (req.publicKey === deputy.publicKeyHex && req.actor === owner.address ? { kind: 'session', plugin: api.name } : undefined));
  },
});

let nonce = 1_950_000_000_000;
const body = (name: string, by: typeof owner, reason = 'lunch') => signOperation(by, { actor: owner.address, target: DESK, nonce: ++nonce, body: { address: owner.address, reason } });

async function inBlockWithoutCheckTx(f: Fixture, name: string, signed: Record<string, unknown>): Promise<{ status: string; error: string | null }> {
  const tx = f.chain.rebuildTx('signed', f.operations.envelope(name, signed, {}), 1n, nonce);
  f.chain.mempool.add(tx);
  await f.block();
  const r = (await f.chain.queries.getTx(tx.hash))!.receipt;
  return { status: r.status, error: r.error };
}

test('mainKeyOnly: a delegated signer is refused 401 naming the action at admission, and again in a block whose proposer skipped checkTx; a main key passes and the plugin\'s own check still runs', async () => {
  const f = await makeChain({ plugins: [desk], accounts: [{ address: owner.address, balance: 1_000_000n }] });
  const message = /^only a main key of the account may lock or unlock the desk: a session key may not$/;
  await refused(f.chain.admitOperation('desk_lock', body('desk_lock', deputy), {}, nonce), 401, message);
  await refused(f.chain.admitOperation('desk_unlock', body('desk_unlock', deputy), {}, nonce), 401, message);
  // The deputy may sign what is not main-key-only.
  await f.chain.admitOperation('desk_note', body('desk_note', deputy), {}, nonce);
  await f.block();
  assert.match(new TextDecoder().decode(await f.chain.queries.state.get(`desk/note/${owner.address}`)), /"by":"session"/);

  const injected = await inBlockWithoutCheckTx(f, 'desk_lock', body('desk_lock', deputy));
  assert.equal(injected.status, 'failed');
  assert.match(injected.error ?? '', /only a main key of the account may lock or unlock the desk/);
  assert.equal(await f.chain.queries.state.get(`desk/locked/${owner.address}`), undefined);

  await refused(f.chain.admitOperation('desk_lock', body('desk_lock', owner, ''), {}, nonce), 400, /say why/);
  await f.chain.admitOperation('desk_lock', body('desk_lock', owner), {}, nonce);
  await f.block();
  assert.ok(await f.chain.queries.state.get(`desk/locked/${owner.address}`), 'the main key locked it');
});

test('an operation family shares its fields; a member may set its own gas; an empty mainKeyOnly is refused at boot', async () => {
  assert.deepEqual([lock.signsFor, lock.gas, lock.mainKeyOnly, unlock.gas, unlock.value], [DESK, 10, 'lock or unlock the desk', 5, null]);
  const blank = defineOperation({ ...note, name: 'blank', routes: [{ method: 'POST', path: '/api/v1/blank' }], mainKeyOnly: ' ' });
  await assert.rejects(makeChain({ plugins: [definePlugin({ name: 'blank', kind: 'state', description: '', operations: [blank], register() {} })] }), /mainKeyOnly names the action refused/);
});
