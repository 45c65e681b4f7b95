import { Type } from '@sinclair/typebox';
import { defineEvent } from '../../kernel/sdk.js';

/** The identity events, each emitted where its change is applied (the gateway pushes them all). */

export const keysRotated = defineEvent({
  type: 'keys_rotated',
  description: 'an account added and/or removed a main key (`""` for none)',
  data: Type.Object({ address: Type.String(), added: Type.String(), removed: Type.String(), version: Type.Integer({ minimum: 1 }) }),
  socket: true,
});

export const recoverySetupDone = defineEvent({
  type: 'recovery_setup',
  description: 'an account set its guardians',
  data: Type.Object({ owner: Type.String(), guardians: Type.Array(Type.String()), threshold: Type.Integer({ minimum: 1 }), timelock: Type.Integer({ minimum: 1 }) }),
  socket: true,
});

export const recoveryRequested = defineEvent({
  type: 'recovery_requested',
  description: 'a recovery request was opened',
  data: Type.Object({ target: Type.String(), request_id: Type.Integer({ minimum: 1 }), requester: Type.String(), new_key: Type.String() }),
  socket: true,
});

export const recoveryApproved = defineEvent({
  type: 'recovery_approved',
  description: 'a guardian approved a recovery request (`due_height`: the block whose end completes it, once the threshold is met)',
  data: Type.Object({ target: Type.String(), request_id: Type.Integer({ minimum: 1 }), guardian: Type.String(), approvals: Type.Integer({ minimum: 1 }), due_height: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]) }),
  socket: true,
});

export const recoveryRejected = defineEvent({
  type: 'recovery_rejected',
  description: 'a guardian rejected a recovery request',
  data: Type.Object({ target: Type.String(), request_id: Type.Integer({ minimum: 1 }), guardian: Type.String(), rejections: Type.Integer({ minimum: 1 }) }),
  socket: true,
});

export const recoveryClosed = defineEvent({
  type: 'recovery_closed',
  description: 'a recovery request was cancelled, withdrawn or rejected',
  data: Type.Object({ target: Type.String(), status: Type.Union([Type.Literal('cancelled'), Type.Literal('withdrawn'), Type.Literal('rejected')]) }),
  socket: true,
});

export const recoveryCompleted = defineEvent({
  type: 'recovery_completed',
  description: 'a recovery replaced the keys of an account (emitted at the end of the block it was due in)',
  data: Type.Object({ target: Type.String(), new_key: Type.String(), version: Type.Integer({ minimum: 1 }) }),
  socket: true,
});

export const IDENTITY_EVENTS = [keysRotated, recoverySetupDone, recoveryRequested, recoveryApproved, recoveryRejected, recoveryClosed, recoveryCompleted];
