import type { GatewayConfig } from './config.js';
import type { FaucetCooldown } from './faucet-cooldown.js';
import type { NodePoller, NodeView } from './poller.js';
import type { ShardRouter } from './shard-router.js';

/**
 * The gateway's own health (part 1: `status`, `network`, `height`, `peers`, `round`, `mempool`),
 * from the poller's last view; re-polls when that view is older than two intervals, so a node
 * that just died is reported promptly. While the node is not answering (down, rate-limiting the
 * gateway, failing) the figures are the last ones it gave, `node_reachable` is false and
 * `node_error` says why.
 */
export async function gatewayHealth(config: GatewayConfig, poller: NodePoller, cooldown: FaucetCooldown, wsClients: () => number): Promise<{ healthy: boolean; body: Record<string, unknown> }> {
  let view: NodeView | undefined = poller.last;
  if (!view || Date.now() - view.last_poll_at > 2 * config.pollIntervalMs) {
    await poller.pollOnce();
    view = poller.last;
  }
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
      ws_clients: wsClients(),
    },
  };
}

/**
 * GET /api/v1/network/status. Measured values come from the node; `tps_peak`, `block_time_ms`,
 * `crypto` and `ai_models` are fixed descriptive values (part 1 says so), listed in
 * `descriptive_fields` so no client mistakes them for measurements.
 */
export function networkStatus(config: GatewayConfig, view: NodeView | undefined, router: ShardRouter): Record<string, unknown> {
  return {
    network: config.networkId,
    // What a client signing ch-tx-v4 through the gateway names (decisions.md §94): the node's `/api/v1/status` is Node only.
    chain_id: view?.chain_id ?? null,
    height: view?.height ?? 0,
    tps: view?.tps ?? 0,
    finality_ms: view?.finality_ms ?? 0,
    validator_count: view?.validator_count ?? 0,
    peers: view?.peers ?? 0,
    total_txs: view?.total_txs ?? 0,
    shard_count: router.shardCount,
    node_reachable: view?.reachable === true,
    tps_peak: 5000,
    block_time_ms: 200,
    crypto: ['ML-DSA-65 (FIPS 204) signatures', 'SHA3-256 hashes', 'BFT finality (propose / prevote / precommit)'],
    ai_models: { transaction_scoring: 'sentinel', contract_analysis: 'analyzer' },
    descriptive_fields: ['tps_peak', 'block_time_ms', 'crypto', 'ai_models'],
  };
}
