import type { PluginDefinition } from '../kernel/sdk.js';

/** Which plugins a build has, by name: the shipped catalogue (plugins/index.ts) or a test build's. */
export type Catalogue = ReadonlyMap<string, PluginDefinition<any, any>>; // eslint-disable-line @typescript-eslint/no-explicit-any -- plugins of every option type

/**
 * The catalogue, loaded when a verb needs it: importing every plugin costs ~0.8 s, which a wallet
 * verb (`chain send`, `chain balance`) that never runs a plugin should not pay on every call.
 */
export type CatalogueSource = () => Promise<Catalogue>;
