import type { PluginDefinition } from '../kernel/sdk.js';

/** Which plugins a build has, by name: the shipped catalogue (plugins/index.ts) or a test build's. */
export type Catalogue = ReadonlyMap<string, PluginDefinition<any, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any -- plugins of every option type
