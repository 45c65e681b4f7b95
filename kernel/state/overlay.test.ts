import { test } from 'node:test';
import assert from 'node:assert/strict';
import { applyScanOptions, StateOverlay, type StateSource } from './overlay.js';
import { jsonRecord } from './record-codec.js';

const enc = new TextEncoder();
const base: StateSource = {
  get: async (k) => (k === 'a/1' ? enc.encode('one') : undefined),
  scan: async (p) => ('a/1'.startsWith(p) ? [['a/1', enc.encode('one')]] : []),
};

test('child overlays merge on success and vanish on failure', async () => {
  const block = new StateOverlay(base);
  const ok = block.child();
  ok.set('a/2', enc.encode('two'));
  block.absorb(ok);
  const failed = block.child();
  failed.set('a/3', enc.encode('three'));
  failed.delete('a/1');
  // not absorbed
  assert.deepEqual((await block.scan('a/')).map(([k]) => k), ['a/1', 'a/2']);
  block.delete('a/1');
  assert.equal(await block.get('a/1'), undefined);
  assert.deepEqual(block.changes().map(([k, v]) => [k, v === null]), [['a/1', true], ['a/2', false]]);
  assert.throws(() => block.absorb(new StateOverlay(base)), /not a child/);
});

test('records keep bigints exact and refuse floats', () => {
  const c = jsonRecord<{ x: bigint; y: string }>();
  const v = { x: 2n ** 80n, y: 'z' };
  assert.deepEqual(c.decode(c.encode(v)), v);
  assert.throws(() => jsonRecord<{ f: number }>().encode({ f: 0.5 }), /integers only/);
});

test('a bounded scan merges the overlay\'s writes and returns exactly the first rows in its direction, asking the parent for no more than it needs', async () => {
  const rows: Array<[string, Uint8Array]> = ['p/1', 'p/2', 'p/3', 'p/4', 'p/5'].map((k) => [k, enc.encode(k)]);
  const asked: Array<number | undefined> = [];
  const parent: StateSource = {
    get: async (k) => rows.find(([r]) => r === k)?.[1],
    scan: async (p, o) => {
      asked.push(o?.limit);
      return applyScanOptions(rows.filter(([k]) => k.startsWith(p)), o);
    },
  };
  const block = new StateOverlay(parent);
  block.delete('p/1');
  block.delete('p/2');
  block.set('p/25', enc.encode('new'));
  const tx = block.child();
  tx.delete('p/3');
  tx.set('p/0', enc.encode('zero'));
  const keys = async (o?: { reverse?: boolean; limit?: number }) => (await tx.scan('p/', o)).map(([k]) => k);
  assert.deepEqual(await keys(), ['p/0', 'p/25', 'p/4', 'p/5']);
  assert.deepEqual(await keys({ limit: 2 }), ['p/0', 'p/25']);
  assert.deepEqual(await keys({ limit: 3 }), ['p/0', 'p/25', 'p/4']);
  assert.deepEqual(await keys({ reverse: true, limit: 2 }), ['p/5', 'p/4']);
  assert.deepEqual(await keys({ reverse: true }), ['p/5', 'p/4', 'p/25', 'p/0']);
  assert.deepEqual(await keys({ limit: 0 }), []);
  // The committed source was asked for the page plus what each overlay level deleted (1 + 2).
  asked.length = 0;
  await keys({ limit: 2 });
  assert.deepEqual(asked, [2 + 1 + 2]);
});
