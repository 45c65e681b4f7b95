import type { GatewayConfig } from './config.js';
import type { FaucetCooldown } from './faucet-cooldown.js';
import { emptyView, viewOfHealth, type NodePoller, type NodeView } from './poller.js';
import { isObject } from './node-client.js';
import type { NodeReads } from './node-reads.js';

/**
 * The gateway's own health (part 1: `status`, `network`, `height`, `peers`, `round`, `mempool`),
 * from the poller's last view; re-polls when that view is older than two intervals, so a node
 * that just died is reported promptly. While the node is not answering (down, rate-limiting the
 * gateway, failing) the figures are the last ones it gave, `node_reachable` is false and
 * `node_error` says why.
 */
export function gatewayHealth(config: GatewayConfig, poller: NodePoller, cooldown: FaucetCooldown, wsClients: () => number): HealthAnswer | Promise<HealthAnswer> {
  const view: NodeView | undefined = poller.last;
  if (!view || Date.now() - view.last_poll_at > 2 * config.pollIntervalMs) return poller.pollOnce().then(() => healthRecord(poller.last, config, cooldown, wsClients));
  // A fresh view is answered at once, not in a promise: /health makes no microtask hop.
  return healthRecord(view, config, cooldown, wsClients);
}

/**
 * decisions.md §73: `/health?shard=<s>`, the same record from a node of shard s asked now (the
 * poller follows the primary node only), with `shard` and `n_shards`.
 */
export async function shardHealth(shard: number, reads: NodeReads, shardCount: number, config: GatewayConfig, cooldown: FaucetCooldown, wsClients: () => number): Promise<HealthAnswer> {
  let view: NodeView;
  try {
    const answer = await reads.freshOnShard(shard, '/health');
    if (answer.status < 200 || answer.status >= 300 || !isObject(answer.body)) throw new Error(`node /health answered ${answer.status}`);
    view = viewOfHealth(answer.body);
  } catch (e: unknown) {
    view = { ...emptyView(), last_poll_at: Date.now(), error: e instanceof Error ? e.message : String(e) };
  }
  const { healthy, body } = freshHealthRecord(view, config, cooldown, wsClients());
  return { healthy, body: { ...body, shard, n_shards: shardCount } };
}

export interface HealthAnswer {
  readonly healthy: boolean;
  readonly body: Record<string, unknown>;
}

/**
 * The record of one poll's view, kept while nothing else it shows changes (the cooldown store, the
 * socket count): /health answers the same object between polls, so its reply is encoded once
 * (status-routes.ts) rather than per request. Keyed by the view, which each poll replaces.
 */
const records = new WeakMap<NodeView, { readonly config: GatewayConfig; readonly store: string; readonly configured: boolean; readonly clients: number; readonly answer: HealthAnswer }>();

function healthRecord(view: NodeView | undefined, config: GatewayConfig, cooldown: FaucetCooldown, wsClients: () => number): HealthAnswer {
  if (view === undefined) return freshHealthRecord(view, config, cooldown, wsClients());
  const clients = wsClients();
  const kept = records.get(view);
  if (kept !== undefined && kept.config === config && kept.store === cooldown.backend && kept.configured === cooldown.configured && kept.clients === clients) return kept.answer;
  const answer = freshHealthRecord(view, config, cooldown, clients);
  records.set(view, { config, store: cooldown.backend, configured: cooldown.configured, clients, answer });
  return answer;
}

function freshHealthRecord(view: NodeView | undefined, config: GatewayConfig, cooldown: FaucetCooldown, wsClients: number): HealthAnswer {
  const reachable = view?.reachable === true;
  const store = cooldown.backend;
  const degraded = store === 'memory (redis unavailable)';
  return {
    healthy: reachable,
    body: {
      status: !reachable ? 'node_unreachable' : degraded ? 'degraded' : view!.status,
      network: config.networkId,
      height: view?.height ?? 0,
      peers: view?.peers ?? 0,
      round: view?.round ?? 0,
      mempool: view?.mempool ?? 0,
      node_reachable: reachable,
      node_status: view?.status ?? 'unknown',
      last_poll_at: view?.last_poll_at ?? 0,
      ...(view?.error ? { node_error: view.error } : {}),
      faucet_cooldown_store: store,
      ...(degraded ? { warning: `${cooldown.configured ? 'KV_STORE_URL is set but Redis' : 'the local Redis found at start-up'} is unreachable: faucet cooldowns are kept in memory` } : {}),
      ws_clients: wsClients,
    },
  };
}
