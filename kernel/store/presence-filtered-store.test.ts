import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KvIterateOptions, KvOp } from '../state/kv.js';
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

/**
 * A MemoryStore whose key scan the test paces: each run of `runKeys` keys waits for `scanGate()`,
 * and writes made while `holdWrites` is set land only when the test releases them.
 */
class PacedStore extends MemoryStore {
  scanGate: () => Promise<void> = () => new Promise((resolve) => setImmediate(resolve));
  holdWrites = false;
  readonly held: Array<() => void> = [];
  innerReads = 0;
  failScan = false;

  constructor(private readonly runKeys = 1) {
    super();
  }

  override get(key: Uint8Array): Promise<Uint8Array | undefined> {
    this.innerReads++;
    return super.get(key);
  }

  async *keyRuns(options: KvIterateOptions): AsyncIterable<readonly Uint8Array[]> {
    let run: Uint8Array[] = [];
    for await (const [key] of this.iterate(options)) {
      if (this.failScan) throw new Error('disk read error');
      run.push(key);
      if (run.length < this.runKeys) continue;
      await this.scanGate();
      yield run;
      run = [];
    }
    if (run.length > 0) yield run;
  }

  override async write(ops: readonly KvOp[]): Promise<void> {
    if (this.holdWrites) await new Promise<void>((resolve) => this.held.push(resolve));
    return super.write(ops);
  }
}

const text = (v: Uint8Array | undefined): string | undefined => (v === undefined ? undefined : new TextDecoder().decode(v));

test('answers every read as the store below does, through random writes and deletes during its scans and after, and a reopen; reads of keys it knows absent skip the store', async () => {
  const rng = new Prng(0xab5e);
  // Ten keys a turn of the event loop, and one turn a round: each scan spans a dozen or more rounds.
  const inner = new PacedStore(10);
  const model = new Map<string, string>();
  const key = (): string => `${['s/', 'at/', 't/'][rng.below(3)]}k${rng.below(400)}`;
  // Some keys before it opens: its scan must find them.
  const early: KvOp[] = Array.from({ length: 100 }, () => ({ type: 'put' as const, key: bytes(key()), value: bytes(`v${rng.below(1000)}`) }));
  await inner.write(early);
  for (const op of early) model.set(new TextDecoder().decode(op.key), new TextDecoder().decode(op.type === 'put' ? op.value : new Uint8Array()));
  let store = new PresenceFilteredStore(inner, PREFIXES);
  let sawScanning = 0;
  for (let round = 0; round < 140; round++) {
    await new Promise((resolve) => setImmediate(resolve));
    if (store.scanning) sawScanning++;
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
      const want = model.get(asked[i]!);
      assert.equal(text(await store.get(bytes(asked[i]!))), want, `get ${asked[i]} in round ${round}`);
      assert.equal(text(many[i]), want, `getMany ${asked[i]} in round ${round}`);
    }
    if (round === 30) {
      assert.equal((await store.scanned).state, 'done');
      // Reopened with a first filter "for 16 keys": a second pass begins while the rounds write.
      store = new PresenceFilteredStore(inner, PREFIXES, 16);
    }
  }
  assert.ok(sawScanning >= 10, `both scans overlapped the rounds (${sawScanning} rounds saw one running)`);
  const scan = await store.scanned;
  assert.equal(scan.state, 'done');
  if (scan.state === 'done') {
    assert.equal(scan.passes, 2);
    assert.ok(scan.keys > 100, `${scan.keys} keys scanned`);
  }
  assert.ok(store.skipped > 50, `${store.skipped} reads answered without the store`);
  const before = inner.innerReads;
  assert.equal(await store.get(bytes('s/never-written')), undefined);
  assert.equal(await store.get(bytes('t/never-written')), undefined);
  assert.equal(inner.innerReads, before + 1, 'only the read outside the filtered prefixes reached the store');
});

test('a write on its way when the second pass begins is known to that pass\'s filter, though it lands after the scan ends', async () => {
  const inner = new PacedStore(10);
  await inner.write(Array.from({ length: 100 }, (_, i) => ({ type: 'put' as const, key: bytes(`at/${i}`), value: bytes('v') })));
  let release!: () => void;
  let paused = new Promise<void>((resolve) => (release = resolve));
  inner.scanGate = () => paused;
  // A first filter "for 16 keys": 100 found, so a second pass fills one sized for them.
  const store = new PresenceFilteredStore(inner, PREFIXES, 16);
  assert.equal(store.scanning, true);
  inner.holdWrites = true;
  const write = store.write([{ type: 'put', key: bytes('s/late'), value: bytes('late') }], true);
  // While it scans, every read asks the store, even of a key it has not seen.
  const reads = inner.innerReads;
  assert.equal(await store.get(bytes('s/nothing')), undefined);
  assert.equal(inner.innerReads, reads + 1);
  assert.equal(store.skipped, 0);
  // Both passes run to the end while the write is still on its way.
  paused = Promise.resolve();
  release();
  const scan = await store.scanned;
  assert.deepEqual({ ...scan, seconds: 0 }, { state: 'done', keys: 100, passes: 2, seconds: 0 });
  assert.equal(store.scanning, false);
  assert.equal(await store.get(bytes('s/nothing')), undefined);
  assert.equal(store.skipped, 1, 'answered by the filter once the scan ended');
  // The write went to the first pass's filter, and the second pass's scan missed it: the second
  // filter must have taken its keys when it was made.
  assert.equal(await store.get(bytes('s/late')), undefined, 'not landed yet: asked of the store');
  assert.equal(store.skipped, 1);
  inner.holdWrites = false;
  inner.held.shift()!();
  await write;
  assert.equal(text(await store.get(bytes('s/late'))), 'late');
  for (let i = 0; i < 100; i++) assert.equal(text(await store.get(bytes(`at/${i}`))), 'v', `at/${i}`);
});

test('closing stops the scan; a failed scan leaves every read to the store', async () => {
  const inner = new PacedStore();
  await inner.write(Array.from({ length: 10 }, (_, i) => ({ type: 'put' as const, key: bytes(`s/${i}`), value: bytes('v') })));
  let release!: () => void;
  inner.scanGate = () => new Promise((resolve) => (release = resolve));
  const closed = new PresenceFilteredStore(inner, PREFIXES);
  await new Promise((resolve) => setImmediate(resolve));
  const closing = closed.close();
  release();
  await closing;
  assert.deepEqual(await closed.scanned, { state: 'stopped' });
  assert.equal(closed.scanning, false);

  inner.scanGate = () => Promise.resolve();
  inner.failScan = true;
  const failed = new PresenceFilteredStore(inner, PREFIXES);
  const outcome = await failed.scanned;
  assert.equal(outcome.state, 'failed');
  assert.match(outcome.state === 'failed' ? outcome.error.message : '', /disk read error/);
  assert.equal(failed.scanning, false);
  await failed.write([{ type: 'put', key: bytes('s/new'), value: bytes('n') }], false);
  const reads = inner.innerReads;
  assert.equal(await failed.get(bytes('s/absent')), undefined);
  assert.equal(text(await failed.get(bytes('s/new'))), 'n');
  assert.equal(inner.innerReads, reads + 2, 'both reads asked the store');
  assert.equal(failed.skipped, 0);
});

test('a LevelDB store behind it: flush and settle stay the store\'s; a scan past the first filter\'s size fills the second', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'presence-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const level = await LevelStore.open(dir);
  await level.write(Array.from({ length: 100 }, (_, i) => ({ type: 'put' as const, key: bytes(`at/${i}`), value: bytes('v') })), false);
  const store = new PresenceFilteredStore(level, PREFIXES, 16);
  t.after(() => store.close());
  assert.deepEqual({ ...(await store.scanned), seconds: 0 }, { state: 'done', keys: 100, passes: 2, seconds: 0 });
  for (let i = 0; i < 100; i++) assert.equal(text(await store.get(bytes(`at/${i}`))), 'v', `at/${i}`);
  assert.equal(await store.get(bytes('at/x')), undefined);
  assert.equal(store.skipped, 1);
  assert.equal(typeof store.flush, 'function');
  assert.equal(typeof store.settle, 'function');
  const plain = new PresenceFilteredStore(new MemoryStore(), PREFIXES);
  assert.equal(typeof plain.flush, 'undefined', 'a store without flush does not gain one');
  await plain.scanned;
});
