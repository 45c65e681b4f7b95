import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { MemoryNetwork } from '../../kernel/p2p/memory/network.js';
import { Prng } from '../../kernel/p2p/memory/prng.js';
import { Scheduler } from '../../kernel/p2p/memory/scheduler.js';
import type { Transport } from '../../kernel/p2p/transport.js';

// First three outputs for seed 1 (checked against a Python transcription of the reference C);
// any change to the generator changes every simulation replay.
const PINNED_SEED_1 = [2442144158, 3238099751, 3819917871];

describe('Prng (xoshiro128** seeded by splitmix32)', () => {
  test('a seed fixes the sequence; pinned values guard against accidental changes', () => {
    const a = new Prng(42);
    const b = new Prng(42);
    const xs = Array.from({ length: 5 }, () => a.nextU32());
    assert.deepEqual(xs, Array.from({ length: 5 }, () => b.nextU32()));
    assert.notDeepEqual(xs, Array.from({ length: 5 }, () => new Prng(43).nextU32()));
    const one = new Prng(1);
    assert.deepEqual([one.nextU32(), one.nextU32(), one.nextU32()], PINNED_SEED_1);
  });

  test('int() stays in range and covers it; chance() uses integer per-mille', () => {
    const p = new Prng(7);
    const seen = new Set<number>();
    for (let i = 0; i < 2000; i++) {
      const x = p.int(10);
      assert.ok(x >= 0 && x < 10);
      seen.add(x);
    }
    assert.equal(seen.size, 10);
    let hits = 0;
    for (let i = 0; i < 10000; i++) if (p.chance(100)) hits++;
    assert.ok(hits > 850 && hits < 1150, `10% chance gave ${hits} / 10000`);
    assert.equal(p.chance(0), false);
    assert.throws(() => p.int(0));
  });
});

describe('Scheduler', () => {
  test('runs events by virtual time, ties in insertion order, never touching real timers', async () => {
    const s = new Scheduler();
    const log: string[] = [];
    s.schedule(10, () => void log.push('b@10'));
    s.schedule(5, () => void log.push('a@5'));
    s.schedule(10, () => void log.push('c@10'));
    s.schedule(0, () => {
      log.push('first@0');
      s.schedule(10, () => void log.push('d@10'));
    });
    await s.run();
    assert.deepEqual(log, ['first@0', 'a@5', 'b@10', 'c@10', 'd@10']);
    assert.equal(s.now, 10);
  });

  test('awaits async events before the next one, and honours untilMs and stopWhen', async () => {
    const s = new Scheduler();
    const log: number[] = [];
    for (let i = 1; i <= 5; i++) {
      s.schedule(i * 100, async () => {
        await Promise.resolve();
        log.push(s.now);
      });
    }
    await s.run({ untilMs: 250 });
    assert.deepEqual(log, [100, 200]);
    assert.equal(s.now, 250);
    await s.run({ stopWhen: () => log.length === 4 });
    assert.deepEqual(log, [100, 200, 300, 400]);
  });
});

describe('MemoryNetwork', () => {
  function setup(seed: number, ids: string[], conditions = { minDelayMs: 1, maxDelayMs: 50, dropPerMille: 0, duplicatePerMille: 0 }) {
    const s = new Scheduler();
    const net = new MemoryNetwork(s, new Prng(seed), conditions);
    const received: string[] = [];
    const transports = new Map<string, Transport>();
    for (const id of ids) {
      const t = net.join(id);
      t.onMessage((from, msg) => void received.push(`${from}->${id}:${new TextDecoder().decode(msg)}@${s.now}`));
      transports.set(id, t);
    }
    return { s, net, received, transports };
  }

  test('broadcast reaches every peer but the sender; delays reorder messages', async () => {
    const { s, received, transports } = setup(3, ['a', 'b', 'c']);
    const a = transports.get('a')!;
    assert.deepEqual(a.peers(), ['b', 'c']);
    for (let i = 0; i < 20; i++) a.broadcast(new TextEncoder().encode(String(i)));
    await s.run();
    assert.equal(received.length, 40);
    const toB = received.filter((r) => r.includes('->b:')).map((r) => Number(r.split(':')[1]!.split('@')[0]));
    assert.notDeepEqual(toB, [...toB].sort((x, y) => x - y), 'random delays reorder');
  });

  test('drops and duplicates at the configured rates, identically for one seed', async () => {
    const run = async (): Promise<string[]> => {
      const { s, received, transports } = setup(9, ['a', 'b'], { minDelayMs: 1, maxDelayMs: 20, dropPerMille: 200, duplicatePerMille: 100 });
      for (let i = 0; i < 1000; i++) transports.get('a')!.send('b', new TextEncoder().encode(String(i)));
      await s.run();
      return received;
    };
    const first = await run();
    assert.deepEqual(await run(), first, 'same seed, same deliveries');
    assert.ok(first.length > 800 && first.length < 960, `delivered ${first.length} of 1000 (20% drop, 10% dup)`);
  });

  test('a partition blocks traffic between groups until it heals; in-flight messages are lost', async () => {
    const { s, net, received, transports } = setup(5, ['a', 'b', 'c'], { minDelayMs: 10, maxDelayMs: 10, dropPerMille: 0, duplicatePerMille: 0 });
    net.addPartition({ groups: [['a'], ['b']], fromMs: 100, untilMs: 200 });
    const a = transports.get('a')!;
    s.at(95, () => a.broadcast(new TextEncoder().encode('inflight')));
    s.at(150, () => a.broadcast(new TextEncoder().encode('during')));
    s.at(250, () => a.broadcast(new TextEncoder().encode('after')));
    await s.run();
    assert.deepEqual(received, ['a->c:inflight@105', 'a->c:during@160', 'a->b:after@260', 'a->c:after@260']);
    assert.equal(net.stats.partitioned, 2);
  });
});
