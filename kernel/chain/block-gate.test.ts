import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BlockGate } from './block-gate.js';

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

test('passage is immediate with no block step running, and waits for the last of overlapping steps', async () => {
  const gate = new BlockGate();
  const order: string[] = [];
  await gate.passage();
  assert.equal(gate.heldCount, 0);
  let endFirst!: () => void;
  let endSecond!: () => void;
  const first = gate.during(() => new Promise<void>((resolve) => (endFirst = resolve)).then(() => 'first'));
  const second = gate.during(() => new Promise<void>((resolve) => (endSecond = resolve)).then(() => 'second'));
  const admitted = gate.passage().then(() => order.push('admitted'));
  await turn();
  assert.deepEqual(order, [], 'held while a step runs');
  endFirst();
  assert.equal(await first, 'first');
  await turn();
  assert.deepEqual(order, [], 'still held: the second step runs');
  endSecond();
  assert.equal(await second, 'second');
  await admitted;
  assert.deepEqual(order, ['admitted']);
  assert.equal(gate.heldCount, 1);
  // Open again.
  await gate.passage();
  assert.equal(gate.heldCount, 1);
});

test('a step that fails opens the gate and passes its error on', async () => {
  const gate = new BlockGate();
  const failing = gate.during(async () => {
    await turn();
    throw new Error('disk full');
  });
  const admitted = gate.passage();
  await assert.rejects(failing, /disk full/);
  await admitted;
  await gate.passage();
});

test('afterSteps waits like passage but is not counted as a held admission', async () => {
  const gate = new BlockGate();
  let end!: () => void;
  const step = gate.during(() => new Promise<void>((resolve) => (end = resolve)));
  let done = false;
  const waiting = gate.afterSteps().then(() => (done = true));
  await turn();
  assert.equal(done, false);
  end();
  await step;
  await waiting;
  assert.equal(gate.heldCount, 0);
});
