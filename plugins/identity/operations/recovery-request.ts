import { badRequest, defineOperation, forbidden, isChainError, notFound } from '../../../kernel/sdk.js';
import { RequestSchema, WithdrawSchema } from '../schemas.js';
import { identityMessages, ownLayout } from '../messages.js';
import { currentKeys } from '../keys.js';
import { closeRequest, latestRequest, openRequest, readConfig } from '../recovery.js';
import { requests, type RecoveryRequest } from '../store.js';
import { recoveryRequested } from '../events.js';
import { IDENTITY_TARGET } from './rotate.js';

/**
 * `POST /api/v1/identity/recovery/request`, signed `ch-recovery-request|<requester>|<target>|<new_key>|<nonce>`
 * by a main key of the requester (anyone: typically a guardian, or the owner from a new account).
 * One request is open per target at a time; guardians decide, the owner may cancel.
 */
export const recoveryRequest = defineOperation({
  name: 'recovery_request',
  description: 'asks that a new key replace the keys of a target account',
  routes: [{ method: 'POST', path: '/api/v1/identity/recovery/request' }],
  schema: RequestSchema,
  actorFromKey: true,
  signsFor: IDENTITY_TARGET,
  value: null,
  gas: 60,
  signing: { message: ownLayout(identityMessages.request) },
  mainKeyOnly: 'request a recovery',
  async check(ctx, op) {
    if (!(await readConfig(ctx, op.body.target))) return notFound(`${op.body.target} has no recovery set up`);
    const existing = await latestRequest(ctx, op.body.target);
    if (existing?.status === 'open') return badRequest(`a recovery request for ${op.body.target} is already open`);
    if ((await currentKeys(ctx, op.body.target)).keys.includes(op.body.new_key)) return badRequest('new_key is already a main key of the target');
    return undefined;
  },
  async execute(ctx, op) {
    // Numbered per target: the previous request (closed, or none) stays under the same key.
    const previous = await latestRequest(ctx, op.body.target);
    const r: RecoveryRequest = { id: (previous?.id ?? 0) + 1, target: op.body.target, requester: op.actor, new_key: op.body.new_key, height: ctx.block.height, approvals: [], rejections: [], status: 'open', due_height: null, closed_height: null };
    // The new key's hex is sized by the protocol: not priced as growth, once per request record (kernel/chain/state-growth.ts).
    if (previous === undefined) ctx.protocolSizedBytes(r.new_key.length);
    requests.set(ctx.store, r.target, r);
    recoveryRequested.emit(ctx, { target: r.target, request_id: r.id, requester: r.requester, new_key: r.new_key });
  },
});

/** `POST /api/v1/identity/recovery/withdraw`, signed `ch-recovery-withdraw|<requester>|<target>|<nonce>`: the requester takes its request back. */
export const recoveryWithdraw = defineOperation({
  name: 'recovery_withdraw',
  description: 'the requester withdraws its open recovery request',
  routes: [{ method: 'POST', path: '/api/v1/identity/recovery/withdraw' }],
  schema: WithdrawSchema,
  actorFromKey: true,
  signsFor: IDENTITY_TARGET,
  value: null,
  gas: 30,
  signing: { message: ownLayout(identityMessages.withdraw) },
  mainKeyOnly: 'withdraw a recovery request',
  async check(ctx, op) {
    const r = await openRequest(ctx, op.body.target);
    if (isChainError(r)) return r;
    // §31: authenticated, but without the role the operation needs (the request is the requester's).
    return r.requester === op.actor ? undefined : forbidden(`the open request for ${op.body.target} was made by ${r.requester}, not ${op.actor}`);
  },
  async execute(ctx, op) {
    const r = await openRequest(ctx, op.body.target);
    if (!isChainError(r)) await closeRequest(ctx, r, 'withdrawn');
  },
});
