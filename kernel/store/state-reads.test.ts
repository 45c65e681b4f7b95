import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LRUCache } from 'lru-cache';
import fc from 'fast-check';
import { MemoryStore } from './level-store.js';
import { stateKey } from './keys.js';
import { ABSENT } from './chain-store-caches.js';
import { StateReads } from './state-reads.js';
import { ALL_KEYS } from './state-scan-cache.js';
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
    ['acct/a'],
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
    ['acct/a'],
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
    ['acct/a'],
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
    ['acct/a'],
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

/** The store's own answer to a state scan, as ChainStore reads it without the cache. */
async function scanStore(kv: MemoryStore, prefix: string, options: { reverse?: boolean; limit?: number } = {}): Promise<Array<[string, Uint8Array]>> {
  const start = stateKey(prefix);
  const end = stateKey(`${prefix}\uffff`);
  const rows: Array<[string, Uint8Array]> = [];
  for await (const [k, v] of kv.iterate({ gte: start, lt: end, ...(options.reverse ? { reverse: true } : {}) })) {
    rows.push([new TextDecoder().decode(k).slice(stateKey('').length), v]);
  }
  return options.limit === undefined ? rows : rows.slice(0, options.limit);
}

const text = (rows: ReadonlyArray<readonly [string, Uint8Array]>): string[] => rows.map(([k, v]) => `${k}=${dec(v)}`);

test('a scan is kept until a write changes a key under its prefix, and only a write there forgets it', async () => {
  const kv = new MemoryStore();
  const reads = new StateReads(kv, new LRUCache<string, Uint8Array | typeof ABSENT>({ max: 10 }));
  let storeScans = 0;
  const scan = (prefix: string, options?: { limit?: number }): Promise<Array<[string, Uint8Array]>> =>
    reads.scan(prefix, options, () => {
      storeScans++;
      return scanStore(kv, prefix, options);
    });
  const write = (changes: Record<string, string | null>): Promise<void> =>
    reads.writing(
      () => kv.write(Object.entries(changes).map(([k, v]) => (v === null ? { type: 'del', key: stateKey(k) } : { type: 'put', key: stateKey(k), value: enc(v) }))),
      Object.keys(changes),
      () => undefined,
    );
  assert.deepEqual(await scan('gov/ending/7/'), []);
  assert.deepEqual(await scan('gov/ending/7/'), []);
  assert.equal(storeScans, 1, 'an empty range is read once');
  await write({ 'acct/a': '1', 'gov/proposal/1': 'p' });
  assert.deepEqual(await scan('gov/ending/7/'), []);
  assert.equal(storeScans, 1, 'writes outside the prefix keep it');
  await write({ 'gov/ending/7/1': 'x' });
  assert.deepEqual(text(await scan('gov/ending/7/')), ['gov/ending/7/1=x']);
  assert.equal(storeScans, 2, 'a write under the prefix forgets it');
  await scan('gov/ending/7/', { limit: 1 });
  await write({ 'gov/ending/7/1': null });
  assert.deepEqual(await scan('gov/ending/7/', { limit: 1 }), [], 'a deletion under the prefix forgets every bound kept for it');
  assert.deepEqual(text(await scan('gov/')), ['gov/proposal/1=p']);
  const before = storeScans;
  await write({ 'gov/ending/9/2': 'y' });
  await scan('gov/');
  assert.equal(storeScans, before + 1, 'a write deep under a prefix forgets the scans of its shorter heads too');
  const rows = await scan('gov/');
  rows.pop();
  assert.equal((await scan('gov/')).length, 2, 'the array handed out is the caller’s own');
  await scan('gov');
  await scan('gov');
  assert.equal(storeScans, before + 3, 'a prefix not ended by / is never kept');
});

test('a scan spanning a state write is not kept', async () => {
  const kv = new MemoryStore();
  const reads = new StateReads(kv, new LRUCache<string, Uint8Array | typeof ABSENT>({ max: 10 }));
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  // Reads the store now, answers after the write below landed.
  const spanning = reads.scan('due/', undefined, async () => {
    const rows = await scanStore(kv, 'due/');
    await gate;
    return rows;
  });
  let during: Promise<Array<[string, Uint8Array]>> | undefined;
  await reads.writing(
    async () => {
      // Begun and answered while the write is under way, before its batch reaches the store.
      during = reads.scan('due/', { limit: 5 }, () => scanStore(kv, 'due/', { limit: 5 }));
      await during;
      await kv.write([{ type: 'put', key: stateKey('due/1'), value: enc('h') }]);
    },
    ['due/1'],
    () => undefined,
  );
  release();
  assert.deepEqual(await spanning, [], 'it answers what it read');
  assert.deepEqual(await during, []);
  assert.deepEqual(text(await reads.scan('due/', undefined, () => scanStore(kv, 'due/'))), ['due/1=h'], 'neither old answer was kept');
  assert.deepEqual(text(await reads.scan('due/', { limit: 5 }, () => scanStore(kv, 'due/', { limit: 5 }))), ['due/1=h']);
  assert.equal(reads.scansCached, 2);
  await reads.writing(async () => undefined, ALL_KEYS, () => undefined);
  assert.equal(reads.scansCached, 0, 'ALL_KEYS forgets every scan');
});

test('property: scans through the cache answer what the store holds, whatever the writes and their overlap with scans', async () => {
  const prefixes = ['a/', 'a/x/', 'a/y/', 'b/', 'b/x/1/'];
  const keys = ['a/1', 'a/x/1', 'a/x/2', 'a/y/1', 'a/xy', 'b/x/1/1', 'b/x/1/2', 'b/x/10', 'b/2', 'c/1'];
  const scanArb = fc.record({ prefix: fc.constantFrom(...prefixes), reverse: fc.boolean(), limit: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }) });
  const step = fc.oneof(
    fc.record({ kind: fc.constant('scan' as const), scan: scanArb }),
    fc.record({
      kind: fc.constant('write' as const),
      changes: fc.uniqueArray(fc.tuple(fc.constantFrom(...keys), fc.option(fc.constantFrom('1', '2', '3'), { nil: null })), { selector: ([k]) => k, minLength: 1, maxLength: 3 }),
      during: fc.option(scanArb, { nil: undefined }),
    }),
  );
  await fc.assert(
    fc.asyncProperty(fc.array(step, { maxLength: 40 }), async (steps) => {
      const kv = new MemoryStore();
      const reads = new StateReads(kv, new LRUCache<string, Uint8Array | typeof ABSENT>({ max: 10 }));
      const viaCache = (s: { prefix: string; reverse: boolean; limit: number | undefined }): Promise<Array<[string, Uint8Array]>> => {
        const options = { reverse: s.reverse, ...(s.limit === undefined ? {} : { limit: s.limit }) };
        return reads.scan(s.prefix, options, () => scanStore(kv, s.prefix, options));
      };
      for (const st of steps) {
        if (st.kind === 'scan') {
          const options = { reverse: st.scan.reverse, ...(st.scan.limit === undefined ? {} : { limit: st.scan.limit }) };
          assert.deepEqual(text(await viaCache(st.scan)), text(await scanStore(kv, st.scan.prefix, options)));
          continue;
        }
        await reads.writing(
          async () => {
            if (st.during) await viaCache(st.during);
            await kv.write(st.changes.map(([k, v]) => (v === null ? { type: 'del', key: stateKey(k) } : { type: 'put', key: stateKey(k), value: enc(v) })));
          },
          st.changes.map(([k]) => k),
          () => undefined,
        );
      }
      for (const prefix of prefixes) {
        for (const reverse of [false, true]) {
          assert.deepEqual(text(await viaCache({ prefix, reverse, limit: undefined })), text(await scanStore(kv, prefix, { reverse })));
        }
      }
    }),
    { seed: 41, numRuns: 300 },
  );
});
