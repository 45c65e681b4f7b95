import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openChainStores } from './chain-stores.js';
import { LevelStore } from './level-store.js';

// Keys as latin1 text: the tree's versioned nodes start `n/\xff`, its root records `n/\xfe`.
const bytes = (s: string): Uint8Array => Uint8Array.from(Buffer.from(s, 'latin1'));
const text = (b: Uint8Array | undefined): string | undefined => (b ? Buffer.from(b).toString('latin1') : undefined);

function dataDir(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'chain-stores-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function keysIn(location: string): Promise<string[]> {
  const store = await LevelStore.open(location);
  const out: string[] = [];
  for await (const [k] of store.iterate({ gte: bytes('a'), lt: bytes('z') })) out.push(text(k)!);
  await store.close();
  return out;
}

test('a new data directory keeps the state tree in a store of its own, and opens that way again', async (t) => {
  const dir = dataDir(t);
  const first = await openChainStores(dir);
  assert.equal(first.layout, 'tree-nodes-apart');
  await first.kv.write(
    [
      { type: 'put', key: bytes('n/\xffnode'), value: bytes('x') },
      { type: 'put', key: bytes('n/\xferoot'), value: bytes('r') },
      { type: 'put', key: bytes('m/chain'), value: bytes('head') },
    ],
    true,
  );
  assert.deepEqual(first.work().map((s) => s.store), ['chain', 'tree']);
  // Each store counts the point reads routed to it, found or not (opening read the chain store already).
  const reads = (): number[] => first.work().map((s) => s.pointReads);
  const [chain0, tree0] = reads();
  await first.kv.get(bytes('n/\xffnode'));
  await first.kv.getMany!([bytes('m/chain'), bytes('m/none')]);
  assert.deepEqual(reads(), [chain0! + 2, tree0! + 1]);
  await first.kv.close();

  assert.deepEqual(await keysIn(join(dir, 'tree')), ['n/\xffnode'], 'the versioned nodes alone');
  assert.deepEqual(await keysIn(join(dir, 'chain')), ['m/chain', 'm/store-layout', 'n/\xferoot'], 'root records stay with the head');

  const again = await openChainStores(dir);
  t.after(() => again.kv.close());
  assert.equal(again.layout, 'tree-nodes-apart', 'the recorded layout wins over the head it now holds');
  assert.equal(text(await again.kv.get(bytes('n/\xffnode'))), 'x');
  const tree: string[] = [];
  for await (const [k] of again.kv.iterate({ gte: bytes('n/'), lt: bytes('n0') })) tree.push(text(k)!);
  assert.deepEqual(tree, ['n/\xferoot', 'n/\xffnode'], "the tree's whole prefix reads across both stores in key order");
});

test('a data directory written before the layout existed stays in one store, untouched', async (t) => {
  for (const [what, key] of [
    ['a head', 'm/chain'],
    ['only staged tree nodes (a genesis stopped half-way)', 'n/staged'],
  ] as const) {
    const dir = dataDir(t);
    const old = await LevelStore.open(join(dir, 'chain'));
    await old.write([{ type: 'put', key: bytes(key), value: bytes('v') }], true);
    await old.close();

    const stores = await openChainStores(dir);
    assert.equal(stores.layout, 'one-store', what);
    assert.equal(text(await stores.kv.get(bytes(key))), 'v', what);
    await stores.kv.write([{ type: 'put', key: bytes('n/new'), value: bytes('y') }], true);
    await stores.kv.close();
    assert.equal(existsSync(join(dir, 'tree')), false, `${what}: no tree store is made`);
    assert.deepEqual(await keysIn(join(dir, 'chain')), [key, 'n/new'].sort(), `${what}: no layout is recorded, new nodes join the old ones`);
  }
});

test('in either layout, state entries and totals written through the stores read back, before and after a reopen, and the filter answers only keys never written', async (t) => {
  for (const layout of ['tree-nodes-apart', 'one-store'] as const) {
    const dir = dataDir(t);
    if (layout === 'one-store') {
      const old = await LevelStore.open(join(dir, 'chain'));
      await old.write([{ type: 'put', key: bytes('m/chain'), value: bytes('head') }], true);
      await old.close();
    }
    const keys = Array.from({ length: 300 }, (_, i) => (i % 2 === 0 ? `s/acct/chain:${i}` : `at/chain:${i}`));
    let stores = await openChainStores(dir);
    assert.equal(stores.layout, layout);
    await stores.kv.write(keys.map((k) => ({ type: 'put' as const, key: bytes(k), value: bytes(`v${k}`) })), true);
    await stores.kv.write([{ type: 'del', key: bytes(keys[0]!) }], true);
    for (let reopened = 0; reopened < 2; reopened++) {
      const many = await stores.kv.getMany!(keys.map(bytes));
      keys.forEach((k, i) => {
        const want = i === 0 ? undefined : `v${k}`;
        assert.equal(text(many[i]), want, `${layout} ${k}`);
      });
      for (const k of keys.slice(0, 20)) assert.equal(text(await stores.kv.get(bytes(k))), k === keys[0] ? undefined : `v${k}`, `${layout} ${k}`);
      const chain = (): { skippedReads: number; pointReads: number } => stores.work().find((w) => w.store === 'chain')!;
      const before = chain();
      assert.equal(await stores.kv.get(bytes('s/acct/chain:never')), undefined);
      assert.equal(await stores.kv.get(bytes('at/chain:never')), undefined);
      assert.equal(chain().skippedReads - before.skippedReads, 2, `${layout}: keys never written are answered by the filter`);
      assert.equal(chain().pointReads, before.pointReads, `${layout}: without a LevelDB read`);
      await stores.kv.close();
      stores = await openChainStores(dir);
    }
    await stores.kv.close();
  }
});

test('a directory with its tree apart whose tree store is gone, or whose layout is unknown, is refused with what to do', async (t) => {
  const dir = dataDir(t);
  const stores = await openChainStores(dir);
  await stores.kv.close();
  rmSync(join(dir, 'tree'), { recursive: true, force: true });
  await assert.rejects(openChainStores(dir), /tree is missing: this data directory keeps its state tree there; restore it together with .*chain from the same backup/);
  // Refused without making it: a restore copied to tree/ then lands there, not in tree/tree.
  assert.ok(!existsSync(join(dir, 'tree')), 'the refusal made no tree/ directory');

  const other = dataDir(t);
  const main = await LevelStore.open(join(other, 'chain'));
  await main.write([{ type: 'put', key: bytes('m/store-layout'), value: bytes('sharded') }], true);
  await main.close();
  await assert.rejects(openChainStores(other), /records a store layout this build does not know \("sharded"\)/);
  // The refusal closed the store: it opens again (LevelDB's lock was released).
  await (await LevelStore.open(join(other, 'chain'))).close();
});

test('a recorded layout whose tree/ is an empty directory is refused rather than given an empty store', async (t) => {
  const dir = dataDir(t);
  await (await openChainStores(dir)).kv.close();
  rmSync(join(dir, 'tree'), { recursive: true, force: true });
  mkdirSync(join(dir, 'tree'));
  await assert.rejects(openChainStores(dir), /tree is missing: this data directory keeps its state tree there/);
  // LevelDB leaves its LOCK and LOG behind, but no store (a store starts with CURRENT).
  assert.ok(!readdirSync(join(dir, 'tree')).includes('CURRENT'), 'no store was made in it');
});

test('the layout is recorded only once the tree store exists: a failure to make it leaves the directory new', async (t) => {
  const dir = dataDir(t);
  writeFileSync(join(dir, 'tree'), 'not a directory');
  await assert.rejects(openChainStores(dir));
  assert.deepEqual(await keysIn(join(dir, 'chain')), [], 'no layout recorded');
  rmSync(join(dir, 'tree'));
  const stores = await openChainStores(dir);
  t.after(() => stores.kv.close());
  assert.equal(stores.layout, 'tree-nodes-apart');
});

test('a directory recorded tree-apart (the 2026-11-30 morning: root records in tree/, in chain/, or both) has its root records moved to chain/ when opened', async (t) => {
  const dir = dataDir(t);
  const main = await LevelStore.open(join(dir, 'chain'));
  // A root record the second morning build wrote where this one reads it, and the head.
  await main.write([{ type: 'put', key: bytes('m/store-layout'), value: bytes('tree-apart') }, { type: 'put', key: bytes('m/chain'), value: bytes('head') }, { type: 'put', key: bytes('n/\xferoot2'), value: bytes('r2') }], true);
  await main.close();
  const tree = await LevelStore.open(join(dir, 'tree'));
  // The first morning build's: its root records and a sync mark in tree/.
  await tree.write([{ type: 'put', key: bytes('n/\xferoot1'), value: bytes('r1') }, { type: 'put', key: bytes('n/'), value: bytes('') }, { type: 'put', key: bytes('n/\xffnode'), value: bytes('x') }], true);
  await tree.close();

  const stores = await openChainStores(dir);
  assert.equal(stores.layout, 'tree-nodes-apart');
  assert.equal(text(await stores.kv.get(bytes('n/\xferoot1'))), 'r1');
  assert.equal(text(await stores.kv.get(bytes('n/\xferoot2'))), 'r2');
  assert.equal(text(await stores.kv.get(bytes('n/\xffnode'))), 'x');
  await stores.kv.close();
  assert.deepEqual(await keysIn(join(dir, 'tree')), ['n/\xffnode'], 'only the versioned nodes are left in tree/');
  assert.deepEqual(await keysIn(join(dir, 'chain')), ['m/chain', 'm/store-layout', 'n/\xferoot1', 'n/\xferoot2']);
  const again = await openChainStores(dir);
  t.after(() => again.kv.close());
  assert.equal(text(await again.kv.get(bytes('n/\xferoot1'))), 'r1', 'recorded as moved: opens as it is now');
});
