import { Type } from '@sinclair/typebox';
import { defineEvent, FractionText } from '../../kernel/sdk.js';

/**
 * The sentinel's events, emitted in the block. Scores are decimal fraction text (`"0.8717"`: no
 * floating point in event data; the gateway pushes them as JSON numbers, `FractionText`), values
 * bigints (JSON integers on the wire).
 */
const Moved = {
  tx_hash: Type.String(),
  from: Type.String(),
  to: Type.String(),
  value: Type.BigInt({ minimum: 0n }),
  value_human: Type.String(),
  score: FractionText(),
  category: Type.String(),
};

export const txAnomaly = defineEvent({
  type: 'tx_anomaly',
  description: 'a transfer was scored anomalous in the block (score as a decimal fraction text); the gateway pushes its own tx_anomaly at submission, so this one is not relayed',
  data: Type.Object({ tx_hash: Type.String(), score: FractionText(), score_bp: Type.BigInt({ minimum: 0n }), category: Type.String(), from: Type.String(), to: Type.String(), height: Type.Integer({ minimum: 0 }) }),
});

export const txHeld = defineEvent({
  type: 'tx_held',
  description: 'a transfer was held by the policy layer',
  data: Type.Object({ ...Moved, needs_owner: Type.Boolean(), releases: Type.String(), release_height: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]), expiry_height: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]) }),
  socket: true,
});

const resolved = (type: 'tx_released' | 'tx_cancelled' | 'tx_refunded', description: string) =>
  defineEvent({ type, description, data: Type.Object({ ...Moved, height: Type.Integer({ minimum: 0 }) }), socket: true });

export const txReleased = resolved('tx_released', 'a held transfer was released (automatically or confirmed by its owner)');
export const txCancelled = resolved('tx_cancelled', 'a held transfer was cancelled by its owner');
export const txRefunded = resolved('tx_refunded', 'a held transfer that needed its owner was refunded after sentinel_confirm_expiry_blocks');

export const trustAdded = defineEvent({
  type: 'trust_added',
  description: 'an owner added a trusted recipient',
  data: Type.Object({ owner: Type.String(), recipient: Type.String(), added_height: Type.Integer({ minimum: 0 }), active_from: Type.Integer({ minimum: 0 }) }),
  socket: true,
});

export const trustRemoved = defineEvent({
  type: 'trust_removed',
  description: 'an owner removed a trusted recipient',
  data: Type.Object({ owner: Type.String(), recipient: Type.String(), height: Type.Integer({ minimum: 0 }) }),
  socket: true,
});

export const SENTINEL_EVENTS = [txAnomaly, txHeld, txReleased, txCancelled, txRefunded, trustAdded, trustRemoved];
