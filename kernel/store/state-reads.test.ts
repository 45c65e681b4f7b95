import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LRUCache } from 'lru-cache';
import { MemoryStore } from './level-store.js';
import { stateKey } from './keys.js';
import { ABSENT } from './chain-store-caches.js';
import { StateReads } from './state-reads.js';
import type { KvOp, KvReader } from '../state/kv.js';

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const dec = (b: Uint8Array | undefined): string | undefined => (b === undefined ? undefined : new TextDecoder().decode(b));

/** A store that counts its reads and can hold `getMany` answers back until released. */
class CountingStore implements KvReader {
  readonly inner = new MemoryStore();
  gets = 0;
  manyCalls = 0;
  manyKeys = 0;
  failMany = false;
  private held: Array<() => void> | null = null;

  async get(key: Uint8Array): Promise<Uint8Array | undefined> {
    this.gets++;
    return this.inner.get(key);
  }

  async getMany(keys: readonly Uint8Array[]): Promise<Array<Uint8Array | undefined>> {
    this.manyCalls++;
    this.manyKeys += keys.length;
    // Read now (as LevelDB does when the call is issued), answer when released.
    const values = await Promise.all(keys.map((k) => this.inner.get(k)));
    if (this.held) await new Promise<void>((resolve) => this.held!.push(resolve));
    if (this.failMany) throw new Error('getMany failed');
    return values;
  }

  hold(): void {
    this.held = [];
  }

  release(): void {
    const waiting = this.held ?? [];
    this.held = null;
    for (const go of waiting) go();
  }

  put(entries: Record<string, string>): Promise<void> {
    const ops: KvOp[] = Object.entries(entries).map(([k, v]) => ({ type: 'put', key: stateKey(k), value: enc(v) }));
    return this.inner.write(ops);
  }
}

function setup(): { kv: CountingStore; cache: LRUCache<string, Uint8Array | typeof ABSENT>; reads: StateReads } {
  const kv = new CountingStore();
  const cache = new LRUCache<string, Uint8Array | typeof ABSENT>({ max: 100 });
  return { kv, cache, reads: new StateReads(kv, cache) };
}

test('a prefetch reads every missing key in one getMany, and reads after it touch no store', async () => {
  const { kv, reads } = setup();
  await kv.put({ 'acct/a': '1', 'acct/b': '2' });
  await reads.prefetch(['acct/a', 'acct/b', 'acct/none', 'acct/a']);
  assert.equal(kv.manyCalls, 1);
  assert.equal(kv.manyKeys, 3, 'a key asked twice is read once');
  assert.equal(dec(await reads.get('acct/a')), '1');
  assert.equal(dec(await reads.get('acct/b')), '2');
  assert.equal(await reads.get('acct/none'), undefined, 'an absent key is remembered as absent');
  assert.equal(kv.gets, 0);
  await reads.prefetch(['acct/a', 'acct/none']);
  assert.equal(kv.manyCalls, 1, 'cached keys are not fetched again');
});

test('a key the prefetch did not ask for is still read from the store', async () => {
  const { kv, reads } = setup();
  await kv.put({ 'acct/a': '1', 'acct/c': '3' });
  await reads.prefetch(['acct/a']);
  assert.equal(dec(await reads.get('acct/c')), '3');
  assert.equal(kv.gets, 1);
});

test('a read of a key being prefetched joins the prefetch instead of reading again', async () => {
  const { kv, reads } = setup();
  await kv.put({ 'acct/a': '1' });
  kv.hold();
  const prefetched = reads.prefetch(['acct/a', 'acct/b']);
  const a = reads.get('acct/a');
  const b = reads.get('acct/b');
  kv.release();
  await prefetched;
  assert.equal(dec(await a), '1');
  assert.equal(await b, undefined);
  assert.equal(kv.gets, 0);
  assert.equal(kv.manyCalls, 1);
});

test('a failed prefetch fills nothing and its waiting readers read on their own', async () => {
  const { kv, reads, cache } = setup();
  await kv.put({ 'acct/a': '1' });
  kv.failMany = true;
  kv.hold();
  const prefetched = reads.prefetch(['acct/a']);
  const a = reads.get('acct/a');
  kv.release();
  await prefetched;
  assert.equal(dec(await a), '1');
  assert.equal(kv.gets, 1);
  assert.equal(dec(cache.get('acct/a') as Uint8Array), '1', 'the reader filled it');
});

test('a state write during a prefetch: the old value is not cached over the new one, and later reads do not join the old read', async () => {
  const { kv, reads, cache } = setup();
  await kv.put({ 'acct/a': 'old' });
  kv.hold();
  const prefetched = reads.prefetch(['acct/a']);
  const early = reads.get('acct/a');
  // The block's batch commits while the prefetch's answer (read before it) is still on its way.
  await reads.writing(
    () => kv.put({ 'acct/a': 'new' }),
    () => cache.set('acct/a', enc('new')),
  );
  cache.delete('acct/a'); // as if evicted: the next read must go to the store, not to the old prefetch
  const late = reads.get('acct/a');
  kv.release();
  await prefetched;
  assert.equal(dec(await early), 'old', 'a read issued before the write may see the old value');
  assert.equal(dec(await late), 'new');
  assert.equal(dec(cache.get('acct/a') as Uint8Array), 'new', 'the prefetch did not fill the cache with what it read before the write');
});

/** `acct/a` = 'old' in a store whose reads take their value at once and answer only once released. */
async function slowReads(): Promise<{ kv: MemoryStore; cache: LRUCache<string, Uint8Array | typeof ABSENT>; reads: StateReads; release: () => void }> {
  const kv = new MemoryStore();
  await kv.write([{ type: 'put', key: stateKey('acct/a'), value: enc('old') }]);
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const slow: KvReader = {
    get: async (key) => {
      const v = await kv.get(key);
      await gate;
      return v;
    },
  };
  const cache = new LRUCache<string, Uint8Array | typeof ABSENT>({ max: 10 });
  return { kv, cache, reads: new StateReads(slow, cache), release };
}

test('a plain read spanning a state write does not fill the cache', async () => {
  const { kv, cache, reads, release } = await slowReads();
  const read = reads.get('acct/a');
  await reads.writing(
    () => kv.write([{ type: 'put', key: stateKey('acct/a'), value: enc('new') }]),
    () => cache.set('acct/a', enc('new')),
  );
  release();
  assert.equal(dec(await read), 'old');
  assert.equal(dec(cache.get('acct/a') as Uint8Array), 'new');
});

test('a read issued while the write is in flight, answered after it, does not fill the cache', async () => {
  const { kv, cache, reads, release: releaseRead } = await slowReads();
  let read: Promise<Uint8Array | undefined> | undefined;
  await reads.writing(
    async () => {
      // Issued after the write began and before the batch reached the store: it reads the old value.
      read = reads.get('acct/a');
      await Promise.resolve();
      await kv.write([{ type: 'put', key: stateKey('acct/a'), value: enc('new') }]);
    },
    () => cache.set('acct/a', enc('new')),
  );
  releaseRead();
  assert.equal(dec(await read!), 'old');
  assert.equal(dec(cache.get('acct/a') as Uint8Array), 'new', 'the read that began during the write left the written value cached');
});

test('a prefetch begun while the write is in flight is neither joined after it nor kept', async () => {
  const { kv, reads, cache } = setup();
  await kv.put({ 'acct/a': 'old' });
  kv.hold();
  let prefetched: Promise<void> | undefined;
  await reads.writing(
    async () => {
      prefetched = reads.prefetch(['acct/a']);
      await kv.put({ 'acct/a': 'new' });
    },
    () => cache.delete('acct/a'),
  );
  const after = reads.get('acct/a');
  kv.release();
  await prefetched;
  assert.equal(dec(await after), 'new', 'a read after the write did not join the prefetch that began during it');
  assert.equal(dec(cache.get('acct/a') as Uint8Array), 'new');
});

test('counts what went to LevelDB by how and by family, and nothing a cache or a joined prefetch answered', async () => {
  const kv = new CountingStore();
  await kv.put({ 'acct/a': '1', 'acct/b': '2', 'sponsor/paidby/a': 'x' });
  const reads = new StateReads(kv, new LRUCache<string, Uint8Array | typeof ABSENT>({ max: 100 }));
  await reads.prefetch(['acct/a', 'acct/b', 'acct/a']);
  await reads.get('acct/a'); // cached by the prefetch
  await reads.get('sponsor/paidby/a');
  await reads.get('sponsor/paidby/a'); // cached by the first read
  await reads.get('sentinel/recent/a'); // absent: read once, then known absent
  await reads.get('sentinel/recent/a');
  await reads.get('bare');
  assert.deepEqual(reads.counts.entries(), [
    { via: 'prefetch', family: 'acct', reads: 2 },
    { via: 'single', family: 'bare', reads: 1 },
    { via: 'single', family: 'sentinel', reads: 1 },
    { via: 'single', family: 'sponsor', reads: 1 },
  ]);
  assert.equal(kv.gets, 3);
  assert.equal(kv.manyKeys, 2);
});
