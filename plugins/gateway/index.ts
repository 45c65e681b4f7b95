import { definePlugin, type HttpServer } from '../../kernel/sdk.js';
import { CORE_EVENTS } from './event-bus.js';
import { listenGateway } from './listen.js';
import { registerProxyRoutes } from './proxy-routes.js';
import { registerContractMethods, registerContractRoutes } from './contract-routes.js';
import { registerOperationMethods, registerOperationRoutes } from './operation-routes.js';
import { registerCoreRpcMethods } from './rpc-methods.js';
import type { GatewayServices } from './services.js';
import { SocketHub } from './socket.js';
import { gatewayHealth } from './status.js';
import { registerStatusRoutes } from './status-routes.js';
import { registerGatewayApiReference } from './api-reference.js';
import { loadCryptoModule, registerCryptoModuleRoutes } from './crypto-module.js';
import { AnalyzerModel, ANALYZE_PATH, registerAiRoutes } from './ai-routes.js';
import { registerSecurityMethods } from './security-methods.js';
import { CONTRACT_ALERT_EVENT, CONTRACT_ALERT_MODEL, ContractAlerts } from './contract-alerts.js';
import { ContractGenerator } from './generator/contract-generator.js';
import { loadTemplateSources } from './generator/template-sources.js';
import { ASSISTANT_MODEL, DocsSearch } from './assistant/docs-search.js';

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
    const health = () => gatewayHealth(s.config, s.poller, s.cooldown, () => hub.clientCount);
    const cryptoModule = loadCryptoModule();
    if (!cryptoModule) api.log.warn('the browser crypto module is not built (npm run build): /api/v1/wasm/* answer 503');
    const alerts = new ContractAlerts(s.config.contractAlerts, s.reads, s.events, api.log.child({ part: 'contract-alerts' }));
    const generator = new ContractGenerator({
      read: (path) => s.reads.get(path),
      analyze: (bytecodeHex) => s.client.request(s.router.nodesOfShard(0), 'POST', ANALYZE_PATH, { bytecode_hex: bytecodeHex }),
      sources: loadTemplateSources(),
      provider: s.config.aiProvider,
    });
    const docs = DocsSearch.load();
    if (!docs) api.log.warn('the documentation index is not built (npm run build): /api/v1/assistant/ask answers 503');
    const analyzer = new AnalyzerModel(s);
    // decisions.md §52's figures of GET /api/v1/ai/status.
    const aiFigures = async (): Promise<Record<string, unknown>> => {
      const a = s.config.contractAlerts;
      return {
        analyzer: { model: await analyzer.current() },
        generator: { mode: generator.mode, kinds: generator.kinds },
        assistant: { enabled: s.config.assistantEnabled, model: ASSISTANT_MODEL },
        contract_alerts: { check_interval_ms: a.checkIntervalMs, spike_low_threshold: a.spikeLowThreshold, spike_high_threshold: a.spikeHighThreshold, low_score_threshold: a.lowScoreThreshold, cooldown_ms: a.cooldownMs, model: CONTRACT_ALERT_MODEL },
        rate_limit: { ai_rl_max_rpm: s.config.aiRlMaxRpm },
      };
    };

    registerCoreRpcMethods(api.hooks, api.name, s, async () => (await health()).body);
    registerOperationMethods(api.hooks, api.name, s);
    registerContractMethods(api.hooks, api.name, s);
    registerSecurityMethods(api.hooks, api.name, s);
    api.hooks.routes.tap(api.name, (routes) => {
      routes.withOwner(api.name, () => {
        registerProxyRoutes(routes, s);
        registerStatusRoutes(routes, s, health, aiFigures);
        registerOperationRoutes(routes, s);
        registerContractRoutes(routes, s);
        registerAiRoutes(routes, s, { generator, docs });
        registerCryptoModuleRoutes(routes, cryptoModule);
        registerGatewayApiReference(routes, s, api.hooks, () => server);
      });
    });

    let server: HttpServer | undefined;
    s.whenBooted(async () => {
      hub.start();
      alerts.start();
      s.poller.start();
      server = (await listenGateway(s.config, api.hooks, hub.handlers(), api.log, api.runtime)).server;
    });
    api.onClose(async () => {
      hub.stop();
      await alerts.stop();
      await s.poller.stop();
      await server?.close();
    });
  },
});
