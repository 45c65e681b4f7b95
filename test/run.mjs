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

// `--faults` (npm run test:faults) runs the fault suite: the long scenarios under dist/test/faults/,
// which the normal suite leaves out, with the reduced ones and the history checker's own tests.
const faults = process.argv.includes('--faults');
const filter = process.argv.slice(2).filter((a) => a !== '--faults');
const FAULTS_DIR = join('dist', 'test', 'faults');
const FAULTS_REDUCED = [join('dist', 'test', 'cluster'), join('dist', 'test', 'integration', 'partitions.test.js')];
let files = collect('dist', []);
files = faults ? files.filter((f) => f.startsWith(FAULTS_DIR) || FAULTS_REDUCED.some((p) => f.startsWith(p))) : files.filter((f) => !f.startsWith(FAULTS_DIR));
if (filter.length > 0) files = files.filter((f) => filter.some((s) => f.includes(s)));

// Longest first, then the short unit files that fill the gaps (the scheduling rule for two
// workers that leaves least idle at the end): in name order the integration files came last and
// the final minutes ran one file beside nothing. The list is the clean-clone CI's longest files
// (2026-11-29, seconds in brackets); a file missing from it only runs in the second group.
const LONGEST = [
  'integration/cli.test.js', // 250
  'integration/genesis-cli.test.js', // 173
  'integration/governance-activation.test.js', // 169
  'integration/governance.test.js', // 146
  'integration/hostile-staking.test.js', // 114
  'integration/multi-host.test.js', // 112
  'integration/mcp.test.js', // 111
  'integration/bft.test.js', // 102
  'integration/fuzz-routes-gateway.test.js', // ~100 of fuzz-routes' 189, now split
  'integration/fuzz-routes-node.test.js', // ~85
];
const rank = (f) => {
  const i = LONGEST.findIndex((l) => f.endsWith(l));
  if (i >= 0) return i;
  return f.includes(`${join('dist', 'test')}`) && !f.includes(join('test', 'helpers')) ? LONGEST.length : LONGEST.length + 1;
};
files = files.map((f, at) => ({ f, at })).sort((a, b) => rank(a.f) - rank(b.f) || a.at - b.at).map((x) => x.f);
if (files.length === 0) {
  console.error('no test files found under dist/ (did the build run?)');
  process.exit(1);
}
// Every declared route's answers are checked against its declaration in the processes the
// integration tests start (kernel/node/response-check.ts): a mismatch answers 500 and fails the test.
// The limit per file catches a hang, not a slow machine: the longest files take 140–250 s on a
// loaded 2-core CI (governance-activation's two 100-block voting windows 248 s), so 300 s failed
// files that were only slow.
const res = spawnSync(process.execPath, ['--test', `--test-concurrency=${faults ? 1 : 2}`, '--test-timeout=480000', ...files], {
  stdio: 'inherit',
  env: { CHAIN_VALIDATE_RESPONSES: '1', ...process.env },
});
process.exit(res.status ?? 1);
