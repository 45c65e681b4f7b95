import type { Logger } from 'pino';
import { EVENT_TYPE_PATTERN } from '../../kernel/sdk.js';

/** One event type the socket can carry; `fields` documents (and loosely checks) its `data`. */
export interface EventSpec {
  readonly type: string;
  readonly description: string;
  /** Keys `data` must carry; empty when the payload is open (e.g. a block as the node returns it). */
  readonly fields: readonly string[];
}

export interface EventMessage {
  readonly type: string;
  readonly data: Record<string, unknown>;
}

type Listener = (event: EventMessage) => void;

/**
 * The registry of socket events. The gateway core defines its own types here; another service
 * plugin calls `define()` in its register() and `emit()` later, and its events reach every socket
 * client without the core knowing the type. Listeners (the socket fan-out, other plugins) see
 * every emitted event.
 */
export class EventBus {
  private readonly specs = new Map<string, EventSpec>();
  private readonly listeners = new Set<Listener>();
  readonly emitted = new Map<string, number>();

  constructor(private readonly log: Logger) {}

  define(spec: EventSpec): void {
    if (this.specs.has(spec.type)) throw new Error(`event type "${spec.type}" is already defined`);
    if (!EVENT_TYPE_PATTERN.test(spec.type)) throw new Error(`event type "${spec.type}" must be lower_snake_case`);
    this.specs.set(spec.type, spec);
  }

  has(type: string): boolean {
    return this.specs.has(type);
  }

  list(): readonly EventSpec[] {
    return [...this.specs.values()];
  }

  /** Broadcasts to every listener. An unknown type is a programming error and throws. */
  emit(type: string, data: Record<string, unknown>): void {
    const spec = this.specs.get(type);
    if (!spec) throw new Error(`event type "${type}" is not defined (EventBus.define it first)`);
    const missing = spec.fields.filter((f) => !(f in data));
    // Missing fields are logged, not thrown: a partial event is more useful to clients than none.
    if (missing.length > 0) this.log.warn({ type, missing }, 'event emitted without all its documented fields');
    this.emitted.set(type, (this.emitted.get(type) ?? 0) + 1);
    const event: EventMessage = { type, data };
    for (const l of this.listeners) {
      try {
        l(event);
      } catch (err: unknown) {
        this.log.error({ err, type }, 'event listener failed');
      }
    }
  }

  /** Returns the unsubscribe function. */
  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/**
 * The event types of part 2 "Events from the gateway" that this gateway produces itself. Those a
 * plugin emits in a block (`faucet`) are declared by that plugin and relayed (block-events.ts).
 */
export const CORE_EVENTS: readonly EventSpec[] = [
  { type: 'init', description: 'sent to each client right after it connects', fields: ['height', 'tps', 'finality_ms', 'shard_count', 'validator_count', 'blocks', 'txs', 'total_blocks', 'total_txs'] },
  { type: 'metrics', description: 'every poll of the node', fields: ['tps', 'height', 'finality_ms'] },
  { type: 'new_block', description: 'every new height, in order; the block as GET /api/v1/blocks/:height returns it', fields: [] },
  { type: 'validator_update', description: 'every 10 blocks, and when a validator set change a block made is in force (then with `changes` and `effective_height`)', fields: ['nodes', 'total_staked', 'height'] },
  { type: 'tx', description: 'the gateway forwarded a transaction (a submission notice; status not authoritative)', fields: ['hash', 'from', 'to', 'value', 'gas', 'gas_price', 'shard', 'timestamp', 'block'] },
  { type: 'tx_anomaly', description: 'a submission response carried sentinel fields', fields: ['tx_hash', 'score', 'category'] },
];
