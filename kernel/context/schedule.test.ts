import { test } from 'node:test';
import assert from 'node:assert/strict';
import { changeSchedule, pluginState, type PluginScheduleEntry } from './schedule.js';

const entries: PluginScheduleEntry[] = [
  { name: 'faucet', activation_height: 0, retire_height: null },
  { name: 'beacon', activation_height: null, retire_height: null },
];

test('plugin states at a height', () => {
  assert.equal(pluginState(undefined, 5), 'available');
  assert.equal(pluginState({ name: 'x', activation_height: null, retire_height: null }, 5), 'available');
  assert.equal(pluginState({ name: 'x', activation_height: 10, retire_height: null }, 9), 'scheduled');
  assert.equal(pluginState({ name: 'x', activation_height: 10, retire_height: 20 }, 10), 'active');
  assert.equal(pluginState({ name: 'x', activation_height: 10, retire_height: 20 }, 19), 'active');
  assert.equal(pluginState({ name: 'x', activation_height: 10, retire_height: 20 }, 20), 'retired');
});

test('a schedule change applies for a later height only, to a state plugin the network lists', () => {
  assert.deepEqual(changeSchedule(entries, { name: 'beacon', change: 'activate', height: 12 }, 11), [entries[0], { name: 'beacon', activation_height: 12, retire_height: null }]);
  assert.match(changeSchedule(entries, { name: 'beacon', change: 'activate', height: 11 }, 11) as string, /after the block that schedules it/);
  assert.match(changeSchedule(entries, { name: 'nope', change: 'activate', height: 20 }, 11) as string, /not a state plugin of this network/);
  assert.deepEqual(changeSchedule(entries, { name: 'faucet', change: 'retire', height: 30 }, 11), [{ name: 'faucet', activation_height: 0, retire_height: 30 }, entries[1]]);
  assert.match(changeSchedule(entries, { name: 'beacon', change: 'retire', height: 30 }, 11) as string, /not active before height 30/);
  // Re-activating a retired plugin clears a retirement that lies before the new activation.
  const retired: PluginScheduleEntry[] = [{ name: 'faucet', activation_height: 0, retire_height: 15 }];
  assert.deepEqual(changeSchedule(retired, { name: 'faucet', change: 'activate', height: 20 }, 16), [{ name: 'faucet', activation_height: 20, retire_height: null }]);
});
