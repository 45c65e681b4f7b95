import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KvOp } from '../state/kv.js';
import { MemoryStore } from './level-store.js';
import { PrefixRoutedStore } from './prefix-routed-store.js';

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
const text = (b: Uint8Array | undefined): string | undefined => (b ? new TextDecoder().decode(b) : undefined);
const put = (k: string, v: string): KvOp => ({ type: 'put', key: bytes(k), value: bytes(v) });

async function keysOf(store: MemoryStore): Promise<string[]> {
  const out: string[] = [];
  for await (const [k] of store.iterate({})) out.push(text(k)!);
  return out;
}

function routed(): { main: MemoryStore; side: MemoryStore; store: PrefixRoutedStore } {
  const main = new MemoryStore();
  const side = new MemoryStore();
  return { main, side, store: new PrefixRoutedStore(main, side, bytes('n/')) };
}

test('PrefixRoutedStore: keys under the side prefix go to the side store, the rest to the main one', async () => {
  const { main, side, store } = routed();
  await store.write([put('s/a', '1'), put('n/x', '2'), put('m/', '3'), put('n', '4'), put('o/', '5'), { type: 'del', key: bytes('n/gone') }], true);
  assert.deepEqual(await keysOf(side), ['n/x']);
  assert.deepEqual(await keysOf(main), ['m/', 'n', 'o/', 's/a'], "'n' without the slash is not under 'n/'");
  assert.equal(text(await store.get(bytes('n/x'))), '2');
  assert.equal(text(await store.get(bytes('s/a'))), '1');
  assert.equal(await store.get(bytes('n/a')), undefined);
  const many = await store.getMany([bytes('s/a'), bytes('n/x'), bytes('n/none'), bytes('o/'), bytes('n/x')]);
  assert.deepEqual(many.map(text), ['1', '2', undefined, '5', '2'], 'answers in the order asked, across both stores');
});

test('PrefixRoutedStore: a range inside or outside the side prefix reads the store that holds it; one across it is refused', async () => {
  const { store } = routed();
  await store.write([put('n/1', 'a'), put('n/2', 'b'), put('s/1', 'c'), put('m/1', 'd')], true);
  const read = async (gte: string | undefined, lt: string | undefined, reverse = false): Promise<string[]> => {
    const out: string[] = [];
    for await (const [k] of store.iterate({ ...(gte ? { gte: bytes(gte) } : {}), ...(lt ? { lt: bytes(lt) } : {}), reverse })) out.push(text(k)!);
    return out;
  };
  assert.deepEqual(await read('n/', 'n0', true), ['n/2', 'n/1']);
  assert.deepEqual(await read('s/', 's0'), ['s/1']);
  assert.deepEqual(await read(undefined, 'n/'), ['m/1'], 'up to the prefix');
  assert.deepEqual(await read('n0', undefined), ['s/1'], 'from the end of the prefix');
  await assert.rejects(read('m/', 's0'), /wholly inside or wholly outside/);
  await assert.rejects(read(undefined, undefined), /wholly inside or wholly outside/);
});

test('PrefixRoutedStore: the side is written first, so a failed main write leaves only unreferenced side records', async () => {
  const main = new MemoryStore();
  const side = new MemoryStore();
  const order: string[] = [];
  const failingMain = Object.assign(Object.create(main) as MemoryStore, {
    write: async (): Promise<void> => {
      order.push('main');
      throw new Error('disk full');
    },
  });
  const recordingSide = Object.assign(Object.create(side) as MemoryStore, {
    write: async (ops: readonly KvOp[]): Promise<void> => {
      order.push('side');
      await side.write(ops);
    },
  });
  const store = new PrefixRoutedStore(failingMain, recordingSide, bytes('n/'));
  await assert.rejects(store.write([put('m/head', 'h1'), put('n/node', 'x')], true), /disk full/);
  assert.deepEqual(order, ['side', 'main']);
  assert.equal(text(await side.get(bytes('n/node'))), 'x');
  assert.equal(await main.get(bytes('m/head')), undefined);
});

test('PrefixRoutedStore: a snapshot reads both stores as they were when it was taken', async () => {
  const { store } = routed();
  await store.write([put('n/1', 'old'), put('s/1', 'old')], true);
  const snap = store.snapshot();
  await store.write([put('n/1', 'new'), put('s/1', 'new'), put('n/2', 'added')], true);
  assert.equal(text(await snap.get(bytes('n/1'))), 'old');
  assert.deepEqual((await snap.getMany!([bytes('s/1'), bytes('n/2')])).map(text), ['old', undefined]);
  const seen: string[] = [];
  for await (const [k, v] of snap.iterate({ gte: bytes('n/'), lt: bytes('n0') })) seen.push(`${text(k)}=${text(v)}`);
  assert.deepEqual(seen, ['n/1=old']);
  await snap.close();
});
