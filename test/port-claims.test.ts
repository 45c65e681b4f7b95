import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { claimPorts } from './helpers/port-claims.js';

const CLAIMS = join(tmpdir(), 'pq-chain-test-ports');
const helper = resolve('dist/test/helpers/port-claims.js');
/** Whether another process may claim the block (it exits at once, releasing what it took). */
const otherClaims = (start: number, n: number): boolean =>
  execFileSync(process.execPath, ['--input-type=module', '-e', `import { claimPorts } from ${JSON.stringify(helper)}; process.stdout.write(String(claimPorts(${start}, ${n})));`], { encoding: 'utf8' }) === 'true';

test('a claimed block is refused to another process, whole or in part, and released when the claimer exits', () => {
  const start = 30_000 + (process.pid % 1_000) * 3;
  assert.equal(claimPorts(start, 3), true);
  assert.equal(otherClaims(start, 3), false);
  assert.equal(otherClaims(start + 2, 3), false, 'an overlapping block');
  assert.equal(otherClaims(start + 3, 3), true, 'the block next to it');
  assert.equal(existsSync(join(CLAIMS, String(start + 3))), false, 'the other process released its claim at exit');
});

test('a claim whose process is gone is taken over', () => {
  const port = 31_000 + (process.pid % 1_000);
  mkdirSync(CLAIMS, { recursive: true });
  // A pid far above pid_max: no process has it.
  writeFileSync(join(CLAIMS, String(port)), '99999999');
  assert.equal(claimPorts(port, 1), true);
});
