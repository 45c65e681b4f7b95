import { definePlugin, type HttpServer } from '../../kernel/sdk.js';
import { CORE_EVENTS } from './event-bus.js';
import { listenGateway } from './listen.js';
import { registerProxyRoutes } from './proxy-routes.js';
import { registerCrossShardRoutes } from './cross-shard-routes.js';
import { registerContractMethods, registerContractRoutes } from './contract-routes.js';
import { registerOperationMethods, registerOperationRoutes } from './operation-routes.js';
import { registerCoreRpcMethods } from './rpc-methods.js';
import type { GatewayServices } from './services.js';
import { SocketHub } from './socket.js';
import { gatewayHealth, shardHealth } from './status.js';
import { registerStatusRoutes } from './status-routes.js';
import { registerGatewayApiReference } from './api-reference.js';
import { loadCryptoModule, registerCryptoModuleRoutes } from './crypto-module.js';
import { registerAiRoutes } from './ai-routes.js';
import { createAiParts } from './ai-parts.js';
import { registerSecurityMethods } from './security-methods.js';
import { CONTRACT_ALERT_EVENT } from './contract-alerts.js';

export type { GatewayServices } from './services.js';

/**
 * The public gateway (issue 4): REST proxy with cache, `/ws` events and socket RPC, shard routing
 * of submissions, faucet cooldown. Runs in a `chain gateway` process (profile 'gateway'), where
 * `api.services` is the GatewayServices core; it never decides chain state.
 */
export const gatewayPlugin = definePlugin<Record<string, unknown>, GatewayServices>({
  name: 'gateway',
  kind: 'service',
  description: 'public REST proxy, WebSocket events and socket RPC in front of the node RPC',
  register(api) {
    const s = api.services;
    for (const e of [...CORE_EVENTS, CONTRACT_ALERT_EVENT, ...s.blockEvents.events]) s.events.define(e);
    const hub = new SocketHub(s.config, api.hooks, s.events, s.reads, s.poller, s.router, s.metrics, api.log.child({ part: 'socket' }));
    const health = (shard?: number) => (shard === undefined ? gatewayHealth(s.config, s.poller, s.cooldown, () => hub.clientCount) : shardHealth(shard, s.reads, s.router.shardCount, s.config, s.cooldown, () => hub.clientCount));
    const cryptoModule = loadCryptoModule();
    if (!cryptoModule) api.log.warn('the browser crypto module is not built (npm run build): /api/v1/wasm/* answer 503');
    const ai = createAiParts(s, api.log);

    registerCoreRpcMethods(api.hooks, api.name, s, async () => (await health()).body);
    registerOperationMethods(api.hooks, api.name, s);
    registerContractMethods(api.hooks, api.name, s);
    registerSecurityMethods(api.hooks, api.name, s);
    api.hooks.routes.tap(api.name, (routes) => {
      routes.withOwner(api.name, () => {
        registerProxyRoutes(routes, s);
        registerStatusRoutes(routes, s, health, () => ai.figures(), cryptoModule?.version ?? null);
        registerOperationRoutes(routes, s);
        registerCrossShardRoutes(routes, s);
        registerContractRoutes(routes, s);
        registerAiRoutes(routes, s, ai);
        registerCryptoModuleRoutes(routes, cryptoModule);
        registerGatewayApiReference(routes, s, api.hooks, () => server);
      });
    });

    let server: HttpServer | undefined;
    s.whenBooted(async () => {
      hub.start();
      ai.alerts.start();
      s.poller.start();
      server = (await listenGateway(s.config, api.hooks, hub.handlers(), api.log, api.runtime)).server;
    });
    api.onClose(async () => {
      hub.stop();
      await ai.alerts.stop();
      await s.poller.stop();
      await server?.close();
    });
  },
});
