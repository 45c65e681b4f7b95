import { test } from 'node:test';
import assert from 'node:assert/strict';
import { StateOverlay, type StateSource } from './overlay.js';
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
