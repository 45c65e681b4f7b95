import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pbkdf2 } from 'node:crypto';
import { existsSync } from 'node:fs';
import { PhaseProbe, valuesIn } from './phase-probe.js';

/** A /metrics endpoint answering each scrape with the next text of `scrapes` (the last one repeats). */
async function metricsServer(scrapes: readonly string[]): Promise<{ url: string; server: Server }> {
  let n = 0;
  const server = createServer((req, res) => {
    res.end(req.url === '/metrics' ? scrapes[Math.min(n++, scrapes.length - 1)] : '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const scrape = (p99: number, max: number, minorCount: number, minorSum: number): string =>
  [
    `event_loop_delay_p99_seconds ${p99}`,
    `event_loop_delay_max_seconds ${max}`,
    `nodejs_gc_duration_seconds_bucket{le="+Inf",kind="minor"} ${minorCount}`,
    `nodejs_gc_duration_seconds_sum{kind="minor"} ${minorSum}`,
    `nodejs_gc_duration_seconds_count{kind="minor"} ${minorCount}`,
  ].join('\n');

test('a sample is read by name, labelled or not, and a missing one is NaN', () => {
  const text = ['# HELP x y', 'verifications_total 4593', 'process_resident_memory_bytes{pid="1"} 3.2e8', 'verifications_total_other 1'].join('\n');
  assert.deepEqual(valuesIn(text, ['verifications_total', 'process_resident_memory_bytes', 'absent_total']), [4593, 3.2e8, NaN]);
});

test('a phase reads each validator before and after it: event-loop delay from the last scrape, GC pauses as the difference, CPU from procfs', async () => {
  // The first scrape (at start) restarts the node's window; what the second reads is the phase's.
  const node = await metricsServer([scrape(0.5, 0.9, 10, 0.2), scrape(0.031, 0.084, 16, 0.35)]);
  try {
    const probe = await PhaseProbe.start([{ url: node.url, pid: process.pid }], null);
    // Some CPU on this thread for procfs to see, however busy the machine is. Only signs are
    // asserted below: process CPU counts GC threads too, so it can outrun the wall clock.
    const from = process.cpuUsage();
    while (process.cpuUsage(from).user < 30_000);
    const spent = await probe.finish();
    assert.deepEqual(spent.loopP99Ms, [31]);
    assert.deepEqual(spent.loopMaxMs, [84]);
    assert.equal(spent.gc[0]!.minor!.count, 6);
    assert.ok(Math.abs(spent.gc[0]!.minor!.sumMs - 150) < 1e-9);
    assert.equal(spent.gatewayCpuSeconds, 0, 'no gateway, nothing spent there');
    assert.ok(spent.wallSeconds > 0, `wall ${spent.wallSeconds}`);
    if (process.platform === 'linux') {
      // This process stands in for a validator: its main thread ran the busy loop.
      assert.ok(spent.mainCpuSeconds > 0, `main thread CPU ${spent.mainCpuSeconds}`);
      assert.ok(spent.otherCpuSeconds >= 0);
      assert.ok(spent.clientCpuSeconds > 0);
      assert.ok(spent.sched[0] && spent.sched[0].runMs > 0);
    }
  } finally {
    node.server.close();
  }
});

test('a validator without a pid, or a gateway whose pid is unknown, reads as unknown, not as zero', async () => {
  const node = await metricsServer([scrape(0.01, 0.02, 0, 0)]);
  try {
    const probe = await PhaseProbe.start([{ url: node.url, pid: undefined }], undefined);
    const spent = await probe.finish();
    assert.ok(Number.isNaN(spent.mainCpuSeconds));
    assert.ok(Number.isNaN(spent.otherCpuSeconds));
    assert.ok(Number.isNaN(spent.gatewayCpuSeconds));
    assert.deepEqual(spent.sched, [null]);
  } finally {
    node.server.close();
  }
});

test("a phase's CPU on libuv's pool is libuv's, not V8's platform's, though the pool started in the platform's last tick", { skip: !existsSync('/proc/self/task') }, async () => {
  // In this test process, as in a validator, libuv's pool starts while the ES module loads, within
  // a tick or two of V8's platform threads: grouping by start time filed all of them as V8's.
  const node = await metricsServer([scrape(0.01, 0.02, 0, 0)]);
  try {
    const probe = await PhaseProbe.start([{ url: node.url, pid: process.pid }], null);
    await Promise.all([0, 1, 2, 3].map(() => new Promise<void>((resolve, reject) => pbkdf2('load', 'bench', 200_000, 64, 'sha512', (err) => (err ? reject(err) : resolve())))));
    const spent = await probe.finish();
    const kinds = spent.cpuByKind!;
    assert.ok(kinds.libuv >= 0.05, `libuv's pool ran the pbkdf2 jobs, yet it shows ${kinds.libuv} s (${JSON.stringify(kinds)})`);
    assert.ok(kinds.libuv > kinds.platform, JSON.stringify(kinds));
    assert.equal(spent.kindsByThreadName, false, 'Node 20 names no thread');
  } finally {
    node.server.close();
  }
});
