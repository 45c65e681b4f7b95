import { badRequest, conflict, defineOperation, isAddress, notFound, requireMainKey } from '../../../kernel/sdk.js';
import { AllowSchema, DisallowSchema } from '../schemas.js';
import { paidByPath, paysPath, SPONSOR_TARGET, type Sponsorship } from '../store.js';

/**
 * `POST /api/v1/sponsor/allow`: the sponsor names an account (or one session key of it) whose
 * fees its pool pays. Nobody draws on a pool by naming it: a transaction names no pool, the pool
 * pays only for those its owner allowed. Main key only.
 */
export const sponsorAllow = defineOperation({
  name: 'sponsor_allow',
  description: 'lets the sponsor\'s pool pay the fees of an account or of one of its session keys',
  routes: [{ method: 'POST', path: '/api/v1/sponsor/allow' }],
  schema: AllowSchema,
  signsFor: SPONSOR_TARGET,
  value: null,
  gas: 30,
  async check(ctx, op) {
    const mainOnly = requireMainKey(op.signer, 'choose whom a sponsor pool pays for');
    if (mainOnly) return mainOnly;
    if (!isAddress(op.body.beneficiary)) return badRequest(`beneficiary: ${JSON.stringify(op.body.beneficiary)} is not a chain address`);
    if (op.body.beneficiary === op.actor) return badRequest('a sponsor pays for others: its own transactions are paid from its own balance');
    const existing = await ctx.store.getRecord<Sponsorship>(paidByPath(op.body.beneficiary));
    if (existing && existing.sponsor !== op.actor) return conflict(`${op.body.beneficiary} is already sponsored by ${existing.sponsor}`);
    return undefined;
  },
  async execute(ctx, op) {
    const s: Sponsorship = { sponsor: op.actor, beneficiary: op.body.beneficiary, session_pk: op.body.session_pk?.toLowerCase() ?? null, height: ctx.block.height };
    ctx.store.setRecord(paidByPath(s.beneficiary), s);
    ctx.store.setRecord(paysPath(s.sponsor, s.beneficiary), s);
    ctx.emit({ type: 'sponsor_allowed', data: { address: s.sponsor, beneficiary: s.beneficiary, session_pk: s.session_pk } });
  },
});

/** `POST /api/v1/sponsor/disallow`: the pool stops paying for the beneficiary from the next transaction. Main key only. */
export const sponsorDisallow = defineOperation({
  name: 'sponsor_disallow',
  description: 'stops the sponsor\'s pool paying for an account',
  routes: [{ method: 'POST', path: '/api/v1/sponsor/disallow' }],
  schema: DisallowSchema,
  signsFor: SPONSOR_TARGET,
  value: null,
  gas: 20,
  async check(ctx, op) {
    const mainOnly = requireMainKey(op.signer, 'choose whom a sponsor pool pays for');
    if (mainOnly) return mainOnly;
    const s = await ctx.store.getRecord<Sponsorship>(paysPath(op.actor, op.body.beneficiary));
    return s ? undefined : notFound(`${op.actor} does not sponsor ${op.body.beneficiary}`);
  },
  async execute(ctx, op) {
    ctx.store.delete(paidByPath(op.body.beneficiary));
    ctx.store.delete(paysPath(op.actor, op.body.beneficiary));
    ctx.emit({ type: 'sponsor_disallowed', data: { address: op.actor, beneficiary: op.body.beneficiary } });
  },
});
