import type { PluginDefinition } from '../../kernel/sdk.js';
import { PLUGIN_CATALOGUE } from '../../plugins/index.js';

/**
 * Another plugin, taken from the build's catalogue by name, for a plugin's unit tests that need it
 * registered beside the plugin under test: a plugin's files, tests included, reach another plugin
 * only through its public file or the catalogue, never its internals (test/sdk-boundary.test.ts).
 */
export function cataloguedPlugin(name: string): PluginDefinition<any, any> { // eslint-disable-line @typescript-eslint/no-explicit-any -- plugins of every option type, as the catalogue holds them
  const plugin = PLUGIN_CATALOGUE.get(name);
  if (plugin === undefined) throw new Error(`no plugin named ${name} in the catalogue (plugins/index.ts)`);
  return plugin;
}
