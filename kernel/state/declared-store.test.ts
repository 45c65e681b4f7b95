import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from '@sinclair/typebox';
import { StateOverlay, type StateSource } from './overlay.js';
import { readonlyStore, writableStore } from './prefixed-store.js';
import { jsonRecord } from './record-codec.js';
import { defineIndex, defineStore } from './declared-store.js';
import { keyPart } from './key-parts.js';
import { KeyLayout } from './key-layout.js';
import { IndexStage } from './index-stage.js';

const empty: StateSource = { get: async () => undefined, scan: async () => [] };
const A = 'chain:0123456789abcde.human';
const B = 'chain:fedcba987654321.human';
const V = 'chain:validator-1.node';

const delegations = defineStore('staking', {
  name: 'delegations',
  description: 'a delegation',
  key: ['delegation', keyPart.address('validator'), keyPart.address('delegator')],
  value: Type.Object({ amount: Type.BigInt({ minimum: 0n }), unlock_height: Type.Integer({ minimum: 0 }), note: Type.Optional(Type.String()) }),
});

test('a declared store writes the key and bytes a plugin wrote by hand (prefix/parts, the kernel\'s canonical JSON), and reads them back typed', async () => {
  const overlay = new StateOverlay(empty);
  const store = writableStore(overlay, 'staking');
  delegations.set(store, V, A, { unlock_height: 7, amount: 5n });
  const raw = await overlay.get(`staking/delegation/${V}/${A}`);
  assert.deepEqual(raw, jsonRecord().encode({ amount: 5n, unlock_height: 7 }), 'same bytes as setRecord of the same record');
  assert.equal(new TextDecoder().decode(raw), '{"amount":{"$big":"5"},"unlock_height":7}');
  const back = await delegations.get(store, V, A);
  assert.deepEqual(back, { amount: 5n, unlock_height: 7 });
  assert.equal(await delegations.has(store, V, A), true);
  assert.equal(await delegations.get(store, V, B), undefined);
  assert.equal(delegations.key(V, A), `delegation/${V}/${A}`);
  assert.equal(delegations.stateKey(V, A), `staking/delegation/${V}/${A}`);
  delegations.delete(store, V, A);
  assert.equal(await delegations.has(store, V, A), false);
});

test('a value its schema refuses is not written, and a stored record its schema refuses is not read: both throw naming the store, key and field', async () => {
  const overlay = new StateOverlay(empty);
  const store = writableStore(overlay, 'staking');
  assert.throws(() => delegations.set(store, V, A, { amount: 5, unlock_height: 7 } as never), /store staking\.delegations: the value written at delegation\/.*: amount: Expected bigint/);
  assert.throws(() => delegations.set(store, V, A, { amount: -1n, unlock_height: 7 }), /amount: Expected bigint to be greater or equal to 0/);
  assert.equal(await overlay.get(`staking/delegation/${V}/${A}`), undefined, 'nothing was written');
  overlay.set(`staking/delegation/${V}/${A}`, jsonRecord().encode({ amount: 5n }));
  await assert.rejects(delegations.get(store, V, A), /the record at delegation\/.* does not match its schema: unlock_height: Expected required property/);
  overlay.set(`staking/delegation/${V}/${A}`, new TextEncoder().encode('not json'));
  await assert.rejects(delegations.get(store, V, A), /the bytes at .* are not a record/);
});

test('key parts refuse values they cannot hold: a non-address, an integer wider than its width, a hash without 0x, text with a slash', () => {
  const store = writableStore(new StateOverlay(empty), 'staking');
  const value = { amount: 1n, unlock_height: 0 };
  assert.throws(() => delegations.set(store, 'not an address', A, value), /key part <validator>: "not an address" is not a chain address/);
  const byHeight = defineStore('x', { name: 'h', description: '', key: ['h', keyPart.integer('height', { width: 4 })], value: Type.Integer() });
  assert.equal(byHeight.key(42), 'h/0042');
  assert.throws(() => byHeight.key(10_000), /<height>: 10000 is not an integer from 0 to 9999/);
  assert.throws(() => byHeight.key(-1), /<height>/);
  const hashes = defineStore('x', { name: 'k', description: '', key: ['k', keyPart.hash('tx'), keyPart.string('label')], value: Type.Integer() });
  assert.throws(() => hashes.key('ab'.repeat(32), 'x'), /<tx>/);
  assert.throws(() => hashes.key(`0x${'ab'.repeat(32)}`, 'a/b'), /<label>: "a\/b" is not text of 1-128 characters without "\/"/);
  const plain = defineStore('x', { name: 'p', description: '', key: ['p', keyPart.decimal('n')], value: Type.Integer() });
  assert.equal(plain.key(10), 'p/10');
  assert.equal(plain.layout.parse('p/010'), undefined, 'plain decimal has one spelling');
});

test('scans: by key prefix, bounded by limit, reversed, and resumed after the last key of a page', async () => {
  const overlay = new StateOverlay(empty);
  const store = writableStore(overlay, 'staking');
  const delegators = ['chain:a.human', 'chain:b.human', 'chain:c.human', 'chain:d.human'];
  for (const [i, d] of delegators.entries()) delegations.set(store, V, d, { amount: BigInt(i), unlock_height: i });
  delegations.set(store, 'chain:validator-2.node', A, { amount: 9n, unlock_height: 9 });
  const keys = async (range: Parameters<typeof delegations.scan>[1]) => (await delegations.scan(store, range)).map((e) => e.key[1]);
  assert.equal((await delegations.scan(store)).length, 5);
  assert.deepEqual(await keys({ prefix: [V] }), delegators);
  assert.deepEqual(await keys({ prefix: [V], limit: 2 }), delegators.slice(0, 2));
  assert.deepEqual(await keys({ prefix: [V], after: [V, 'chain:b.human'] }), delegators.slice(2));
  assert.deepEqual(await keys({ prefix: [V], after: [V, 'chain:b.human'], limit: 1 }), ['chain:c.human']);
  assert.deepEqual(await keys({ prefix: [V], reverse: true, limit: 3 }), ['chain:d.human', 'chain:c.human', 'chain:b.human']);
  assert.deepEqual(await keys({ prefix: [V], reverse: true, after: [V, 'chain:c.human'] }), ['chain:b.human', 'chain:a.human']);
  assert.deepEqual(await keys({ prefix: [V], limit: 0 }), []);
  const first = (await delegations.scan(store, { prefix: [V], limit: 1 }))[0]!;
  assert.deepEqual(first, { key: [V, 'chain:a.human'], value: { amount: 0n, unlock_height: 0 } });
  // A key under the prefix that the layout does not describe is a broken store, not a row to skip.
  overlay.set(`staking/delegation/${V}/not-an-address/x`, jsonRecord().encode({ amount: 1n, unlock_height: 1 }));
  await assert.rejects(delegations.scan(store, { prefix: [V] }), /is not of the layout delegation\/<validator>\/<delegator>/);
});

test('a declared store only takes its own plugin\'s handle: another namespace\'s would read foreign bytes under its schema', async () => {
  const other = readonlyStore(empty, 'sessions');
  await assert.rejects(delegations.get(other, V, A), /store staking\.delegations was handed the namespace "sessions"/);
});

test('decimal and bytes encodings keep the bytes of bigintCodec and of raw values', async () => {
  const overlay = new StateOverlay(empty);
  const store = writableStore(overlay, 'x');
  const totals = defineStore('x', { name: 'totals', description: '', key: ['total'], value: Type.BigInt(), encoding: 'decimal' });
  totals.set(store, 1234n);
  assert.equal(new TextDecoder().decode(await overlay.get('x/total')), '1234');
  assert.equal(await totals.get(store), 1234n);
  const code = defineStore('x', { name: 'code', description: '', key: ['code', keyPart.hash('hash')], value: Type.Uint8Array(), encoding: 'bytes' });
  const h = `0x${'01'.repeat(32)}`;
  code.set(store, h, new Uint8Array([0, 97, 115, 109]));
  assert.deepEqual(await overlay.get(`x/code/${h}`), new Uint8Array([0, 97, 115, 109]));
  assert.throws(() => defineStore('x', { name: 'bad', description: '', key: ['bad'], value: Type.Integer(), encoding: 'decimal' }), /a decimal value is a bigint/);
});

test('an index store writes through ctx.index and reads through the index reader, with the same layout rules', async () => {
  const entries = defineIndex('log', { name: 'entries', description: 'newest first', key: ['entry', keyPart.integer('id')], value: Type.Object({ text: Type.String() }) });
  const stage = new IndexStage();
  entries.set(stage.writer('log'), 3, { text: 'three' });
  assert.deepEqual(stage.staged.map(([k]) => k), ['log/entry/000000000003']);
  assert.throws(() => entries.set(stage.writer('other'), 1, { text: 'x' }), /index log\.entries was handed the namespace "other"/);
  assert.throws(() => entries.set(stage.writer('log'), 1, { text: 1 } as never), /text: Expected string/);
});

test('key layouts: parsed, matched against raw keys and scan prefixes, and two layouts that can name one key overlap', () => {
  const l = new KeyLayout('t', ['reward', keyPart.address('staker'), keyPart.integer('height'), keyPart.string('source')]);
  assert.equal(l.text, 'reward/<staker>/<height>/<source>');
  assert.deepEqual(l.parse(`reward/${A}/000000000012/block`), [A, 12, 'block']);
  assert.equal(l.parse(`reward/${A}/12/block`), undefined);
  assert.equal(l.holds(`reward/${A}/000000000012`), false);
  assert.equal(l.scanPrefix([A]), `reward/${A}/`);
  for (const ok of ['reward/', `reward/${A}/`, 'rew', `reward/${A}/0000`]) assert.ok(l.containsScan(ok), ok);
  for (const no of ['', 'other/', 'reward/nope/', `reward/${A}/000000000012/block/`]) assert.ok(!l.containsScan(no), no);
  assert.ok(new KeyLayout('t', ['a', keyPart.string('s')]).overlaps(new KeyLayout('t', ['a', 'next'])));
  assert.ok(!new KeyLayout('t', ['a', keyPart.integer('n')]).overlaps(new KeyLayout('t', ['a', 'next'])));
  assert.ok(!new KeyLayout('t', ['a', keyPart.string('s')]).overlaps(new KeyLayout('t', ['b', keyPart.string('s')])));
  assert.throws(() => new KeyLayout('t', [keyPart.string('s')]), /starts with a fixed segment/);
  assert.throws(() => new KeyLayout('t', ['a', keyPart.string('s'), keyPart.string('s')]), /<s> appears twice/);
  assert.throws(() => new KeyLayout('t', ['A/b']), /fixed key segment "A\/b"/);
  // A hex part may admit no digits (a contract's zero-byte storage key): the key ends in "/".
  const kv = new KeyLayout('t', ['kv', keyPart.address('contract'), keyPart.hex('key', { empty: true })]);
  assert.equal(kv.key([A, ''] as never), `kv/${A}/`);
  assert.deepEqual(kv.parse(`kv/${A}/`), [A, '']);
  assert.ok(!new KeyLayout('t', ['kv', keyPart.hex('key')]).holds('kv/'), 'without empty: true, no digits is no key');
});

test('a key layout holds exactly the keys it parses (holds checks the prefix first and decodes nothing)', () => {
  const layouts = [
    new KeyLayout('t', ['reward', keyPart.address('staker'), keyPart.integer('height'), keyPart.string('source')]),
    new KeyLayout('t', ['model']),
    new KeyLayout('t', ['by', 'status', keyPart.string('s')]),
    new KeyLayout('t', ['kv', keyPart.address('contract'), keyPart.hex('key', { empty: true })]),
    new KeyLayout('t', ['recent', keyPart.address('address')]),
  ];
  const keys = ['', '/', 'model', 'model/', 'models', 'mode', 'model/x', `recent/${A}`, `recent/${A}/`, `recentx/${A}`, `recent/${A}x`, 'recent/', `reward/${A}/000000000012/block`, `reward/${A}/12/block`, `reward/${A}/000000000012`, `rewards/${A}/000000000012/block`, 'by/status/open', 'by/status/', 'by/statusx/open', 'by', `kv/${A}/`, `kv/${A}/0aff`, `kv/${A}/0AFF`, `kv/${B}`, `kv//00`];
  for (const l of layouts) for (const k of keys) assert.equal(l.holds(k), l.parse(k) !== undefined, `${l.text} on "${k}"`);
});

test('dueAt answers what a scan of the height answers, and reads no height range while the first record falls due later', async () => {
  const due = defineStore('governance', { name: 'endings', description: 'ends', key: ['ends', keyPart.integer('height'), keyPart.integer('id')], value: Type.Integer({ minimum: 1 }) });
  const base = new StateOverlay(empty);
  const store = writableStore(base, 'governance');
  for (const [h, id] of [[12, 2], [12, 1], [15, 3], [40, 4]] as const) due.set(store, h, id, id);
  const scanned: string[] = [];
  const counting: StateSource = { get: (k) => base.get(k), scan: (prefix, options) => (scanned.push(prefix), base.scan(prefix, options)) };
  const reader = readonlyStore(new StateOverlay(counting), 'governance');
  for (let h = 0; h <= 45; h++) {
    assert.deepEqual(await due.dueAt(reader, h), await due.scan(reader, { prefix: [h] }), `height ${h}`);
  }
  scanned.length = 0;
  for (let h = 0; h < 12; h++) await due.dueAt(reader, h);
  assert.deepEqual(new Set(scanned), new Set(['governance/ends/']), 'before the first due height only the store’s head is read');
  assert.deepEqual((await due.dueAt(reader, 12)).map((e) => e.key), [[12, 1], [12, 2]]);
  assert.equal(scanned.at(-1), 'governance/ends/000000000012/');
  due.delete(store, 12, 1);
  due.delete(store, 12, 2);
  scanned.length = 0;
  assert.deepEqual(await due.dueAt(reader, 13), []);
  assert.deepEqual(scanned, ['governance/ends/'], 'the records of height 12 gone, 13 is answered from the head (15)');
  // A key of a shorter layout under the same prefix sorts first: the height is read, as a scan of it would be.
  store.set('ends/000000000013', new Uint8Array([49]));
  for (let h = 13; h <= 16; h++) assert.deepEqual(await due.dueAt(reader, h), await due.scan(reader, { prefix: [h] }), `height ${h} after a foreign key`);
  await assert.rejects(due.dueAt(reader, -1), /height/, 'a height the key part cannot hold is refused as a scan of it is');
  await assert.rejects(delegations.dueAt(readonlyStore(new StateOverlay(empty), 'staking'), 1), /staking\.delegations: dueAt reads a store whose first key part is an integer height/);
});
