import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from '@sinclair/typebox';
import { makeChain, signOperation, signTransfer, wallet, type Fixture } from '../../test/helpers/chain-fixture.js';
import { defineOperation } from './operation.js';
import { definePlugin } from '../host/plugin.js';
import { ChainError, unauthorized } from '../errors.js';
import { nobleProvider } from '../crypto/noble-provider.js';
import { toHex } from '../codec/hex.js';
import { utf8Bytes } from '../codec/utf8.js';

/**
 * The operation path's variations and extension points, each at admission and in a block whose
 * proposer skipped admission (a transaction put straight into the pool).
 */
const owner = wallet(91);
const other = wallet(92);
const sponsor = wallet(93);
const COIN = 1_000_000n;
const TARGET = 'chain:system.probe';
let nonce = 1_700_000_000_000;
const next = (): number => ++nonce;

const note = defineOperation({
  name: 'note',
  description: 'records a note',
  routes: [{ method: 'POST', path: '/api/v1/probe/note' }],
  schema: Type.Object({ address: Type.String(), text: Type.String() }, { additionalProperties: false }),
  signsFor: TARGET,
  gas: 25,
  async execute(ctx, op) {
    ctx.store.setRecord(`note/${op.actor}`, { text: op.body.text, signer: op.signer.kind, payer: op.signer.payer });
  },
});

/** Signs `ch-own|<address>|<text>|<nonce>` instead of ch-tx-v2. */
const ownLayout = defineOperation({
  name: 'own_note',
  description: 'a note under its own signed layout',
  routes: [{ method: 'POST', path: '/api/v1/probe/own' }],
  schema: Type.Object({ address: Type.String(), text: Type.String() }, { additionalProperties: false }),
  signsFor: TARGET,
  gas: 25,
  signing: { message: (op) => `ch-own|${op.actor}|${op.body.text}|${op.nonce}` },
  async execute(ctx, op) {
    ctx.store.setRecord(`own/${op.actor}`, op.body.text);
  },
});

/** Needs `_psig` over `ch-probe-op-v1|<address>|<text>|<nonce>` as well. */
const twoSigs = defineOperation({
  name: 'co_signed',
  description: 'a note with a second signature over its payload',
  routes: [{ method: 'POST', path: '/api/v1/probe/co' }],
  schema: Type.Object({ address: Type.String(), text: Type.String() }, { additionalProperties: false }),
  signsFor: TARGET,
  gas: 25,
  signing: { secondSignature: { field: '_psig', message: (op) => `ch-probe-op-v1|${op.actor}|${op.body.text}|${op.nonce}`, required: () => true } },
  async execute(ctx, op) {
    ctx.store.setRecord(`co/${op.actor}`, op.body.text);
  },
});

/** Authorised by the key being an operator key, whatever address it acts as. */
const operatorOnly = defineOperation({
  name: 'operate',
  description: 'an operator-only note',
  routes: [{ method: 'POST', path: '/api/v1/probe/operate' }],
  schema: Type.Object({ signer: Type.String() }, { additionalProperties: false }),
  signsFor: TARGET,
  gas: 25,
  signing: { operatorKeys: () => [owner.publicKeyHex] },
  async execute(ctx, op) {
    ctx.store.setRecord('operated', { by: op.signer.account, kind: op.signer.kind });
  },
});

const probe = definePlugin({
  name: 'probe',
  kind: 'state',
  description: 'operation-path probe',
  operations: [note, ownLayout, twoSigs, operatorOnly],
  register(api) {
    // `sponsor` pays the fees of `owner`'s notes.
    api.hooks.feePayer.tapPromise(api.name, async (_ctx, tx) => (tx.from === owner.address && tx.target === 'op:note' ? sponsor.address : undefined));
    // `other` may sign notes for `owner` as a member, but nothing else.
    api.hooks.resolveSigner.tapPromise(api.name, async (_ctx, req) => {
      if (req.actor !== owner.address || req.publicKey !== other.publicKeyHex) return undefined;
      return req.operation === 'note' ? { kind: 'member', plugin: api.name } : unauthorized('a member signs notes only');
    });
  },
});

async function chain(): Promise<Fixture> {
  return makeChain({ plugins: [probe], accounts: [owner, other, sponsor].map((w) => ({ address: w.address, balance: 10n * COIN })) });
}

const sign = (text: string, o: { signer?: typeof owner; actor?: string; n?: number; kind?: string } = {}) =>
  signOperation(o.signer ?? owner, { kind: o.kind ?? 'note', actor: o.actor ?? owner.address, target: TARGET, nonce: o.n ?? next(), body: { address: o.actor ?? owner.address, text } });

async function refused(p: Promise<unknown>, status: number, pattern: RegExp): Promise<void> {
  await assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof ChainError, String(e));
    assert.equal(e.status, status, e.message);
    assert.match(e.message, pattern);
    return true;
  });
}

/** Puts an operation straight into the pool, as a proposer that skips admission would, and commits a block. */
async function injected(f: Fixture, name: string, body: Record<string, unknown>): Promise<{ status: string; error: string | null }> {
  const tx = f.chain.rebuildTx('signed', f.operations.envelope(name, body, {}), 1n, 0);
  f.chain.mempool.add(tx);
  await f.block();
  const stored = await f.chain.queries.getTx(tx.hash);
  return { status: stored!.receipt.status, error: stored!.receipt.error };
}

test('a fee payer named by a plugin pays the fee; a member signer is accepted for what it may sign and refused otherwise', async () => {
  const f = await chain();
  await f.chain.admitOperation('note', sign('paid by the sponsor'), {}, 0);
  await f.block();
  assert.equal((await f.account(owner.address)).balance, 10n * COIN, 'the owner paid nothing');
  assert.equal((await f.account(sponsor.address)).balance, 10n * COIN - 25n, 'the sponsor paid 25 gas');
  await f.chain.admitOperation('note', sign('by a member', { signer: other }), {}, 0);
  await f.block();
  assert.deepEqual(await f.chain.queries.state.get('probe/note/' + owner.address).then((b) => JSON.parse(new TextDecoder().decode(b!))), { text: 'by a member', signer: 'member', payer: sponsor.address });
  await refused(f.chain.admitOperation('own_note', { ...sign('x', { signer: other }) }, {}, 0), 401, /./);
  await refused(f.chain.admitOperation('note', sign('stranger', { signer: sponsor }), {}, 0), 401, /not bound to/);
  const inBlock = await injected(f, 'note', sign('stranger in a block', { signer: sponsor }));
  assert.equal(inBlock.status, 'failed');
  assert.match(inBlock.error!, /not bound to/);
});

test('an operation that signs its own layout verifies under it or ch-tx-v4 for its own kind, and not under ch-tx-v2 nor another operation\'s v4', async () => {
  const f = await chain();
  const n = next();
  const body = { address: owner.address, text: 'mine', nonce: n, public_key: owner.publicKeyHex, signature: toHex(nobleProvider.sign(utf8Bytes(`ch-own|${owner.address}|mine|${n}`), owner.keys.secretKey)) };
  const r = await f.chain.admitOperation('own_note', body, {}, 0);
  await f.block();
  assert.equal((await f.chain.queries.getTx(r.tx_hash))?.receipt.status, 'confirmed');
  await refused(f.chain.admitOperation('own_note', sign('v4 of another kind'), {}, 0), 401, /verifies under none of ch-tx-v4, the own_note layout/);
  await refused(f.chain.admitOperation('own_note', signOperation(owner, { actor: owner.address, target: TARGET, nonce: next(), body: { address: owner.address, text: 'v2' }, version: 'v2' }), {}, 0), 401, /verifies under none of ch-tx-v4, the own_note layout/);
  const v4 = await f.chain.admitOperation('own_note', sign('v4 of its own kind', { kind: 'own_note' }), {}, 0);
  await f.block();
  assert.equal((await f.chain.queries.getTx(v4.tx_hash))?.receipt.status, 'confirmed');
});

test('a second signature is required where the operation says so, and must cover its payload', async () => {
  const f = await chain();
  await refused(f.chain.admitOperation('co_signed', sign('one signature', { kind: 'co_signed' }), {}, 0), 401, /_psig is required/);
  const n = next();
  const first = sign('two', { n, kind: 'co_signed' });
  const psig = (text: string) => toHex(nobleProvider.sign(utf8Bytes(`ch-probe-op-v1|${owner.address}|${text}|${n}`), owner.keys.secretKey));
  await refused(f.chain.admitOperation('co_signed', { ...first, _psig: psig('other text') }, {}, 0), 401, /invalid _psig/);
  const r = await f.chain.admitOperation('co_signed', { ...first, _psig: psig('two') }, {}, 0);
  await f.block();
  assert.equal((await f.chain.queries.getTx(r.tx_hash))?.receipt.status, 'confirmed');
});

test('an operator-key operation accepts a key in the set, whatever address it names, and refuses any other', async () => {
  const f = await chain();
  const body = (w: typeof owner) => signOperation(w, { kind: 'operate', actor: w.address, target: TARGET, nonce: next(), body: { signer: w.address } });
  await refused(f.chain.admitOperation('operate', body(other), {}, 0), 403, /not an operator key/);
  await f.chain.admitOperation('operate', body(owner), {}, 0);
  await f.block();
  const rec = JSON.parse(new TextDecoder().decode((await f.chain.queries.state.get('probe/operated'))!));
  assert.deepEqual(rec, { by: owner.address, kind: 'operator' });
  const past = await injected(f, 'operate', body(other));
  assert.equal(past.status, 'failed');
  assert.match(past.error!, /not an operator key/);
});

test('operation nonces: strictly above the last accepted, pending included; a stale one injected in a block fails with nothing charged', async () => {
  const f = await chain();
  const n = next();
  await f.chain.admitOperation('note', sign('first', { n }), {}, 0);
  await refused(f.chain.admitOperation('note', sign('same nonce', { n }), {}, 0), 400, /nonce/);
  await refused(f.chain.admitOperation('note', sign('lower nonce', { n: n - 1 }), {}, 0), 400, /nonce/);
  await f.block();
  const before = (await f.account(sponsor.address)).balance;
  const stale = await injected(f, 'note', sign('stale', { n }));
  assert.equal(stale.status, 'failed');
  assert.match(stale.error!, /nonce/);
  assert.equal((await f.account(sponsor.address)).balance, before, 'nothing charged');
});

test('a plain transfer signed by a plugin-granted key fails: the member grant covers notes only', async () => {
  const f = await chain();
  await refused(f.chain.admit(signTransfer(other, { from: owner.address, to: other.address, value: 5, nonce: 1 }), 0), 401, /a member signs notes only/);
});
