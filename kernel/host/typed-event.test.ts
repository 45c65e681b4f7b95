import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Type } from '@sinclair/typebox';
import { defineEvent } from './typed-event.js';
import { declaredEvents } from './plugin-events.js';
import type { ChainEvent } from '../model/types.js';

const credited = defineEvent({
  type: 'credited',
  description: 'an account was credited',
  data: Type.Object({ address: Type.String(), amount: Type.BigInt({ minimum: 1n }) }),
  socket: true,
});

test('a declared event emits typed data its schema accepts, and refuses other data before it reaches the block', () => {
  const emitted: ChainEvent[] = [];
  const ctx = { emit: (e: ChainEvent) => void emitted.push(e) };
  credited.emit(ctx, { address: 'chain:a.human', amount: 5n });
  assert.deepEqual(emitted, [{ type: 'credited', data: { address: 'chain:a.human', amount: 5n } }]);
  assert.throws(() => credited.emit(ctx, { address: 'chain:a.human', amount: 5 } as never), /event credited: data does not match its schema: amount: Expected bigint/);
  assert.throws(() => credited.emit(ctx, { address: 'chain:a.human', amount: 0n }), /amount: Expected bigint to be greater or equal to 1/);
  assert.equal(emitted.length, 1);
});

test('its fields are its data\'s keys: the gateway\'s socket mapping reads declared events as before', () => {
  assert.deepEqual(credited.fields, ['address', 'amount']);
  const declared = declaredEvents([{ name: 'bank', events: [credited, { type: 'old_style', description: 'fields only', fields: ['a'] }] }]);
  assert.deepEqual(declared.map((e) => [e.plugin, e.type, e.fields, e.socket ?? false]), [['bank', 'credited', ['address', 'amount'], true], ['bank', 'old_style', ['a'], false]]);
  assert.throws(() => defineEvent({ type: 'Bad-Type', description: '', data: Type.Object({}) }), /lower_snake_case/);
});
