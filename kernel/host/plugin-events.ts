import { ConfigError } from '../config/env.js';
import type { PluginDefinition, PluginEventSpec } from './plugin.js';

/** What an event type may be: the gateway's socket carries it as the message's `type`. */
export const EVENT_TYPE_PATTERN = /^[a-z][a-z0-9_]{0,47}$/;

/** An event declaration and the plugin it belongs to. */
export interface DeclaredEvent extends PluginEventSpec {
  readonly plugin: string;
}

/**
 * The events `plugins` declare, in the order given. A malformed declaration, or a type declared
 * twice (by two plugins or one), stops start-up naming the plugins: an observer keyed by type
 * could not tell whose event it was given.
 */
export function declaredEvents(plugins: Iterable<Pick<PluginDefinition<never, never>, 'name' | 'events'>>): DeclaredEvent[] {
  const out: DeclaredEvent[] = [];
  const owner = new Map<string, string>();
  for (const p of plugins) {
    for (const e of p.events ?? []) {
      if (!EVENT_TYPE_PATTERN.test(e.type)) throw new ConfigError(`plugins: "${p.name}" declares event type "${e.type}", which is not lower_snake_case of at most 48 characters`);
      if (!Array.isArray(e.fields) || e.fields.some((f) => typeof f !== 'string')) throw new ConfigError(`plugins: "${p.name}" declares event "${e.type}" whose fields are not a list of names`);
      const prev = owner.get(e.type);
      if (prev !== undefined) throw new ConfigError(`plugins: event type "${e.type}" is declared by both "${prev}" and "${p.name}"`);
      owner.set(e.type, p.name);
      out.push({ ...e, plugin: p.name });
    }
  }
  return out;
}
