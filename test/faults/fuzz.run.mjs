// The long forms of the route fuzzer and the disk-fault tests (issue 39), for local runs and
// `npm run test:faults`; the normal suite runs the same files with small bounds.
//
//   npm run fuzz -- --runs 5000 --seed 7            every route of a node and a gateway, 5 000 cases each
//   npm run fuzz -- --route 'POST /api/v1/faucet'   one route (a substring of "METHOD /path")
//   npm run fuzz -- --seed 7 --route '…' --path 3:1  replay the case a failure printed
//   node test/faults/fuzz.run.mjs --faults          the above plus every bit of the disk-fault cases
//
// Starts processes on loopback: run it under the machine lock (/work/bin/heavy) on a shared machine.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '1000' },
    seed: { type: 'string' },
    route: { type: 'string' },
    path: { type: 'string' },
    concurrency: { type: 'string' },
    faults: { type: 'boolean', default: false },
  },
});
if (!/^[1-9][0-9]*$/.test(values.runs)) {
  console.error(`--runs must be a positive whole number, got ${values.runs}`);
  process.exit(2);
}
const files = ['dist/test/integration/fuzz-routes-node.test.js', 'dist/test/integration/fuzz-routes-gateway.test.js'];
if (values.faults) files.push('dist/kernel/replica/disk-faults.test.js', 'dist/test/integration/disk-faults.test.js');
for (const f of files) {
  if (!existsSync(f)) {
    console.error(`${f} is missing: run npm run build first`);
    process.exit(1);
  }
}
const env = {
  CHAIN_VALIDATE_RESPONSES: '1',
  ...process.env,
  FUZZ_RUNS: values.runs,
  ...(values.seed !== undefined ? { FUZZ_SEED: values.seed } : {}),
  ...(values.route !== undefined ? { FUZZ_ROUTE: values.route } : {}),
  ...(values.path !== undefined ? { FUZZ_PATH: values.path } : {}),
  ...(values.concurrency !== undefined ? { FUZZ_CONCURRENCY: values.concurrency } : {}),
  ...(values.faults ? { FAULTS_FULL: '1' } : {}),
};
// No per-test timeout: a long run is as long as --runs makes it.
const res = spawnSync(process.execPath, ['--test', '--test-concurrency=1', '--test-timeout=0', ...files], { stdio: 'inherit', env });
process.exit(res.status ?? 1);
