import type { Static, TObject } from '@sinclair/typebox';
import type { ChainEvent } from '../model/types.js';
import { RecordSchema } from '../state/record-schema.js';
import { EVENT_TYPE_PATTERN } from './plugin-events.js';
import type { PluginEventSpec } from './plugin.js';

/** What an event is declared with: its type, what it means, its data's schema (Lisk's `BaseEvent`). */
export interface EventSpec<D extends TObject> {
  /** lower_snake_case, at most 48 characters; unique in the build. */
  readonly type: string;
  readonly description: string;
  /** The schema of `data` (TypeBox object; `Type.BigInt()` for amounts, served as JSON integers). */
  readonly data: D;
  /** Pushed to the gateway's socket clients when a block carrying it commits. */
  readonly socket?: boolean;
}

/**
 * A declared event: list it in the plugin's `events` and emit it with `event.emit(ctx, data)`,
 * typed from the schema and checked against it before it reaches the block (a mismatch throws,
 * failing the handler on every node alike). Its `fields` (the data's keys) are what the gateway's
 * socket mapping and the README's event table read.
 */
export class TypedEvent<D extends TObject = TObject> implements PluginEventSpec {
  readonly type: string;
  readonly description: string;
  readonly data: D;
  readonly socket: boolean;
  readonly fields: readonly string[];
  private readonly record: RecordSchema<D>;

  constructor(spec: EventSpec<D>) {
    if (!EVENT_TYPE_PATTERN.test(spec.type)) throw new Error(`event "${spec.type}": types are lower_snake_case of at most 48 characters`);
    if (spec.data.type !== 'object') throw new Error(`event "${spec.type}": data is an object schema (Type.Object)`);
    this.type = spec.type;
    this.description = spec.description;
    this.data = spec.data;
    this.socket = spec.socket === true;
    this.fields = Object.keys(spec.data.properties);
    this.record = new RecordSchema(`event ${spec.type}`, spec.data, 'record');
  }

  /** Emits the event in a write context (its data checked first). */
  emit(ctx: { emit(event: ChainEvent): void }, data: Static<D>): void {
    if (!this.record.matches(data)) throw new Error(`event ${this.type}: data does not match its schema: ${this.record.firstProblem(data)}`);
    ctx.emit({ type: this.type, data });
  }

  /** Whether data matches the schema (the host's check of a raw `ctx.emit`). */
  matches(data: unknown): boolean {
    return this.record.matches(data);
  }

  problem(data: unknown): string {
    return this.record.firstProblem(data);
  }
}

export function defineEvent<D extends TObject>(spec: EventSpec<D>): TypedEvent<D> {
  return new TypedEvent(spec);
}
