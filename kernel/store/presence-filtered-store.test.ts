import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KvOp } from '../state/kv.js';
import { Prng } from '../state/tree/prng.js';
import { KeyPresence } from './key-presence.js';
import { LevelStore, MemoryStore } from './level-store.js';
import { PresenceFilteredStore } from './presence-filtered-store.js';

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
const PREFIXES = [bytes('s/'), bytes('at/')];

test('KeyPresence: never a false negative, and about as many false positives as sized for', () => {
  const presence = new KeyPresence(1 << 20);
  for (let i = 0; i < 200_000; i++) presence.add(bytes(`s/acct/chain:${i.toString(16)}`));
  for (let i = 0; i < 200_000; i++) assert.ok(presence.mayContain(bytes(`s/acct/chain:${i.toString(16)}`)), `key ${i}`);
  let positives = 0;
  for (let i = 0; i < 200_000; i++) if (presence.mayContain(bytes(`s/acct/other:${i.toString(16)}`))) positives++;
  // 200,000 keys in 2^25 bits, two positions each: (1 − e^(−2·200000/2^25))² ≈ 0.014 %.
  assert.ok(positives < 200, `${positives} false positives in 200,000`);
  assert.equal(presence.count, 200_000);
  assert.equal(new KeyPresence(3 << 20).sizeBits, 1 << 27, 'sized at 32 bits a key, a power of two');
});

test('answers every read as the store below does, through random writes, deletes and a reopen; reads of keys it knows absent skip the store', async () => {
  const rng = new Prng(0xab5e);
  const inner = new MemoryStore();
  const model = new Map<string, string>();
  const key = (): string => `${['s/', 'at/', 't/'][rng.below(3)]}k${rng.below(400)}`;
  // Some keys before it opens: its scan must find them.
  const early: KvOp[] = Array.from({ length: 100 }, () => ({ type: 'put' as const, key: bytes(key()), value: bytes(`v${rng.below(1000)}`) }));
  await inner.write(early);
  for (const op of early) model.set(new TextDecoder().decode(op.key), new TextDecoder().decode(op.type === 'put' ? op.value : new Uint8Array()));
  let store = await PresenceFilteredStore.open(inner, PREFIXES);
  let innerReads = 0;
  const counted = inner.get.bind(inner);
  inner.get = (k) => {
    innerReads++;
    return counted(k);
  };
  for (let round = 0; round < 30; round++) {
    const ops: KvOp[] = Array.from({ length: 20 }, () => (rng.below(4) === 0 ? { type: 'del' as const, key: bytes(key()) } : { type: 'put' as const, key: bytes(key()), value: bytes(`v${rng.below(1000)}`) }));
    await store.write(ops, false);
    for (const op of ops) {
      const k = new TextDecoder().decode(op.key);
      if (op.type === 'put') model.set(k, new TextDecoder().decode(op.value));
      else model.delete(k);
    }
    const asked = Array.from({ length: 40 }, () => key());
    const many = await store.getMany(asked.map(bytes));
    for (let i = 0; i < asked.length; i++) {
      const one = await store.get(bytes(asked[i]!));
      const want = model.get(asked[i]!);
      assert.equal(one === undefined ? undefined : new TextDecoder().decode(one), want, `get ${asked[i]}`);
      assert.equal(many[i] === undefined ? undefined : new TextDecoder().decode(many[i]!), want, `getMany ${asked[i]}`);
    }
    if (round === 15) store = await PresenceFilteredStore.open(inner, PREFIXES);
  }
  assert.ok(store.skipped > 100, `${store.skipped} reads answered without the store`);
  const before = innerReads;
  assert.equal(await store.get(bytes('s/never-written')), undefined);
  assert.equal(await store.get(bytes('t/never-written')), undefined);
  assert.equal(innerReads, before + 1, 'only the read outside the filtered prefixes reached the store');
});

test('a LevelDB store behind it: flush and settle stay the store\'s; a scan past the first filter\'s size fills the second', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'presence-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const level = await LevelStore.open(dir);
  t.after(() => level.close());
  await level.write(Array.from({ length: 100 }, (_, i) => ({ type: 'put' as const, key: bytes(`at/${i}`), value: bytes('v') })), false);
  // A first filter "for 16 keys": 100 found, so a second pass fills one sized for them, which must know all.
  const store = await PresenceFilteredStore.open(level, PREFIXES, 16);
  for (let i = 0; i < 100; i++) assert.equal(new TextDecoder().decode((await store.get(bytes(`at/${i}`)))!), 'v', `at/${i}`);
  assert.equal(await store.get(bytes('at/x')), undefined);
  assert.equal(store.skipped, 1);
  assert.equal(typeof store.flush, 'function');
  assert.equal(typeof store.settle, 'function');
  assert.equal(typeof (await PresenceFilteredStore.open(new MemoryStore(), PREFIXES)).flush, 'undefined', 'a store without flush does not gain one');
});
