import { loadConfig } from '../kernel/config/load.js';
import { runService } from './run-service.js';
import { loadGatewayConfig } from '../plugins/gateway/config.js';
import { startGateway } from './gateway-process.js';
import type { Catalogue } from './catalogue.js';

export interface GatewayFlags {
  network: string;
  configDir: string;
}

/**
 * `chain gateway`: the public face on PORT (default 3000, all interfaces). Configured by the
 * gateway variables of part 2 (PORT, NODE_RPC_URL, ...); the network config supplies the log
 * level and the list of service plugins to load beside the gateway.
 */
export async function runGatewayCommand(flags: GatewayFlags, catalogue: Catalogue): Promise<void> {
  const networkConfig = () => loadConfig({ network: flags.network, configDir: flags.configDir, env: process.env });
  await runService('gateway', async () => {
    // Gateway variables first: several (CHAIN_HTTP_BACKEND, CORS_ALLOWED_ORIGINS) are also read
    // by the node config loader, and an error should name the variable, not a node config path.
    const config = loadGatewayConfig(process.env);
    const gateway = await startGateway(networkConfig(), config, catalogue);
    // SIGHUP: the network config is read again; service plugins beside the gateway follow its list.
    return { log: gateway.log, stop: () => gateway.stop(), reload: async () => void (await gateway.reloadServices(networkConfig().plugins)) };
  });
}
