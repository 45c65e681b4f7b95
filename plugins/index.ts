import type { PluginDefinition } from '../kernel/sdk.js';
import { faucetPlugin } from './faucet/index.js';
import { stakingPlugin } from './staking/index.js';
import { sessionPlugin } from './session/index.js';
import { sponsorPlugin } from './sponsor/index.js';
import { identityPlugin } from './identity/index.js';
import { governancePlugin } from './governance/index.js';
import { contractsPlugin } from './contracts/index.js';
import { analyzerPlugin } from './analyzer/index.js';
import { sentinelPlugin } from './sentinel/index.js';
import { aiRecordsPlugin } from './ai-records/index.js';
import { namesPlugin } from './names/index.js';
import { vaultsPlugin } from './vaults/index.js';
import { assetsPlugin } from './assets/index.js';
import { ibcPlugin } from './ibc/index.js';
import { xshardPlugin } from './xshard/index.js';

/**
 * Every plugin this build knows. A network enables and orders them in configs/<network>.json;
 * static imports keep the catalogue identical on every node (no discovery from the file system).
 */
const PLUGINS: ReadonlyArray<PluginDefinition<any, any>> = [stakingPlugin, faucetPlugin, sessionPlugin, sponsorPlugin, identityPlugin, governancePlugin, contractsPlugin, analyzerPlugin, sentinelPlugin, aiRecordsPlugin, assetsPlugin, namesPlugin, vaultsPlugin, ibcPlugin, xshardPlugin]; // eslint-disable-line @typescript-eslint/no-explicit-any -- plugins of every option type

export const PLUGIN_CATALOGUE: ReadonlyMap<string, PluginDefinition<any, any>> = new Map(PLUGINS.map((p) => [p.name, p])); // eslint-disable-line @typescript-eslint/no-explicit-any
