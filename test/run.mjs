// Runs every compiled test file under dist/ with node:test. Kept as a script (not a shell glob)
// so the file list is sorted, deterministic and works the same on every shell.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function collect(dir, out) {
  for (const name of readdirSync(dir).sort()) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) collect(p, out);
    else if (name.endsWith('.test.js')) out.push(p);
  }
  return out;
}

const filter = process.argv.slice(2);
let files = collect('dist', []);
if (filter.length > 0) files = files.filter((f) => filter.some((s) => f.includes(s)));
if (files.length === 0) {
  console.error('no test files found under dist/ (did the build run?)');
  process.exit(1);
}
// Every declared route's answers are checked against its declaration in the processes the
// integration tests start (kernel/node/response-check.ts): a mismatch answers 500 and fails the test.
const res = spawnSync(process.execPath, ['--test', '--test-concurrency=2', '--test-timeout=300000', ...files], {
  stdio: 'inherit',
  env: { CHAIN_VALIDATE_RESPONSES: '1', ...process.env },
});
process.exit(res.status ?? 1);
