import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ALL_KEYS, StateScanCache } from './state-scan-cache.js';

const row = (k: string): [string, Uint8Array] => [k, new Uint8Array([1])];

test('pages of one list keep at most 8 bounds for its prefix, so they cannot push the other prefixes out', () => {
  const cache = new StateScanCache();
  cache.set('gov/ends/', undefined, []);
  for (let limit = 1; limit <= 12; limit++) cache.set('names/by_owner/a/', { limit }, [row('names/by_owner/a/x')]);
  assert.equal(cache.size, 9, 'eight bounds of the paged prefix and the per-height scan');
  assert.equal(cache.get('names/by_owner/a/', { limit: 1 }), undefined, 'the oldest bound went first');
  assert.deepEqual(cache.get('names/by_owner/a/', { limit: 12 }), [row('names/by_owner/a/x')]);
  assert.deepEqual(cache.get('gov/ends/', undefined), []);
});

test('only /-ended prefixes and small answers are kept; bounds are keyed as the store reads them', () => {
  const cache = new StateScanCache();
  cache.set('gov/ends', undefined, []);
  cache.set('big/', undefined, Array.from({ length: 65 }, (_, i) => row(`big/${i}`)));
  cache.set('wide/', undefined, [['wide/a', new Uint8Array(17 * 1024)]]);
  assert.equal(cache.size, 0);
  cache.set('a/', { reverse: false, limit: 2 }, [row('a/1')]);
  assert.deepEqual(cache.get('a/', { limit: 2 }), [row('a/1')], 'reverse: false reads as no reverse');
  assert.equal(cache.get('a/', { reverse: true, limit: 2 }), undefined);
  assert.equal(cache.get('a/', undefined), undefined, 'no limit is not a limit of 2');
  const handed = cache.get('a/', { limit: 2 })!;
  handed[0]![0] = 'changed';
  assert.deepEqual(cache.get('a/', { limit: 2 }), [row('a/1')], 'a caller changing its rows changes its copy only');
  cache.forget(['a/9']);
  assert.equal(cache.size, 0, 'a write under the prefix forgets it');
  cache.set('a/b/', undefined, []);
  cache.forget(ALL_KEYS);
  assert.equal(cache.size, 0);
});

test('past 512 scans the least recently used prefix goes, and a read keeps a prefix recent', () => {
  const cache = new StateScanCache();
  for (let i = 0; i < 512; i++) cache.set(`p${i}/`, undefined, []);
  assert.equal(cache.size, 512);
  assert.deepEqual(cache.get('p0/', undefined), []);
  cache.set('p512/', undefined, []);
  assert.equal(cache.size, 512);
  assert.deepEqual(cache.get('p0/', undefined), [], 'read just before: kept');
  assert.equal(cache.get('p1/', undefined), undefined, 'the least recently used went');
  // Oldest first now: p2/, p3/, … p512/, p0/. p2/ becomes the newest and weighs 5, so the four
  // oldest after it go.
  for (let limit = 1; limit <= 4; limit++) cache.set('p2/', { limit }, []);
  assert.equal(cache.size, 512);
  for (const bounds of [undefined, { limit: 1 }, { limit: 2 }, { limit: 3 }, { limit: 4 }]) assert.deepEqual(cache.get('p2/', bounds), [], `p2/ keeps ${JSON.stringify(bounds)}`);
  for (let i = 3; i <= 6; i++) assert.equal(cache.get(`p${i}/`, undefined), undefined, `p${i}/ went: a prefix weighs the bounds it holds`);
  assert.deepEqual(cache.get('p7/', undefined), [], 'p7/ stays');
});

test('a bound kept again counts as the prefix\'s newest, so the next new bound pushes out the one after it', () => {
  const cache = new StateScanCache();
  for (let limit = 1; limit <= 8; limit++) cache.set('a/', { limit }, []);
  cache.set('a/', { limit: 1 }, []);
  cache.set('a/', { limit: 9 }, []);
  assert.equal(cache.size, 8);
  assert.deepEqual(cache.get('a/', { limit: 1 }), [], 'refilled, so kept');
  assert.equal(cache.get('a/', { limit: 2 }), undefined, 'the oldest bound went');
});
