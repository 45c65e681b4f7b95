import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KvIterateOptions, KvOp, KvSnapshot, KvStore } from '../state/kv.js';
import { MemoryStore } from './level-store.js';
import { PrefixRoutedStore } from './prefix-routed-store.js';

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
const text = (b: Uint8Array | undefined): string | undefined => (b ? new TextDecoder().decode(b) : undefined);
const put = (k: string, v: string): KvOp => ({ type: 'put', key: bytes(k), value: bytes(v) });
const MARKS = { main: bytes('m/mark'), side: bytes('n/') };

/** A MemoryStore that logs its writes (name, keys, sync) and snapshot closes, and can hold a write until released. */
class Recording implements KvStore {
  readonly inner = new MemoryStore();
  hold: Promise<void> | undefined;
  closedSnapshots = 0;
  constructor(
    private readonly name: string,
    private readonly log: string[],
  ) {}
  get(key: Uint8Array): Promise<Uint8Array | undefined> {
    return this.inner.get(key);
  }
  iterate(options: KvIterateOptions): AsyncIterable<[Uint8Array, Uint8Array]> {
    return this.inner.iterate(options);
  }
  snapshot(): KvSnapshot {
    const snap = this.inner.snapshot();
    return { ...snap, close: async () => void this.closedSnapshots++ };
  }
  async write(ops: readonly KvOp[], sync: boolean): Promise<void> {
    this.log.push(`${this.name} start ${ops.map((o) => text(o.key)).join(',')} ${sync ? 'sync' : 'nosync'}`);
    if (this.hold) await this.hold;
    await this.inner.write(ops);
    this.log.push(`${this.name} done`);
  }
  async settle(range: { gte: Uint8Array; lt: Uint8Array }): Promise<void> {
    this.log.push(`${this.name} settle ${text(range.gte)}..${text(range.lt)}`);
  }
  async close(): Promise<void> {}
}

function recorded(): { log: string[]; main: Recording; side: Recording; store: PrefixRoutedStore } {
  const log: string[] = [];
  const main = new Recording('main', log);
  const side = new Recording('side', log);
  return { log, main, side, store: new PrefixRoutedStore(main, side, bytes('n/'), MARKS) };
}

async function keysOf(store: MemoryStore): Promise<string[]> {
  const out: string[] = [];
  for await (const [k] of store.iterate({})) out.push(text(k)!);
  return out;
}

test('PrefixRoutedStore: keys under the side prefix go to the side store, the rest to the main one', async () => {
  const { main, side, store } = recorded();
  await store.write([put('s/a', '1'), put('n/x', '2'), put('m/', '3'), put('n', '4'), put('o/', '5'), { type: 'del', key: bytes('n/gone') }], true);
  assert.deepEqual(await keysOf(side.inner), ['n/x']);
  assert.deepEqual(await keysOf(main.inner), ['m/', 'n', 'o/', 's/a'], "'n' without the slash is not under 'n/'");
  assert.equal(text(await store.get(bytes('n/x'))), '2');
  assert.equal(text(await store.get(bytes('s/a'))), '1');
  assert.equal(await store.get(bytes('n/a')), undefined);
  const many = await store.getMany([bytes('s/a'), bytes('n/x'), bytes('n/none'), bytes('o/'), bytes('n/x')]);
  assert.deepEqual(many.map(text), ['1', '2', undefined, '5', '2'], 'answers in the order asked, across both stores');
});

test('PrefixRoutedStore: the side is written and synced before the main store starts, so a crash or failure between leaves only unreferenced side records', async () => {
  const { log, main, side, store } = recorded();
  let release!: () => void;
  side.hold = new Promise((r) => (release = r));
  const writing = store.write([put('m/head', 'h1'), put('n/node', 'x')], true);
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(log, ['side start n/node sync'], 'the main store waits for the side write');
  release();
  await writing;
  assert.deepEqual(log, ['side start n/node sync', 'side done', 'main start m/head sync', 'main done']);

  side.hold = undefined;
  main.write = async () => {
    throw new Error('disk full');
  };
  await assert.rejects(store.write([put('m/head', 'h2'), put('n/node2', 'y')], true), /disk full/);
  assert.equal(text(await side.inner.get(bytes('n/node2'))), 'y');
  assert.equal(text(await main.inner.get(bytes('m/head'))), 'h1');
});

test('PrefixRoutedStore: a synced write makes each store durable that took unsynced writes, with its mark if it has nothing else; otherwise a store without operations is not written', async () => {
  const { log, store } = recorded();
  await store.write([put('m/a', '1')], true);
  assert.deepEqual(log.filter((l) => l.includes('start')), ['main start m/a sync'], 'no empty write to the side');
  log.length = 0;
  // A snapshot install: tree nodes and state staged unsynced, then a head alone, synced.
  await store.write([put('n/1', 'a'), put('s/1', 'b')], false);
  await store.write([put('m/head', 'h')], true);
  assert.deepEqual(log.filter((l) => l.includes('start')), ['side start n/1 nosync', 'main start s/1 nosync', 'side start n/ sync', 'main start m/head sync']);
  log.length = 0;
  await store.write([put('m/head', 'h2')], true);
  assert.deepEqual(log.filter((l) => l.includes('start')), ['main start m/head sync'], 'synced once: no mark again');
  log.length = 0;
  await store.write([put('s/2', 'c')], false);
  await store.write([put('n/2', 'd')], true);
  assert.deepEqual(log.filter((l) => l.includes('start')), ['main start s/2 nosync', 'side start n/2 sync', 'main start m/mark sync'], 'the main store too');
  assert.throws(() => new PrefixRoutedStore(new MemoryStore(), new MemoryStore(), bytes('n/'), { main: bytes('n/x'), side: bytes('n/') }), /main sync mark must lie outside/);
  assert.throws(() => new PrefixRoutedStore(new MemoryStore(), new MemoryStore(), bytes('n/'), { main: bytes('m/x'), side: bytes('m/y') }), /side one inside it/);
});

test('PrefixRoutedStore: a range reads the main store below the side prefix, the side inside it and the main store above it, in key order either way, within the limit', async () => {
  const { store } = recorded();
  await store.write([put('n/1', 'a'), put('n/2', 'b'), put('s/1', 'c'), put('m/1', 'd')], true);
  const read = async (gte: string | undefined, lt: string | undefined, reverse = false): Promise<string[]> => {
    const out: string[] = [];
    for await (const [k] of store.iterate({ ...(gte ? { gte: bytes(gte) } : {}), ...(lt ? { lt: bytes(lt) } : {}), reverse })) out.push(text(k)!);
    return out;
  };
  assert.deepEqual(await read('n/', 'n0', true), ['n/2', 'n/1']);
  assert.deepEqual(await read('s/', 's0'), ['s/1']);
  assert.deepEqual(await read('m/', 'n/'), ['m/1'], 'a range ending where the prefix starts');
  assert.deepEqual(await read('n0', 'z'), ['s/1'], 'a range starting where the prefix ends');
  assert.deepEqual(await read(undefined, 'n/'), ['m/1'], 'up to the prefix');
  assert.deepEqual(await read('n0', undefined), ['s/1'], 'from the end of the prefix');
  assert.deepEqual(await read('m/', 's0'), ['m/1', 'n/1', 'n/2', 's/1']);
  assert.deepEqual(await read(undefined, undefined, true), ['s/1', 'n/2', 'n/1', 'm/1']);
  assert.deepEqual(await read('m/', 'n/2'), ['m/1', 'n/1'], 'ending inside the prefix');
  assert.deepEqual(await read('n/2', undefined), ['n/2', 's/1'], 'starting inside the prefix');
  const limited = async (limit: number, reverse: boolean): Promise<string[]> => {
    const out: string[] = [];
    for await (const [k] of store.iterate({ reverse, limit })) out.push(text(k)!);
    return out;
  };
  assert.deepEqual(await limited(2, false), ['m/1', 'n/1']);
  assert.deepEqual(await limited(3, true), ['s/1', 'n/2', 'n/1']);
  assert.deepEqual(await limited(0, false), []);
});

test('PrefixRoutedStore: a snapshot reads both stores as they were when it was taken, and closing it closes both', async () => {
  const { main, side, store } = recorded();
  await store.write([put('n/1', 'old'), put('s/1', 'old')], true);
  const snap = store.snapshot();
  await store.write([put('n/1', 'new'), put('s/1', 'new'), put('n/2', 'added')], true);
  assert.equal(text(await snap.get(bytes('n/1'))), 'old');
  assert.deepEqual((await snap.getMany!([bytes('s/1'), bytes('n/2')])).map(text), ['old', undefined]);
  const seen: string[] = [];
  for await (const [k, v] of snap.iterate({ gte: bytes('n/'), lt: bytes('n0') })) seen.push(`${text(k)}=${text(v)}`);
  assert.deepEqual(seen, ['n/1=old']);
  await snap.close();
  assert.deepEqual([main.closedSnapshots, side.closedSnapshots], [1, 1]);
});

test('PrefixRoutedStore: settling a range settles each store over its own part of it', async () => {
  const { log, store } = recorded();
  await store.settle({ gte: bytes('m/'), lt: bytes('z') });
  assert.deepEqual(log, ['main settle m/..n/', 'side settle n/..n0', 'main settle n0..z']);
  log.length = 0;
  await store.settle({ gte: bytes('n/a'), lt: bytes('n/b') });
  assert.deepEqual(log, ['side settle n/a..n/b'], 'inside the prefix: the side alone');
});
