import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { mulberry32, patternedBytes } from '../helpers/prng.js';
import { CLEAN_LINK, LinkSchedule, checkProfile, maxLatenessMs, segmentLatenessMs, type LinkProfile } from './link-shaper.js';
import { LinkProxy } from './link-proxy.js';

/*
 * The link emulator (link-shaper.ts, link-proxy.ts): delay and jitter within their bounds, loss as
 * retransmission stalls at the rate asked, bytes in order and unchanged, a schedule that replays
 * from its seed, and nothing left behind by close().
 */

const LOSSY: LinkProfile = { delayMs: 50, jitterMs: 200, lossPercent: 30, rtoMs: 200, maxRetransmits: 4 };

test('each segment is late by the delay plus at most the jitter and its retransmission stalls', () => {
  const rand = mulberry32(11);
  const clean = { ...LOSSY, lossPercent: 0 };
  for (let i = 0; i < 5_000; i++) {
    const late = segmentLatenessMs(clean, rand);
    assert.ok(late >= 50 && late < 250, `${late} ms within [50, 250)`);
    const lossy = segmentLatenessMs(LOSSY, rand);
    assert.ok(lossy >= 50 && lossy <= maxLatenessMs(LOSSY), `${lossy} ms within [50, ${maxLatenessMs(LOSSY)}]`);
  }
  assert.equal(maxLatenessMs(LOSSY), 50 + 200 + 200 * 15);
  assert.equal(segmentLatenessMs(CLEAN_LINK, rand), 0);
});

test('a segment is stalled with the loss probability, its retransmissions backing off 200, 400, 800 ms', () => {
  const rand = mulberry32(12);
  const noJitter = { ...LOSSY, delayMs: 0, jitterMs: 0 };
  const counts = new Map<number, number>();
  const N = 20_000;
  for (let i = 0; i < N; i++) {
    const late = segmentLatenessMs(noJitter, rand);
    counts.set(late, (counts.get(late) ?? 0) + 1);
  }
  assert.deepEqual([...counts.keys()].sort((a, b) => a - b), [0, 200, 600, 1400, 3000].filter((k) => counts.has(k)));
  const stalled = (N - counts.get(0)!) / N;
  assert.ok(Math.abs(stalled - 0.3) < 0.015, `${(stalled * 100).toFixed(1)} % of segments stalled at 30 % loss`);
  const twice = ((counts.get(600) ?? 0) + (counts.get(1400) ?? 0) + (counts.get(3000) ?? 0)) / N;
  assert.ok(Math.abs(twice - 0.09) < 0.01, `${(twice * 100).toFixed(1)} % lost twice or more (0.3²)`);
});

test('release times never go back (order preserved), cover every byte once, and replay from the seed', () => {
  const chunks = Array.from({ length: 200 }, (_, i) => Buffer.from(patternedBytes(1 + ((i * 7919) % 5_000), i)));
  const run = (seed: number): Array<{ at: number; bytes: Buffer }> => {
    const s = new LinkSchedule(() => LOSSY, mulberry32(seed));
    return chunks.flatMap((c, i) => s.admit(c, i * 10));
  };
  const a = run(5);
  for (let i = 1; i < a.length; i++) assert.ok(a[i]!.at >= a[i - 1]!.at, `segment ${i} not released before segment ${i - 1}`);
  for (const s of a) assert.ok(s.bytes.length <= 1448);
  assert.deepEqual(Buffer.concat(a.map((s) => s.bytes)), Buffer.concat(chunks));
  assert.deepEqual(run(5).map((s) => s.at), a.map((s) => s.at), 'the same seed gives the same schedule');
  assert.notDeepEqual(run(6).map((s) => s.at), a.map((s) => s.at), 'another seed another');
  // Each segment is at least the delay late, and at most its own bound or the one ahead of it.
  const s = new LinkSchedule(() => LOSSY, mulberry32(7));
  let previous = -Infinity;
  for (let i = 0; i < chunks.length; i++) {
    for (const seg of s.admit(chunks[i]!, i * 10)) {
      assert.ok(seg.at >= i * 10 + LOSSY.delayMs);
      assert.ok(seg.at <= Math.max(previous, i * 10 + maxLatenessMs(LOSSY)));
      previous = seg.at;
    }
  }
});

test('profiles out of range are refused', () => {
  assert.throws(() => checkProfile({ ...LOSSY, lossPercent: 100 }), /lossPercent must be an integer 0\.\.99/);
  assert.throws(() => checkProfile({ ...LOSSY, jitterMs: 1.5 }), /jitterMs/);
  assert.equal(checkProfile(LOSSY), LOSSY);
});

/** A server that echoes what it receives; `received` collects it. */
async function echoServer(): Promise<{ server: net.Server; port: number; received: Buffer[] }> {
  const received: Buffer[] = [];
  const server = net.createServer((s) => {
    s.on('data', (d: Buffer) => {
      received.push(d);
      s.write(d);
    });
    s.on('end', () => s.end());
    s.on('error', () => undefined);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as net.AddressInfo).port, received };
}

test('through the proxy, both ways: every byte arrives once, in order, unchanged, no sooner than the delay; the end of stream follows; close() leaves nothing', async () => {
  const echo = await echoServer();
  const link: LinkProfile = { delayMs: 15, jitterMs: 30, lossPercent: 30, rtoMs: 20, maxRetransmits: 3 };
  const proxy = await LinkProxy.open({ listenHost: '127.0.0.1', target: { host: '127.0.0.1', port: echo.port }, forward: () => link, backward: () => link, seed: 42, name: 'test' });
  try {
    const payload = Buffer.from(patternedBytes(300_000, 3));
    const client = net.connect(Number(proxy.address.split(':')[1]), '127.0.0.1');
    const back: Buffer[] = [];
    const ended = new Promise<void>((r) => client.on('end', r));
    client.on('data', (d: Buffer) => back.push(d));
    await new Promise<void>((r) => client.once('connect', r));
    const t0 = performance.now();
    let firstBack = -1;
    client.once('data', () => (firstBack = performance.now() - t0));
    // Chunks of seeded sizes, some written back to back, some apart.
    const rand = mulberry32(9);
    for (let off = 0; off < payload.length; ) {
      const n = 1 + Math.floor(rand() * 20_000);
      client.write(payload.subarray(off, off + n));
      off += n;
      if (rand() < 0.3) await new Promise((r) => setTimeout(r, 1));
    }
    client.end();
    await ended;
    assert.deepEqual(Buffer.concat(echo.received), payload, 'the target got every byte in order');
    assert.deepEqual(Buffer.concat(back), payload, 'and the dialler every echoed byte');
    assert.ok(firstBack >= 2 * link.delayMs, `the first echo came back after ${firstBack.toFixed(0)} ms, two delays at least`);
    client.destroy();
  } finally {
    await proxy.close();
    echo.server.close();
  }
  assert.equal(proxy.open, 0);
  assert.equal(proxy.heldBytes, 0);
});

test('a reset on one side resets the other, and close() drops connections with bytes still held', async () => {
  const echo = await echoServer();
  const slow: LinkProfile = { ...CLEAN_LINK, delayMs: 5_000 };
  const proxy = await LinkProxy.open({ listenHost: '127.0.0.1', target: { host: '127.0.0.1', port: echo.port }, forward: () => slow, backward: () => slow, seed: 1, name: 'held' });
  const client = net.connect(Number(proxy.address.split(':')[1]), '127.0.0.1');
  client.on('error', () => undefined);
  await new Promise<void>((r) => client.once('connect', r));
  client.write(Buffer.alloc(10_000, 1));
  while (proxy.heldBytes < 10_000) await new Promise((r) => setTimeout(r, 5));
  assert.equal(proxy.open, 1);
  const gone = new Promise<void>((r) => client.once('close', () => r()));
  await proxy.close();
  await gone;
  assert.equal(proxy.heldBytes, 0);
  assert.equal(echo.received.length, 0, 'nothing held was delivered after close');
  echo.server.close();
});
