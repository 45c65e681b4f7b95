import { badRequest, defineOperation, notFound } from '../../../kernel/sdk.js';
import { RevokeSchema } from '../schemas.js';
import { grants, keyId } from '../store.js';
import { sessionRevoked } from '../events.js';
import { SESSION_TARGET } from './grant.js';

/**
 * `POST /api/v1/session/revoke`: effective from the next block (part 1, Session key states).
 * The block that revokes records its height; from the block after it, every transaction signed
 * with the key fails, whether it was admitted before, is still pending or comes from a proposer
 * that skipped checkTx, because authorization asks again in the block.
 */
export const revokeSession = defineOperation({
  name: 'revoke_session',
  description: 'revokes a session key from the next block',
  routes: [{ method: 'POST', path: '/api/v1/session/revoke' }],
  schema: RevokeSchema,
  signsFor: SESSION_TARGET,
  value: null,
  gas: 30,
  mainKeyOnly: 'revoke session keys',
  async check(ctx, op) {
    const g = await grants.get(ctx.store, op.actor, keyId(op.body.session_pk.toLowerCase()));
    if (!g) return notFound(`no session key ${op.body.session_pk.slice(0, 16)}… granted by ${op.actor}`);
    if (g.revoked_height !== null) return badRequest(`session key already revoked in block ${g.revoked_height}`);
    return undefined;
  },
  async execute(ctx, op) {
    const id = keyId(op.body.session_pk.toLowerCase());
    const g = (await grants.get(ctx.store, op.actor, id))!;
    grants.set(ctx.store, op.actor, id, { ...g, revoked_height: ctx.block.height });
    sessionRevoked.emit(ctx, { account: op.actor, session_pk: g.session_pk, effective_block: ctx.block.height + 1 });
  },
});
