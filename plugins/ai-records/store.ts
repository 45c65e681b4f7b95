import { Type, type Static } from '@sinclair/typebox';
import { defineStore, keyPart } from '../../kernel/sdk.js';
import { ModelFields } from './schemas.js';

/**
 * The ai-records state layout (the README's table is generated from these declarations): the
 * decision log, its length, and the model registry.
 */
const LogEntry = Type.Object({
  id: Type.Integer({ minimum: 1 }),
  model: Type.String(),
  kind: Type.String(),
  subject: Type.String(),
  decision: Type.String(),
  /** On 10 000 (1.0); a fraction on the wire. */
  confidence_bp: Type.BigInt({ minimum: 0n }),
  height: Type.Integer({ minimum: 0 }),
  /** The block's timestamp (ms). */
  timestamp: Type.Integer({ minimum: 0 }),
  /** The transaction that caused it, or null. */
  tx_hash: Type.Union([Type.String(), Type.Null()]),
  source_event: Type.String(),
});
export type LogEntry = Static<typeof LogEntry>;

const ModelEntry = Type.Object({
  ...ModelFields,
  /** On 10 000. */
  accuracy_bp: Type.BigInt({ minimum: 0n, maximum: 10_000n }),
});
export type ModelEntry = Static<typeof ModelEntry>;

export const logEntries = defineStore('ai-records', {
  name: 'log',
  description: 'one logged AI decision, by id from 1 in the order the blocks announced them',
  key: ['log', keyPart.integer('id')],
  value: LogEntry,
});

export const logLength = defineStore('ai-records', {
  name: 'log_count',
  description: 'how many decisions the log holds (the last id)',
  key: ['log_count'],
  value: Type.BigInt({ minimum: 0n }),
});

export const models = defineStore('ai-records', {
  name: 'models',
  description: 'a registered model version and the validators that registered it',
  key: ['model', keyPart.hex('id', { length: 16 })],
  value: ModelEntry,
});

export const AI_RECORDS_STORES = [logEntries, logLength, models];
