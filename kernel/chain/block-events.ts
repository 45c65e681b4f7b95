import { badRequest } from '../errors.js';
import { EVENT_TYPE_PATTERN } from '../host/plugin-events.js';
import { jsonRecord } from '../state/record-codec.js';
import type { BlockEvent, ChainEvent, EventPhase } from '../model/types.js';

/** Receives what a hook context's `emit` is given. */
export type EventSink = (event: ChainEvent) => void;

const dataCodec = jsonRecord<Readonly<Record<string, unknown>>>();

/**
 * Refuses an event the store could not write or the gateway could not relay, at the `emit` that
 * made it: inside the handler, so a transaction fails the same way on every validator. Found at
 * commit instead, after the block was decided, it would stop the node.
 */
export function checkEvent(event: ChainEvent): void {
  if (typeof event.type !== 'string' || !EVENT_TYPE_PATTERN.test(event.type)) {
    throw badRequest(`event type "${String(event.type).slice(0, 64)}" must be lower_snake_case, at most 48 characters`);
  }
  if (event.data === null || typeof event.data !== 'object' || Array.isArray(event.data)) throw badRequest(`event ${event.type}: data must be an object`);
  try {
    dataCodec.encode(event.data);
  } catch (e) {
    throw badRequest(`event ${event.type}: data cannot be stored (${e instanceof Error ? e.message : String(e)})`);
  }
}

/**
 * One block's events in execution order, each numbered by its place in the block. A
 * transaction's events join only once it succeeded, so a failed transaction leaves none and the
 * numbering has no gaps.
 */
export class BlockEventLog {
  private readonly list: BlockEvent[] = [];

  constructor(private readonly height: number) {}

  /** Where events of a block-level phase go as they are emitted. */
  sink(phase: Exclude<EventPhase, 'tx'>): EventSink {
    return (event) => this.add(phase, null, [event]);
  }

  add(phase: EventPhase, txHash: string | null, events: readonly ChainEvent[]): void {
    for (const { type, data } of events) this.list.push({ type, data, height: this.height, index: this.list.length, tx_hash: txHash, phase });
  }

  get events(): readonly BlockEvent[] {
    return this.list;
  }
}
