import type { StateOverlay, StateSource } from '../state/overlay.js';
import { jsonRecord } from '../state/record-codec.js';
import type { PluginScheduleEntry } from '../context/schedule.js';

/** Where the plugin schedule lives in state: part of the state root, so nodes configured differently diverge visibly. */
export const SCHEDULE_KEY = 'kernel/plugins';

const codec = jsonRecord<unknown>();

export function writeSchedule(overlay: StateOverlay, entries: readonly PluginScheduleEntry[]): void {
  overlay.set(SCHEDULE_KEY, codec.encode(entries.map((e) => ({ name: e.name, activation_height: e.activation_height, retire_height: e.retire_height }))));
}

/** The committed schedule; chains written before retirement existed stored `[name, activation height]` pairs. */
export async function readSchedule(source: StateSource): Promise<PluginScheduleEntry[] | undefined> {
  const raw = await source.get(SCHEDULE_KEY);
  if (raw === undefined) return undefined;
  const value = codec.decode(raw);
  if (!Array.isArray(value)) throw new Error('store integrity: the plugin schedule in state is not a list');
  return value.map((e: unknown) => {
    if (Array.isArray(e) && typeof e[0] === 'string' && typeof e[1] === 'number') return { name: e[0], activation_height: e[1], retire_height: null };
    const o = e as Partial<PluginScheduleEntry>;
    if (typeof o.name !== 'string') throw new Error('store integrity: malformed plugin schedule entry');
    return { name: o.name, activation_height: o.activation_height ?? null, retire_height: o.retire_height ?? null };
  });
}

/**
 * The schedule as a plugin's context reads it (`ctx.pluginSchedule()`, the kernel's record read
 * only, allowed past the plugin boundary like `ctx.validators`): governance checks a
 * `plugin:<name>` change against it when it is proposed and when it passes, with the rule the
 * kernel applies to endBlock's `pluginUpdates` (`changeSchedule`).
 */
export function readPluginSchedule(ctx: { pluginSchedule(): Promise<PluginScheduleEntry[]> }): Promise<PluginScheduleEntry[]> {
  return ctx.pluginSchedule();
}
