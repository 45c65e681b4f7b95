import type { Logger } from 'pino';
import type { PluginEventSpec } from '../../kernel/sdk.js';
import { BlockEventRelay } from './block-events.js';
import type { GatewayConfig } from './config.js';
import { EventBus } from './event-bus.js';
import { FaucetCooldown } from './faucet-cooldown.js';
import { GatewayMetrics } from './metrics.js';
import { NodeClient } from './node-client.js';
import { NodeReads } from './node-reads.js';
import { NodePoller } from './poller.js';
import { ResponseCache } from './response-cache.js';
import { ShardRouter } from './shard-router.js';
import { Submissions } from './submissions.js';
import type { ForwardedOperation } from './operation-routes.js';
import { ProtocolParams } from './protocol-params.js';
import type { ListedPluginRoute } from './plugin-reads.js';
import { AiBudget } from './ai-budget.js';

/**
 * What a gateway process offers its service plugins through `api.services` (the node offers its
 * chain instead). Another plugin reads the chain through `reads`, adds socket events through
 * `events`, and adds routes / socket RPC methods through the `routes` and `rpcMethods` hooks.
 */
export interface GatewayServices {
  readonly config: GatewayConfig;
  readonly client: NodeClient;
  readonly router: ShardRouter;
  readonly cache: ResponseCache;
  readonly reads: NodeReads;
  readonly events: EventBus;
  readonly metrics: GatewayMetrics;
  readonly cooldown: FaucetCooldown;
  readonly submissions: Submissions;
  readonly poller: NodePoller;
  /** The protocol parameters, re-read every PROTOCOL_PARAMS_REFRESH_MS. */
  readonly params: ProtocolParams;
  /** The signed operations of the build's state plugins, forwarded to the nodes (operation-routes.ts). */
  readonly operations: readonly ForwardedOperation[];
  /** The routes the build's state plugins list, forwarded to the nodes under their declarations (plugin-reads.ts). */
  readonly pluginRoutes: readonly ListedPluginRoute[];
  /** Relays the socket events plugins declare from each new block (the gateway plugin defines their types). */
  readonly blockEvents: BlockEventRelay;
  /** The AI_RL_MAX_RPM budget per client IP that every AI endpoint shares (decisions.md §52; ai-budget.ts). */
  readonly aiBudget: AiBudget;
  /** Runs once every plugin has registered (so all routes are known): the gateway plugin listens here. */
  whenBooted(fn: () => Promise<void>): void;
}

export interface GatewayCore {
  readonly services: GatewayServices;
  /** Runs the whenBooted callbacks in registration order. */
  booted(): Promise<void>;
  close(): Promise<void>;
}

/**
 * `socketEvents`: what the build's plugins declare with `socket: true` (relayed from blocks);
 * `operations`: the signed operations they declare (forwarded to the nodes).
 */
export function createGatewayServices(config: GatewayConfig, log: Logger, socketEvents: readonly PluginEventSpec[], operations: readonly ForwardedOperation[] = [], pluginRoutes: readonly ListedPluginRoute[] = []): GatewayCore {
  const router = ShardRouter.fromConfig(config.nodeRpcUrl, config.shardNodes, config.shardNodeUrls);
  const client = new NodeClient(config.nodeTimeoutMs, log.child({ part: 'node-client' }), config.nodeSourceAddress);
  const cache = new ResponseCache(config.cacheMaxEntries, config.pollIntervalMs);
  const reads = new NodeReads(client, cache, router, config.nodeRpcUrl);
  const events = new EventBus(log.child({ part: 'events' }));
  const metrics = new GatewayMetrics(events, cache);
  const cooldown = new FaucetCooldown(config.faucetCooldownSecs, config.kvStore, log.child({ part: 'faucet-cooldown' }));
  const params = new ProtocolParams(client, router, config.paramsRefreshMs, log.child({ part: 'protocol-params' }));
  const submissions = new Submissions(client, router, reads, events, cooldown, config.faucetAmount, log.child({ part: 'submissions' }), params);
  const blockEvents = new BlockEventRelay(socketEvents, reads, events, log.child({ part: 'block-events' }));
  const poller = new NodePoller(reads, cache, events, metrics, config.pollIntervalMs, log.child({ part: 'poller' }), (height) => blockEvents.relayUpTo(height), (height) => blockEvents.takeSetChanges(height));
  const aiBudget = new AiBudget(config.aiRlMaxRpm);
  const pending: Array<() => Promise<void>> = [];
  return {
    services: { config, client, router, cache, reads, events, metrics, cooldown, submissions, poller, params, blockEvents, aiBudget, operations, pluginRoutes, whenBooted: (fn) => pending.push(fn) },
    async booted() {
      await params.start();
      await cooldown.start();
      if (config.kvStore.kind === 'configured' && config.faucetCooldownSecs > 0 && !(await cooldown.connected())) {
        log.warn({ kv_store_url: config.kvStore.url.replace(/\/\/[^@/]*@/, '//***@') }, 'KV_STORE_URL is set but Redis did not answer at start-up: faucet cooldowns are kept in memory until it does');
      }
      for (const fn of pending.splice(0)) await fn();
    },
    async close() {
      try {
        params.stop();
        await poller.stop();
        await cooldown.close();
      } finally {
        await client.close();
      }
    },
  };
}
