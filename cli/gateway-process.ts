import pino, { type Logger } from 'pino';
import { createHooks } from '../kernel/host/hooks.js';
import { PluginHost } from '../kernel/host/host.js';
import { reconcileServices, type ServiceReload } from '../kernel/host/service-reload.js';
import type { PluginDefinition } from '../kernel/host/plugin.js';
import { declaredEvents } from '../kernel/host/plugin-events.js';
import { ParamRegistry } from '../kernel/state/params.js';
import type { NodeConfig } from '../kernel/config/schema.js';
import type { GatewayConfig } from '../plugins/gateway/config.js';
import { gatewayPlugin } from '../plugins/gateway/index.js';
import { explorerPlugin } from '../plugins/explorer/index.js';
import { createGatewayServices, type GatewayServices } from '../plugins/gateway/services.js';
import { forwardedOperations } from '../plugins/gateway/operation-routes.js';
import { listedPluginRoutes } from '../plugins/gateway/plugin-reads.js';

export interface RunningGateway {
  readonly log: Logger;
  readonly services: GatewayServices;
  stop(): Promise<void>;
  /** Loads and unloads the service plugins beside the gateway to match a reloaded network config (SIGHUP). */
  reloadServices(plugins: NodeConfig['plugins']): Promise<ServiceReload>;
}

/**
 * Boots a gateway process the way node.ts boots a node: config → plugin host (profile
 * 'gateway', so only service plugins of the network's list load, plus `gateway` itself) →
 * listen. Shutdown: plugins in reverse (server, poller), then the core (Redis).
 */
export async function startGateway(nodeConfig: NodeConfig, config: GatewayConfig, catalogue: ReadonlyMap<string, PluginDefinition<any, any>>): Promise<RunningGateway> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const log = pino({ level: nodeConfig.log_level, base: { network: config.networkId, process: 'gateway' } });
  const withGateway = new Map(catalogue);
  // Plugins of the gateway process alone (nodes never load them): the explorer's page, then the gateway itself.
  const gatewaySide = [explorerPlugin, gatewayPlugin];
  for (const p of gatewaySide) withGateway.set(p.name, p);
  // They are on in a gateway process, after any service plugin the network lists, unless the network lists one itself (`enabled: false` turns the explorer off).
  const withGatewayEntry = (list: NodeConfig['plugins']): NodeConfig['plugins'] => [...list, ...gatewaySide.filter((g) => !list.some((p) => p.name === g.name)).map((g) => ({ name: g.name, enabled: true, activation_height: 0, options: {} }))];
  const hostConfig: NodeConfig = { ...nodeConfig, plugins: withGatewayEntry(nodeConfig.plugins) };

  // Every plugin of the build, enabled here or not: state plugins emit on the nodes, never in a gateway.
  const socketEvents = declaredEvents(catalogue.values()).filter((e) => e.socket === true);
  const core = createGatewayServices(config, log, socketEvents, forwardedOperations(catalogue), listedPluginRoutes(catalogue));
  const host = new PluginHost<GatewayServices>({ config: hostConfig, hooks: createHooks(), catalogue: withGateway, params: new ParamRegistry(), log, metrics: core.services.metrics.registry, services: core.services, profile: 'gateway' });
  try {
    await host.boot();
    await core.booted();
  } catch (e) {
    await host.close().catch(() => undefined);
    await core.close();
    throw e;
  }
  log.info({ node: config.nodeRpcUrl, shards: core.services.router.shardCount, faucet_cooldown_store: core.services.cooldown.backend }, 'gateway started');

  let stopping: Promise<void> | null = null;
  return {
    log,
    services: core.services,
    async reloadServices(plugins) {
      const r = await reconcileServices(host, withGatewayEntry(plugins));
      log.info({ loaded: r.loaded, unloaded: r.unloaded, failed: r.failed }, 'service plugins reloaded');
      return r;
    },
    stop() {
      stopping ??= (async () => {
        await host.close();
        await core.close();
        log.info('gateway stopped');
      })();
      return stopping;
    },
  };
}
