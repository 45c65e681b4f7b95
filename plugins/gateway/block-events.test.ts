import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { Type } from '@sinclair/typebox';
import { FractionText, fractionText, type PluginEventSpec } from '../../kernel/sdk.js';
import { BlockEventRelay } from './block-events.js';
import { EventBus, type EventMessage } from './event-bus.js';
import type { NodeAnswer } from './node-client.js';

const FAUCET: PluginEventSpec = { type: 'faucet', description: 'credited', fields: ['address', 'amount', 'tx_hash'], socket: true };

/** A node whose block events are `stored`; a height in `down` fails to read (until removed). */
function fakeNode(stored: (height: number) => unknown[] | undefined) {
  const read: number[] = [];
  const down = new Set<number>();
  return {
    read,
    down,
    async get(path: string): Promise<NodeAnswer> {
      const height = Number(/^\/api\/v1\/blocks\/(\d+)\/events$/.exec(path)?.[1]);
      read.push(height);
      if (down.has(height)) throw new Error('no node reachable');
      const events = stored(height);
      return events ? { status: 200, body: { height, events, total: events.length } } : { status: 404, body: { error: `block ${height} not found` } };
    },
  };
}

function relayOver(node: ReturnType<typeof fakeNode>, declared: readonly PluginEventSpec[] = [FAUCET]): { relay: BlockEventRelay; heard: EventMessage[] } {
  const log = pino({ level: 'silent' });
  const bus = new EventBus(log);
  for (const e of declared) bus.define(e);
  const heard: EventMessage[] = [];
  bus.subscribe((e) => heard.push(e));
  return { relay: new BlockEventRelay(declared, node, bus, log), heard };
}

const credit = (height: number) => ({ height, index: 0, tx_hash: `0x${height}`, phase: 'tx', type: 'faucet', data: { address: `chain:${height}`, amount: 5, tx_hash: `0x${height}` } });

test('only declared socket events are relayed, as {type, data} with the data the plugin emitted', async () => {
  const node = fakeNode((h) => [
    { height: h, index: 0, tx_hash: null, phase: 'begin_block', type: 'block_opened', data: { height: h } },
    credit(h),
    { height: h, index: 2, tx_hash: null, phase: 'evidence', type: 'evidence', data: { hash: '0x1' } },
  ]);
  const { relay, heard } = relayOver(node);
  await relay.relayUpTo(5);
  assert.deepEqual(heard, [{ type: 'faucet', data: credit(5).data }]);
});

test('heights go out in order and none twice; a failed read is retried at the next block', async () => {
  const node = fakeNode((h) => [credit(h)]);
  const { relay, heard } = relayOver(node);
  await relay.relayUpTo(5);
  node.down.add(6);
  await relay.relayUpTo(6);
  assert.equal(heard.length, 1, 'nothing of block 6 yet');
  node.down.delete(6);
  await relay.relayUpTo(7);
  assert.deepEqual(heard.map((e) => e.data.address), ['chain:5', 'chain:6', 'chain:7']);
  assert.deepEqual(node.read, [5, 6, 6, 7]);
});

test('a relay far behind skips the oldest heights; a node with a shorter chain is followed', async () => {
  const node = fakeNode((h) => [credit(h)]);
  const { relay, heard } = relayOver(node);
  await relay.relayUpTo(10);
  await relay.relayUpTo(200);
  assert.equal(node.read[1], 200 - 63, 'catches up the last 64 heights only');
  assert.equal(heard.length, 1 + 64);
  await relay.relayUpTo(150);
  assert.equal(heard.at(-1)?.data.address, 'chain:150');
});

test('without declared socket events nothing is relayed, but every block is still read for validator set changes', async () => {
  const node = fakeNode((h) => [credit(h)]);
  const { relay, heard } = relayOver(node, []);
  await relay.relayUpTo(3);
  assert.deepEqual(node.read, [3]);
  assert.deepEqual(heard, []);
});

test('the kernel\'s validator_update block events are kept, not relayed, and taken once the node\'s list shows the new set', async () => {
  const change = (height: number) => ({ height, index: 0, phase: 'end', type: 'validator_update', data: { height, effective_height: height + 2, validators: [{ address: 'chain:alpha.node', power: '30000000' }] } });
  const node = fakeNode((h) => (h === 5 ? [change(5), credit(5)] : [credit(h)]));
  const { relay, heard } = relayOver(node);
  await relay.relayUpTo(4);
  await relay.relayUpTo(6);
  assert.deepEqual(heard.map((e) => e.type), ['faucet', 'faucet', 'faucet'], 'the kernel event is not a plugin socket event');
  assert.deepEqual(relay.takeSetChanges(5), [], 'at height 5 the node lists the set of height 6, still the old one');
  assert.deepEqual(relay.takeSetChanges(6), [{ height: 5, effective_height: 7, validators: [{ address: 'chain:alpha.node', power: '30000000' }] }]);
  assert.deepEqual(relay.takeSetChanges(7), [], 'taken once');
});

test('a score the block holds as text (FractionText) reaches socket clients as the JSON number it spells', async () => {
  const decision: PluginEventSpec = { type: 'oracle_decision', description: 'logged', fields: ['id', 'confidence'], socket: true, data: Type.Object({ id: Type.Integer(), confidence: FractionText() }) };
  const node = fakeNode((h) => [{ height: h, index: 0, tx_hash: null, phase: 'tx', type: 'oracle_decision', data: { id: 1, confidence: fractionText(7521n) } }]);
  const { relay, heard } = relayOver(node, [decision]);
  await relay.relayUpTo(3);
  assert.deepEqual(heard, [{ type: 'oracle_decision', data: { id: 1, confidence: 0.7521 } }]);
  assert.equal(JSON.stringify(heard[0]!.data), '{"id":1,"confidence":0.7521}');
});
