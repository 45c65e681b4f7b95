import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BlockTimings } from './block-timings.js';

test('a step is counted and timed whether its work resolves or throws, and its result or error passes through', async () => {
  const t = new BlockTimings();
  assert.equal(await t.time('write', async () => 7), 7);
  await assert.rejects(t.time('write', async () => Promise.reject(new Error('disk full'))), /disk full/);
  const write = t.entries().find((e) => e.step === 'write')!;
  assert.equal(write.count, 2);
  assert.ok(write.seconds >= 0);
  assert.deepEqual(t.entries().map((e) => [e.step, e.count]), [['execute', 0], ['tree', 0], ['write', 2], ['recheck', 0]]);
});

test('a commit\'s time goes to the observer once the block is stored, and nowhere without one', () => {
  const t = new BlockTimings();
  t.commitStarted()(); // no observer yet: nothing to tell
  const seen: number[] = [];
  t.onCommit((s) => seen.push(s));
  const stored = t.commitStarted();
  assert.deepEqual(seen, []);
  stored();
  assert.equal(seen.length, 1);
  assert.ok(seen[0]! >= 0);
});
