import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { getPriority } from 'node:os';
import { Worker } from 'node:worker_threads';

test('a thread lowers its own priority and no other thread\'s', { skip: !existsSync('/proc/thread-self') && 'no per-thread priority on this platform' }, async () => {
  const module = new URL('./thread-priority.js', import.meta.url).href;
  const mainBefore = getPriority();
  const worker = new Worker(
    `import { parentPort } from 'node:worker_threads';
     import { readlinkSync } from 'node:fs';
     import { getPriority } from 'node:os';
     const { lowerThreadPriority } = await import(${JSON.stringify(module)});
     const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
     const before = getPriority(tid);
     const set = lowerThreadPriority(5);
     parentPort.postMessage({ tid, before, set, none: lowerThreadPriority(0) });
     parentPort.once('message', () => process.exit(0));`,
    { eval: true, type: 'module' } as never,
  );
  const got = await new Promise<{ tid: number; before: number; set: number; none: number | undefined }>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  try {
    assert.notEqual(got.tid, process.pid, 'the worker has a thread id of its own');
    assert.equal(got.set, Math.min(19, got.before + 5));
    assert.equal(getPriority(got.tid), got.set, 'seen from outside the thread too');
    assert.equal(got.none, undefined, 'zero steps change nothing');
    assert.equal(getPriority(), mainBefore, 'the main thread keeps its priority');
  } finally {
    worker.postMessage('done');
    await new Promise((r) => worker.once('exit', r));
  }
});
