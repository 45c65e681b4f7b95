import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { EventBus } from './event-bus.js';
import type { ResponseCache } from './response-cache.js';

/**
 * The gateway's own metrics registry (never prom-client's global one, so a test process that
 * starts a node and a gateway in-process cannot mix their series). Served at /metrics.
 */
export class GatewayMetrics {
  readonly registry = new Registry();
  readonly proxied = new Counter({ name: 'gateway_proxied_requests_total', help: 'requests forwarded to a node, by route and answer status', labelNames: ['route', 'status'] as const, registers: [this.registry] });
  readonly nodeHeight = new Gauge({ name: 'gateway_node_height', help: 'last height seen by the poller', registers: [this.registry] });
  readonly nodeUp = new Gauge({ name: 'gateway_node_up', help: '1 when the last poll reached the node', registers: [this.registry] });
  readonly pollErrors = new Counter({ name: 'gateway_poll_errors_total', help: 'polls that failed', registers: [this.registry] });
  readonly wsConnections = new Gauge({ name: 'gateway_ws_connections', help: 'open socket connections', registers: [this.registry] });
  readonly wsMessages = new Counter({ name: 'gateway_ws_messages_total', help: 'client socket messages by outcome', labelNames: ['kind'] as const, registers: [this.registry] });

  constructor(events: EventBus, cache: ResponseCache) {
    collectDefaultMetrics({ register: this.registry, prefix: 'gateway_' });
    new Gauge({
      name: 'gateway_events_total',
      help: 'socket events emitted, by type',
      labelNames: ['type'] as const,
      registers: [this.registry],
      collect() {
        for (const [type, n] of events.emitted) this.set({ type }, n);
      },
    });
    new Gauge({
      name: 'gateway_cache_lookups',
      help: 'response cache lookups by result',
      labelNames: ['result'] as const,
      registers: [this.registry],
      collect() {
        this.set({ result: 'hit' }, cache.hits);
        this.set({ result: 'miss' }, cache.misses);
      },
    });
  }
}
