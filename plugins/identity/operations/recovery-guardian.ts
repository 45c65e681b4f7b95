import { badRequest, defineOperation, forbidden, isChainError, type ChainError, type ReadContext, type TxContext } from '../../../kernel/sdk.js';
import { GuardianVoteSchema } from '../schemas.js';
import { identityMessages, ownLayout } from '../messages.js';
import { closeRequest, openRequest, readConfig, scheduleIfApproved } from '../recovery.js';
import { requests, type RecoveryConfig, type RecoveryRequest } from '../store.js';
import { recoveryApproved, recoveryRejected } from '../events.js';
import { IDENTITY_TARGET } from './rotate.js';

/**
 * A guardian's vote is possible (signed by a main key: the operation's `mainKeyOnly`): a guardian
 * of the target (403 otherwise, decisions.md §31), an open request that is the one the vote names
 * (a vote signed for an earlier request of the target is 400: it cannot be replayed against a
 * later one), no earlier vote on it.
 */
async function voteProblem(ctx: ReadContext, guardian: string, target: string, requestId: number): Promise<ChainError | { r: RecoveryRequest; config: RecoveryConfig }> {
  const config = await readConfig(ctx, target);
  if (!config || !config.guardians.includes(guardian)) return forbidden(`${guardian} is not a guardian of ${target}`);
  const r = await openRequest(ctx, target);
  if (isChainError(r)) return r;
  if (r.id !== requestId) return badRequest(`the open recovery request for ${target} is request ${r.id}, not ${requestId}: a vote names the request it is for`);
  if (r.approvals.includes(guardian)) return badRequest(`${guardian} already approved this recovery request`);
  if (r.rejections.includes(guardian)) return badRequest(`${guardian} already rejected this recovery request`);
  return { r, config };
}

type Vote = 'approve' | 'reject';

/**
 * A guardian's vote as an operation: both votes share route shape, body, layout and checks, and
 * differ only in what they record. (Not an `operationFamily`: each vote signs its own layout and
 * names its own action in the main-key refusal, which a family shares.)
 */
function voteOperation(vote: Vote, description: string, apply: (ctx: TxContext, r: RecoveryRequest, config: RecoveryConfig, guardian: string) => Promise<void>) {
  return defineOperation({
    name: `recovery_${vote}`,
    description,
    routes: [{ method: 'POST', path: `/api/v1/identity/recovery/${vote}` }],
    schema: GuardianVoteSchema,
    signsFor: IDENTITY_TARGET,
    value: null,
    gas: 40,
    mainKeyOnly: `${vote} a recovery`,
    signing: {
      message: ownLayout(identityMessages[vote]),
      // decisions.md §90: a vote that does not name its request is for the target's open one,
      // and its signature is checked against that request's id, at admission and in the block.
      resolve: {
        fields: ['request_id'],
        async fill(ctx, op) {
          const r = await openRequest(ctx, op.body.target);
          return isChainError(r) ? r : { request_id: r.id };
        },
      },
    },
    async check(ctx, op) {
      const v = await voteProblem(ctx, op.actor, op.body.target, op.body.request_id!);
      return isChainError(v) ? v : undefined;
    },
    async execute(ctx, op) {
      const v = await voteProblem(ctx, op.actor, op.body.target, op.body.request_id!);
      if (isChainError(v)) throw v;
      await apply(ctx, v.r, v.config, op.actor);
    },
  });
}

/** `POST /api/v1/identity/recovery/approve`, signed `ch-recovery-approve|<guardian>|<target>|<request_id>|<nonce>`: one guardian's approval of the open request. */
export const recoveryApprove = voteOperation('approve', 'a guardian approves the open recovery request of a target', async (ctx, r, config, guardian) => {
  const next = await scheduleIfApproved(ctx, { ...r, approvals: [...r.approvals, guardian] }, config);
  requests.set(ctx.store, next.target, next);
  recoveryApproved.emit(ctx, { target: next.target, request_id: next.id, guardian, approvals: next.approvals.length, due_height: next.due_height });
});

/**
 * `POST /api/v1/identity/recovery/reject`, signed `ch-recovery-reject|<guardian>|<target>|<request_id>|<nonce>`:
 * once so many guardians reject that the threshold can no longer be met, the request closes.
 */
export const recoveryReject = voteOperation('reject', 'a guardian rejects the open recovery request of a target', async (ctx, r, config, guardian) => {
  const next = { ...r, rejections: [...r.rejections, guardian] };
  requests.set(ctx.store, next.target, next);
  recoveryRejected.emit(ctx, { target: next.target, request_id: next.id, guardian, rejections: next.rejections.length });
  if (next.rejections.length > config.guardians.length - config.threshold) await closeRequest(ctx, next, 'rejected');
});
