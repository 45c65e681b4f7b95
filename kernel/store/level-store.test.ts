import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LevelStore, MemoryStore } from './level-store.js';
import type { KvOp } from '../state/kv.js';
import { Prng } from '../state/tree/prng.js';

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
const text = (b: Uint8Array | undefined): string | undefined => (b ? new TextDecoder().decode(b) : undefined);

test('LevelStore: a batch of puts and deletes lands whole and survives a reopen', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'level-store-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  let db = await LevelStore.open(dir);
  await db.write(
    [
      { type: 'put', key: bytes('a/1'), value: bytes('one') },
      { type: 'put', key: bytes('a/2'), value: bytes('two') },
      { type: 'put', key: bytes('a/3'), value: bytes('three') },
      { type: 'put', key: bytes('b/1'), value: bytes('other') },
    ],
    true,
  );
  await db.write([{ type: 'del', key: bytes('a/2') }, { type: 'put', key: bytes('a/1'), value: bytes('uno') }], true);
  await db.write([], true);
  await db.close();

  db = await LevelStore.open(dir);
  t.after(() => db.close());
  assert.equal(text(await db.get(bytes('a/1'))), 'uno', 'a later put in the same batch as a delete wins');
  assert.equal(await db.get(bytes('a/2')), undefined, 'deleted');
  const seen: string[] = [];
  for await (const [k, v] of db.iterate({ gte: bytes('a/'), lt: bytes('a0'), reverse: true, limit: 5 })) seen.push(`${text(k)}=${text(v)}`);
  assert.deepEqual(seen, ['a/3=three', 'a/1=uno'], 'range is byte-ordered, reversed, and excludes the other prefix');
});

test('LevelStore: a batch with a bad operation writes nothing', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'level-store-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const db = await LevelStore.open(dir);
  t.after(() => db.close());
  const bad = { type: 'put', key: bytes('k/2'), value: null } as unknown as { type: 'put'; key: Uint8Array; value: Uint8Array };
  await assert.rejects(db.write([{ type: 'put', key: bytes('k/1'), value: bytes('x') }, bad], true));
  assert.equal(await db.get(bytes('k/1')), undefined, 'the good op before the bad one was not written');
  await db.write([{ type: 'put', key: bytes('k/1'), value: bytes('y') }], true);
  assert.equal(text(await db.get(bytes('k/1'))), 'y', 'the store still takes writes');
});

test('LevelStore and MemoryStore snapshots: reads through one see the store as it was, whatever is written after', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'level-store-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const level = await LevelStore.open(dir);
  t.after(() => level.close());
  for (const db of [level, new MemoryStore()]) {
    await db.write([{ type: 'put', key: bytes('s/1'), value: bytes('one') }, { type: 'put', key: bytes('s/2'), value: bytes('two') }], true);
    const snap = db.snapshot();
    await db.write([{ type: 'del', key: bytes('s/1') }, { type: 'put', key: bytes('s/2'), value: bytes('deux') }, { type: 'put', key: bytes('s/3'), value: bytes('three') }], true);
    const seen: string[] = [];
    for await (const [k, v] of snap.iterate({ gte: bytes('s/'), lt: bytes('s0') })) seen.push(`${text(k)}=${text(v)}`);
    assert.deepEqual(seen, ['s/1=one', 's/2=two']);
    assert.equal(text(await snap.get(bytes('s/2'))), 'two');
    assert.equal(await snap.get(bytes('s/3')), undefined);
    assert.equal(text(await db.get(bytes('s/2'))), 'deux', 'the store itself moved on');
    await snap.close();
  }
});

test("LevelStore: LevelDB's own properties are readable (what the compaction bench reports)", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'level-store-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const db = await LevelStore.open(dir);
  t.after(() => db.close());
  await db.write([{ type: 'put', key: bytes('k'), value: bytes('v') }], true);
  assert.match(db.property('leveldb.stats'), /Level\s+Files\s+Size\(MB\)/);
  assert.equal(db.property('leveldb.num-files-at-level0'), '0', 'one small write stays in the memtable');
});

test('LevelStore getMany: a batch split over the pool answers every key in the order asked, absent ones included', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'level-store-many-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const db = await LevelStore.open(dir);
  t.after(() => db.close());
  await db.write(Array.from({ length: 500 }, (_, i) => ({ type: 'put' as const, key: bytes(`k/${i * 2}`), value: bytes(`v${i * 2}`) })), true);
  // Sizes below, at and across the split (one job per pool thread past 32 keys each), in a shuffled order.
  for (const n of [1, 31, 64, 129, 1000]) {
    const asked = Array.from({ length: n }, (_, i) => (i * 7919) % 1000);
    const got = await db.getMany(asked.map((i) => bytes(`k/${i}`)));
    assert.deepEqual(got.map(text), asked.map((i) => (i % 2 === 0 ? `v${i}` : undefined)), `${n} keys`);
  }
  assert.deepEqual(await db.getMany([]), []);
  assert.equal(db.filesPerLevel().length, 7);
});

test('LevelStore: flush writes the memtable to a table; settle compacts a range below level 0; the records stay as they were', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'level-store-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const db = await LevelStore.open(dir);
  t.after(() => db.close());
  const files = (): number => db.filesPerLevel().reduce((a, b) => a + b, 0);
  const batch = (value: string): KvOp[] => Array.from({ length: 2_000 }, (_, i) => ({ type: 'put' as const, key: bytes(`n/${String(i).padStart(5, '0')}`), value: bytes(value.repeat(100)) }));
  await db.write(batch('a'), false);
  assert.equal(files(), 0, 'still in the memtable');
  await db.flush();
  assert.equal(files(), 1, 'flushed to one table');
  await db.write(batch('b'), false);
  await db.flush();
  assert.equal(files(), 2, 'a second table over the same keys');
  await db.settle({ gte: bytes('n/'), lt: bytes('n0') });
  assert.equal(files(), 1, `merged into one: ${db.filesPerLevel().join(' ')}`);
  assert.equal(text(await db.get(bytes('n/01999'))), 'b'.repeat(100), 'the later value');
});

test('LevelStore work: point reads counted per key, found or not, and compaction bytes once a flush wrote a table', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'level-store-work-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const db = await LevelStore.open(dir);
  t.after(() => db.close());
  assert.deepEqual(db.work(), { files: [0, 0, 0, 0, 0, 0, 0], pointReads: 0, compactionReadBytes: 0, compactionWrittenBytes: 0 });
  // ~2 MB of values Snappy cannot shrink, so the flush's whole-MB counter shows them.
  const random = new Prng(7);
  await db.write(Array.from({ length: 2_000 }, (_, i) => ({ type: 'put' as const, key: bytes(`k/${i}`), value: random.bytes(1_024) })), false);
  await db.get(bytes('k/1'));
  await db.get(bytes('k/none'));
  await db.getMany([bytes('k/2'), bytes('k/3'), bytes('k/none')]);
  const snap = db.snapshot();
  await snap.get(bytes('k/4'));
  await snap.close();
  await db.flush();
  const work = db.work();
  assert.equal(work.pointReads, 6);
  // LevelDB may place a flushed table at level 0, 1 or 2 (nothing overlaps it).
  assert.equal(work.files.reduce((a, b) => a + b, 0), 1, 'the flush wrote one table');
  assert.ok(work.compactionWrittenBytes >= 1024 * 1024, `flushed bytes counted: ${work.compactionWrittenBytes}`);
});

test('LevelStore keyRuns: the keys of a range in order, a run at a time, without their values', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'level-store-keys-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const db = await LevelStore.open(dir);
  t.after(() => db.close());
  const many = Array.from({ length: 2_500 }, (_, i) => `s/${String(i).padStart(5, '0')}`);
  await db.write([...many, 't/a', 'r/z'].map((k) => ({ type: 'put' as const, key: bytes(k), value: bytes(`v${k}`) })), true);
  const runs: string[][] = [];
  for await (const run of db.keyRuns({ gte: bytes('s/'), lt: bytes('s0') })) runs.push(run.map((k) => text(k)!));
  assert.deepEqual(runs.flat(), many);
  assert.ok(runs.length >= 3 && runs.every((r) => r.length > 0 && r.length <= 1_000), `runs of ${runs.map((r) => r.length).join(', ')}`);
  const reversed: string[] = [];
  for await (const run of db.keyRuns({ gte: bytes('s/'), lt: bytes('s0'), reverse: true, limit: 2 })) reversed.push(...run.map((k) => text(k)!));
  assert.deepEqual(reversed, [many[2_499], many[2_498]]);
});
