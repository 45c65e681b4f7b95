import { Type } from '@sinclair/typebox';
import { defineEvent } from '../../kernel/sdk.js';
import { SessionScopeSchema } from './store.js';

export const sessionGranted = defineEvent({
  type: 'session_granted',
  description: 'an account granted a session key (`cap` in ucoin; the key signs in blocks below `expiry_block`)',
  data: Type.Object({ account: Type.String(), session_pk: Type.String(), scope: SessionScopeSchema, cap: Type.Integer({ minimum: 0 }), expiry_block: Type.Integer({ minimum: 1 }) }),
  socket: true,
});

export const sessionRevoked = defineEvent({
  type: 'session_revoked',
  description: 'an account revoked a session key, refused from `effective_block` on',
  data: Type.Object({ account: Type.String(), session_pk: Type.String(), effective_block: Type.Integer({ minimum: 1 }) }),
  socket: true,
});
