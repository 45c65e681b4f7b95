import type { PluginEntry } from '../config/schema.js';
import type { PluginHost } from './host.js';

/** What a config reload did to the service plugins (`reconcileServices`). */
export interface ServiceReload {
  readonly loaded: string[];
  readonly unloaded: string[];
  readonly failed: Array<{ name: string; reason: string }>;
}

/** What a reload asks of the host: which plugins are what and loaded, and loading one or unloading it. */
export type ReloadableHost = Pick<PluginHost<unknown>, 'kindOf' | 'profile' | 'loadedServices' | 'isLoaded' | 'loadService' | 'unloadService'>;

/**
 * Brings the loaded service plugins in line with a reloaded config (SIGHUP): unloads those no
 * longer enabled (or whose options changed), last listed first, running their close handlers
 * in reverse order; loads those newly enabled. A plugin that fails to load is reported and left
 * out; the process keeps running. State plugins are not touched: they switch only in consensus.
 */
export async function reconcileServices(host: ReloadableHost, entries: readonly PluginEntry[]): Promise<ServiceReload> {
  const out: ServiceReload = { loaded: [], unloaded: [], failed: [] };
  const wanted = entries.filter((e) => e.enabled && host.kindOf(e.name) === 'service');
  const current = host.loadedServices();
  for (const l of [...current].reverse()) {
    const next = wanted.find((e) => e.name === l.name);
    if (next && JSON.stringify(next.options) === JSON.stringify(l.options)) continue;
    await host.unloadService(l.name);
    out.unloaded.push(l.name);
  }
  for (const e of wanted) {
    if (host.isLoaded(e.name)) continue;
    const reason = await host.loadService(e, entries.indexOf(e));
    if (reason === undefined) out.loaded.push(e.name);
    else out.failed.push({ name: e.name, reason });
  }
  for (const e of entries) {
    if (host.kindOf(e.name) === 'state' && !host.isLoaded(e.name) && host.profile === 'node') out.failed.push({ name: e.name, reason: 'a state plugin is not loaded at runtime: list it at start, then switch it by governance (chain devnet enable)' });
  }
  return out;
}
