import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { classifyContractActivity, CONTRACT_ALERT_EVENT, ContractAlerts } from './contract-alerts.js';
import { EventBus, type EventMessage } from './event-bus.js';
import type { NodeAnswer } from './node-client.js';
import type { ContractAlertConfig } from './config.js';

const T: ContractAlertConfig = { checkIntervalMs: 30_000, spikeLowThreshold: 10, spikeHighThreshold: 50, lowScoreThreshold: 60, cooldownMs: 60_000 };

test('classification at each threshold (decisions.md §53)', () => {
  const c = (calls: number, previous: number, score: number | null) => classifyContractActivity(T, calls, previous, score);
  assert.deepEqual(c(50, 0, 90), { alert: 'call_spike', severity: 'high' }, 'at SENTINEL_SPIKE_HIGH_THRESHOLD: high');
  assert.deepEqual(c(49, 0, 90), { alert: 'call_spike', severity: 'medium' }, 'one below high: medium');
  assert.deepEqual(c(10, 5, 90), { alert: 'call_spike', severity: 'medium' }, 'at SENTINEL_SPIKE_LOW_THRESHOLD: medium');
  assert.equal(c(9, 0, 90), null, 'below the low threshold, a good score: nothing');
  assert.deepEqual(c(9, 0, 59), { alert: 'low_score_active', severity: 'medium' }, 'score one below SENTINEL_LOW_SCORE_THRESHOLD, starts being called');
  assert.equal(c(9, 0, 60), null, 'a score at the threshold is not low');
  assert.equal(c(9, 1, 10), null, 'called in the previous interval too: it did not start now');
  assert.equal(c(0, 0, 10), null, 'no calls: nothing');
  assert.equal(c(1, 0, null), null, 'an unknown score never counts as low');
  assert.deepEqual(c(60, 0, 10), { alert: 'call_spike', severity: 'high' }, 'a spike outranks a low score');
});

const APP_A = 'chain:aaaaaaaaaa.app';
const APP_B = 'chain:bbbbbbbbbb.app';

/** A node whose blocks hold the given transactions' `to` addresses, and whose contracts have scores. */
function fakeNode(blocks: Map<number, string[]>, scores: Record<string, number>, names: Record<string, string> = {}): { get: (path: string) => Promise<NodeAnswer>; paths: string[] } {
  const paths: string[] = [];
  return {
    paths,
    get: (path: string) => {
      paths.push(path);
      const tx = /^\/api\/v1\/blocks\/(\d+)\/transactions\?limit=(\d+)&offset=(\d+)$/.exec(path);
      if (tx) {
        const all = blocks.get(Number(tx[1]));
        if (all === undefined) return Promise.resolve({ status: 404, body: { error: `block ${tx[1]} not found` } });
        const [limit, offset] = [Number(tx[2]), Number(tx[3])];
        const page = all.slice(offset, offset + limit).map((to, i) => ({ hash: `0x${offset + i}`, to, status: i % 2 === 0 ? 'confirmed' : 'failed' }));
        return Promise.resolve({ status: 200, body: { height: Number(tx[1]), transactions: page, count: all.length, has_more: offset + limit < all.length } });
      }
      const c = /^\/api\/v1\/contracts\/(.+)$/.exec(path);
      if (c) {
        const named = decodeURIComponent(c[1]!);
        // A registered .app name answers the record of the contract it names (decisions.md §42).
        const address = names[named] ?? named;
        return Promise.resolve(address in scores ? { status: 200, body: { address, security_score: scores[address] } } : { status: 404, body: { error: 'no contract' } });
      }
      return Promise.resolve({ status: 404, body: { error: `not found: GET ${path}` } });
    },
  };
}

function setup(config: ContractAlertConfig, scores: Record<string, number>, names: Record<string, string> = {}) {
  const blocks = new Map<number, string[]>();
  const node = fakeNode(blocks, scores, names);
  const bus = new EventBus(pino({ level: 'silent' }));
  for (const type of ['new_block', CONTRACT_ALERT_EVENT.type]) bus.define(type === 'new_block' ? { type, description: 'b', fields: [] } : CONTRACT_ALERT_EVENT);
  const alerts: Array<Record<string, unknown>> = [];
  bus.subscribe((e: EventMessage) => {
    if (e.type === CONTRACT_ALERT_EVENT.type) alerts.push(e.data);
  });
  let now = 1_000;
  const monitor = new ContractAlerts(config, node, bus, pino({ level: 'silent' }), () => now);
  let height = 0;
  /** A committed block holding one transaction to each of `tos`. */
  const block = (tos: string[]): void => {
    height++;
    blocks.set(height, tos);
    bus.emit('new_block', { height, tx_count: tos.length });
  };
  return { monitor, block, alerts, node, blocks, advance: (ms: number) => (now += ms), bus };
}

test('a burst of calls raises call_spike with the count and delta; the cooldown holds and a suppressed alert is not sent later', async () => {
  const t = setup({ ...T, checkIntervalMs: 1_000_000 }, { [APP_A]: 95, [APP_B]: 95 });
  t.monitor.start();
  try {
    // 52 calls in three blocks (failed ones count too), plus a deploy and a transfer that are not calls.
    t.block(Array<string>(30).fill(APP_A));
    t.block([...Array<string>(22).fill(APP_A), 'chain:system.deploy', 'chain:0123456789abcde.human']);
    t.block([]);
    t.block(Array<string>(3).fill(APP_B));
    await t.monitor.check();
    assert.deepEqual(t.alerts, [{ address: APP_A, alert: 'call_spike', severity: 'high', call_count: 52, delta: 52, timestamp: 1_000, model: 'contract-activity-v1', security_score: 95 }]);
    assert.ok(!t.node.paths.some((p) => p.startsWith('/api/v1/blocks/3/')), 'an empty block is not read');

    t.advance(30_000);
    t.block(Array<string>(12).fill(APP_A));
    await t.monitor.check();
    assert.equal(t.alerts.length, 1, 'a medium spike 30 s later is within ALERT_COOLDOWN_MS: suppressed');
    assert.equal(t.monitor.suppressed, 1);

    t.advance(30_000);
    await t.monitor.check();
    assert.equal(t.alerts.length, 1, 'no calls now: the suppressed alert is not sent late');

    t.block(Array<string>(11).fill(APP_A));
    await t.monitor.check();
    assert.deepEqual(t.alerts[1], { address: APP_A, alert: 'call_spike', severity: 'medium', call_count: 11, delta: 11, timestamp: 61_000, model: 'contract-activity-v1', security_score: 95 }, 'the cooldown over (60 s), the next spike alerts; delta against an interval without calls');
  } finally {
    await t.monitor.stop();
  }
});

test('a low-score contract that starts being called raises low_score_active once, not while it keeps being called', async () => {
  const t = setup({ ...T, cooldownMs: 0 }, { [APP_A]: 20, [APP_B]: 80 });
  t.monitor.start();
  try {
    t.block([APP_A, APP_B]);
    await t.monitor.check();
    assert.deepEqual(t.alerts, [{ address: APP_A, alert: 'low_score_active', severity: 'medium', call_count: 1, delta: 1, timestamp: 1_000, model: 'contract-activity-v1', security_score: 20 }]);
    t.block([APP_A, APP_A]);
    await t.monitor.check();
    assert.equal(t.alerts.length, 1, 'called in the previous interval: not starting');
    await t.monitor.check();
    t.block([APP_A]);
    await t.monitor.check();
    assert.equal(t.alerts.length, 2, 'quiet for one interval, then called again: starts again');
  } finally {
    await t.monitor.stop();
  }
});

test('a block whose transactions the node does not give is counted at the next check', async () => {
  const t = setup(T, { [APP_A]: 90 });
  t.monitor.start();
  try {
    t.bus.emit('new_block', { height: 77, tx_count: 10 }); // the fake node has no block 77 yet: 404
    await t.monitor.check();
    assert.equal(t.alerts.length, 0);
    const again = t.node.paths.filter((p) => p.startsWith('/api/v1/blocks/77/')).length;
    assert.equal(again, 1);
    await t.monitor.check();
    assert.equal(t.node.paths.filter((p) => p.startsWith('/api/v1/blocks/77/')).length, 2, 'retried');
    // Once the node has it, its calls count (in the interval of the check that read them).
    t.blocks.set(77, Array<string>(10).fill(APP_A));
    await t.monitor.check();
    assert.equal(t.alerts.length, 1);
    assert.equal(t.alerts[0]!.call_count, 10);
  } finally {
    await t.monitor.stop();
  }
});

test('calls to a registered .app name count with the calls to the contract\'s own address: one count, one alert', async () => {
  const t = setup({ ...T, checkIntervalMs: 1_000_000 }, { [APP_A]: 95 }, { 'chain:shop.app': APP_A });
  t.monitor.start();
  try {
    t.block([...Array<string>(6).fill(APP_A), ...Array<string>(5).fill('chain:shop.app'), 'chain:gone.app']);
    await t.monitor.check();
    assert.deepEqual(t.alerts, [{ address: APP_A, alert: 'call_spike', severity: 'medium', call_count: 11, delta: 11, timestamp: 1_000, model: 'contract-activity-v1', security_score: 95 }], '6 + 5 calls reach the medium threshold of 10 together; a name the node cannot resolve counts as itself (1 call)');
  } finally {
    await t.monitor.stop();
  }
});
