import { badRequest, defineOperation, notFound, requireMainKey } from '../../../kernel/sdk.js';
import { RevokeSchema } from '../schemas.js';
import { grantPath, type SessionGrant } from '../store.js';
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
  async check(ctx, op) {
    const mainOnly = requireMainKey(op.signer, 'revoke session keys');
    if (mainOnly) return mainOnly;
    const g = await ctx.store.getRecord<SessionGrant>(grantPath(op.actor, op.body.session_pk.toLowerCase()));
    if (!g) return notFound(`no session key ${op.body.session_pk.slice(0, 16)}… granted by ${op.actor}`);
    if (g.revoked_height !== null) return badRequest(`session key already revoked in block ${g.revoked_height}`);
    return undefined;
  },
  async execute(ctx, op) {
    const path = grantPath(op.actor, op.body.session_pk.toLowerCase());
    const g = (await ctx.store.getRecord<SessionGrant>(path))!;
    ctx.store.setRecord<SessionGrant>(path, { ...g, revoked_height: ctx.block.height });
    ctx.emit({ type: 'session_revoked', data: { account: op.actor, session_pk: g.session_pk, effective_block: ctx.block.height + 1 } });
  },
});
