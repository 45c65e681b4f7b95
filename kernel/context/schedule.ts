import { ChainError } from '../errors.js';

/**
 * The activation schedule of state plugins, kept in state (`kernel/plugins`) so it is part of the
 * state root and changes only in consensus: every validator starts and stops running a plugin's
 * taps at the same height.
 */
export interface PluginScheduleEntry {
  readonly name: string;
  /** First height the plugin runs at; null when it is not scheduled. */
  readonly activation_height: number | null;
  /** First height it no longer runs at; null when no retirement is scheduled. */
  readonly retire_height: number | null;
}

/** decisions.md §26 and §37: `available` (loaded, never scheduled), `scheduled`, `active`, `retired`. */
export type PluginState = 'active' | 'scheduled' | 'retired' | 'available';

export function pluginState(e: PluginScheduleEntry | undefined, height: number): PluginState {
  if (!e || e.activation_height === null) return 'available';
  if (e.retire_height !== null && height >= e.retire_height) return 'retired';
  return height >= e.activation_height ? 'active' : 'scheduled';
}

/**
 * 403 naming the plugin and its state when it is not active at `height` (decisions.md §37): the
 * one answer for an operation of an inactive plugin and for a call of its methods.
 */
export function inactivePluginProblem(name: string, state: PluginState, e: PluginScheduleEntry | undefined, height: number): ChainError | undefined {
  if (state === 'active') return undefined;
  const when = state === 'scheduled' ? ` (it activates at height ${e?.activation_height})` : state === 'retired' ? ` (it retired at height ${e?.retire_height})` : ' (it is not switched on on this network)';
  return new ChainError(403, `plugin "${name}" is ${state}, not active, at height ${height}${when}`);
}

/** A change to one plugin's schedule, made in consensus (a passed `plugin:<name>` governance change). */
export interface PluginScheduleChange {
  readonly name: string;
  readonly change: 'activate' | 'retire';
  readonly height: number;
}

/**
 * Applies a change to the schedule, or says why it may not be made: the plugin must be a loaded
 * state plugin, and the height must lie after the block that makes the change, so no node has
 * already run (or skipped) that height with the old schedule.
 */
export function changeSchedule(entries: readonly PluginScheduleEntry[], c: PluginScheduleChange, blockHeight: number): PluginScheduleEntry[] | string {
  const i = entries.findIndex((e) => e.name === c.name);
  if (i < 0) return `plugin "${c.name}" is not a state plugin of this network`;
  if (!Number.isSafeInteger(c.height) || c.height <= blockHeight) return `${c.change}@${c.height}: the height must be after the block that schedules it (${blockHeight})`;
  const e = entries[i]!;
  if (c.change === 'activate' && pluginState(e, blockHeight) === 'active') {
    return `plugin "${c.name}" is already active; activate@${c.height} would switch it off until then`;
  }
  const next: PluginScheduleEntry =
    c.change === 'activate'
      ? { name: e.name, activation_height: c.height, retire_height: e.retire_height !== null && e.retire_height > c.height ? e.retire_height : null }
      : { name: e.name, activation_height: e.activation_height, retire_height: c.height };
  if (c.change === 'retire' && (e.activation_height === null || e.activation_height >= c.height)) return `plugin "${c.name}" is not active before height ${c.height}, so it cannot retire there`;
  return entries.map((x, j) => (j === i ? next : x));
}
