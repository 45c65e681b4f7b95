import type { PluginDefinition } from '../kernel/sdk.js';
import { faucetPlugin } from './faucet/index.js';
import { sessionPlugin } from './session/index.js';
import { sponsorPlugin } from './sponsor/index.js';
import { identityPlugin } from './identity/index.js';

/**
 * Every plugin this build knows. A network enables and orders them in configs/<network>.json;
 * static imports keep the catalogue identical on every node (no discovery from the file system).
 */
export const PLUGIN_CATALOGUE: ReadonlyMap<string, PluginDefinition<any, any>> = new Map<string, PluginDefinition<any, any>>([ // eslint-disable-line @typescript-eslint/no-explicit-any
  [faucetPlugin.name, faucetPlugin],
  [sessionPlugin.name, sessionPlugin],
  [sponsorPlugin.name, sponsorPlugin],
  [identityPlugin.name, identityPlugin],
]);
