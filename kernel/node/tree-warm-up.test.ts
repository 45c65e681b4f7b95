import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Logger } from 'pino';
import { MissingNodeError, type UpperLevelsWarmUp } from '../state/tree/index.js';
import { startTreeWarmUp } from './tree-warm-up.js';

/** A logger that keeps each message with its level. */
function recordingLog(): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  const at = (level: string) => (_obj: unknown, msg: string) => void lines.push(`${level}: ${msg}`);
  return { log: { info: at('info'), warn: at('warn'), fatal: at('fatal') } as unknown as Logger, lines };
}

/** Resolves once `check` holds, looking after each macrotask (the warm-up's own steps are awaited promises and a timer). */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setImmediate(r));
}

test('a warm-up the chain outran starts again at the head and logs the nodes of every attempt once complete', async () => {
  const answers: UpperLevelsWarmUp[] = [{ nodes: 5, complete: false }, { nodes: 7, complete: true }];
  let calls = 0;
  const { log, lines } = recordingLog();
  const warm = startTreeWarmUp({ warmStateTree: async () => answers[calls++]! }, log, () => assert.fail('no damage'));
  assert.equal(warm.running, true);
  await until(() => !warm.running);
  assert.equal(calls, 2);
  assert.deepEqual(lines.filter((l) => !l.startsWith('info: state tree warm-up stopped')), [`info: state tree's upper levels read into memory: 12 nodes in ${/in ([\d.]+) s/.exec(lines[0]!)![1]} s`]);
  await warm.stop();
});

test('stop aborts the read in flight and waits for it; an ordinary failure is logged, a damaged store is the node\'s fault', async () => {
  let release: (w: UpperLevelsWarmUp) => void = () => undefined;
  let seen: AbortSignal | undefined;
  const { log, lines } = recordingLog();
  const warm = startTreeWarmUp(
    {
      warmStateTree: (signal) => {
        seen = signal;
        return new Promise((r) => (release = r));
      },
    },
    log,
    () => assert.fail('no damage'),
  );
  let stopped = false;
  const stopping = warm.stop().then(() => (stopped = true));
  await new Promise((r) => setImmediate(r));
  assert.equal(seen?.aborted, true);
  assert.equal(stopped, false, 'waits for the read in flight');
  release({ nodes: 3, complete: false });
  await stopping;
  assert.equal(warm.running, false);
  assert.deepEqual(lines, ['info: state tree warm-up stopped with the node']);

  const failing = recordingLog();
  const failed = startTreeWarmUp({ warmStateTree: async () => Promise.reject(new Error('disk read failed')) }, failing.log, () => assert.fail('not damage'));
  await until(() => !failed.running);
  assert.deepEqual(failing.lines, ['warn: state tree warm-up failed; blocks fill the upper levels as they read paths']);

  const damaged = recordingLog();
  const faults: Error[] = [];
  const broken = startTreeWarmUp({ warmStateTree: async () => Promise.reject(new MissingNodeError('ab12 at version 7')) }, damaged.log, (err) => faults.push(err));
  await until(() => !broken.running);
  assert.equal(faults.length, 1);
  assert.ok(faults[0] instanceof MissingNodeError);
  assert.match(damaged.lines[0]!, /^fatal: state tree warm-up: the tree store is damaged/);
});
